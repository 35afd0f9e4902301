#!/usr/bin/env bash
# Builds the test control-plane binaries from the Go module proxy into a cache directory
# keyed by each module's go.sum hash, so a binary is rebuilt only when its inputs change.
#
#   test/envtest/build.sh            build what is missing, print "name=path" lines
#   test/envtest/build.sh opm ...    only the named binaries (apiserver, registry, kwok, opm, pause, coredns,
#                                    workload, demo-operator, catalogd-upstream)
#
# pause, coredns and workload are static binaries that test/support/cluster-images.ts puts in images for the real
# nodes (test/support/real-node.ts): the sandbox container, the cluster's DNS and the tests' small HTTP program;
# demo-operator (demo/operator) is the demo operator's manager, which test/support/demo.ts and make run push.
#
# catalogd-upstream (upstream's catalogd, operator-controller's cmd/catalogd, for the bench's side-by-side run) is
# built only when named: no test needs it.
#
# Environment:
#   OLM_TEST_BIN_DIR        cache root (default: <repo>/.cache/envtest)
#   OLM_TEST_APISERVER      use this prebuilt apiserver binary instead of building
#   OLM_TEST_REGISTRY       use this prebuilt registry binary instead of building
#   OLM_TEST_KWOK           use this prebuilt kwok binary (test/envtest/kwok) instead of building
#   OLM_TEST_CATALOGD_UPSTREAM  use this prebuilt upstream catalogd binary (test/envtest/catalogd-upstream)
#   OLM_TEST_OPM            use this prebuilt opm binary (test/envtest/opm: `opm serve` and `opm version`)
#   OLM_TEST_PAUSE, OLM_TEST_COREDNS, OLM_TEST_WORKLOAD, OLM_TEST_DEMO_OPERATOR  use these prebuilt static binaries
#
# The apiserver binary is multi-call: `apiserver kube-controller-manager ...`,
# `apiserver kube-scheduler ...`, `apiserver kubelet ...`, `apiserver kube-proxy ...` and `apiserver kubectl ...` run
# those upstream commands.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${OLM_TEST_BIN_DIR:-$root/.cache/envtest}
export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0

# The cache key covers what goes into a binary: its module's files, this function (the go build
# line), the ldflags and the Go toolchain, so an edit elsewhere in this script rebuilds nothing.
build() { # name module-dir ldflags
  local name=$1 dir=$2 ldflags=$3
  local key
  key=$( (declare -f build; echo "$name $ldflags"; go version; find "$dir" -maxdepth 1 -type f | sort | xargs cat) | sha256sum | cut -c1-16)
  local out="$cache/$name-$key"
  if [ ! -x "$out" ]; then
    mkdir -p "$cache"
    echo "building $name (first build takes several minutes) ..." >&2
    local start=$SECONDS
    (cd "$dir" && go build -trimpath -ldflags "-s -w $ldflags" -o "$out.tmp" .)
    mv "$out.tmp" "$out"
    echo "built $name in $((SECONDS - start))s: $out" >&2
  fi
  echo "$name=$out"
}

# A module's `tool` package (a main package of a dependency, named by the go.mod `tool` line) built with build tags;
# keyed like build() on this function, the tags, the toolchain and the module's files.
build_tool() { # name module-dir tags
  local name=$1 dir=$2 tags=$3
  local key pkg
  key=$( (declare -f build_tool; echo "$name $tags"; go version; find "$dir" -maxdepth 1 -type f | sort | xargs cat) | sha256sum | cut -c1-16)
  local out="$cache/$name-$key"
  if [ ! -x "$out" ]; then
    mkdir -p "$cache"
    pkg=$(awk '$1 == "tool" {print $2; exit}' "$dir/go.mod")
    echo "building $name ($pkg; first build takes several minutes) ..." >&2
    local start=$SECONDS
    (cd "$dir" && go build -trimpath -tags "$tags" -ldflags "-s -w" -o "$out.tmp" "$pkg")
    mv "$out.tmp" "$out"
    echo "built $name in $((SECONDS - start))s: $out" >&2
  fi
  echo "$name=$out"
}

k8s_version=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v1\./ {print substr($2, 2); exit}
                    $1 == "require" && $2 == "k8s.io/kubernetes" {print substr($3, 2); exit}' "$here/apiserver/go.mod")
k8s_minor=$(echo "$k8s_version" | cut -d. -f2)
[ -n "$k8s_minor" ] || { echo "build.sh: cannot read the k8s.io/kubernetes version from apiserver/go.mod" >&2; exit 1; }
want=("$@")
for name in "${want[@]}"; do
  case $name in apiserver | registry | kwok | opm | pause | coredns | workload | demo-operator | catalogd-upstream) ;; *) echo "build.sh: unknown binary $name" >&2; exit 2 ;; esac
done
is_wanted() { [ ${#want[@]} -eq 0 ] || [[ " ${want[*]} " == *" $1 "* ]]; }

if is_wanted apiserver; then
  if [ -n "${OLM_TEST_APISERVER:-}" ]; then echo "apiserver=$OLM_TEST_APISERVER"; else
    build apiserver "$here/apiserver" "-X k8s.io/component-base/version.gitVersion=v$k8s_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$k8s_minor"
  fi
fi
if is_wanted registry; then
  if [ -n "${OLM_TEST_REGISTRY:-}" ]; then echo "registry=$OLM_TEST_REGISTRY"; else
    build registry "$here/registry" ""
  fi
fi
if is_wanted kwok; then
  if [ -n "${OLM_TEST_KWOK:-}" ]; then echo "kwok=$OLM_TEST_KWOK"; else
    build kwok "$here/kwok" ""
  fi
fi
if is_wanted opm; then
  if [ -n "${OLM_TEST_OPM:-}" ]; then echo "opm=$OLM_TEST_OPM"; else
    opm_version=$(awk '$1 == "github.com/operator-framework/operator-registry" {print $2; exit}' "$here/opm/go.mod")
    build opm "$here/opm" "-X github.com/operator-framework/operator-registry/cmd/opm/version.opmVersion=$opm_version"
  fi
fi
if is_wanted pause; then
  if [ -n "${OLM_TEST_PAUSE:-}" ]; then echo "pause=$OLM_TEST_PAUSE"; else
    build pause "$here/pause" ""
  fi
fi
if is_wanted coredns; then
  if [ -n "${OLM_TEST_COREDNS:-}" ]; then echo "coredns=$OLM_TEST_COREDNS"; else
    coredns_version=$(awk '$1 == "github.com/coredns/coredns" {print $2; exit}
                           $1 == "require" && $2 == "github.com/coredns/coredns" {print $3; exit}' "$here/coredns/go.mod")
    build coredns "$here/coredns" "-X github.com/coredns/coredns/coremain.GitCommit=$coredns_version"
  fi
fi
if is_wanted workload; then
  if [ -n "${OLM_TEST_WORKLOAD:-}" ]; then echo "workload=$OLM_TEST_WORKLOAD"; else
    build workload "$here/workload" ""
  fi
fi
if is_wanted demo-operator; then
  if [ -n "${OLM_TEST_DEMO_OPERATOR:-}" ]; then echo "demo-operator=$OLM_TEST_DEMO_OPERATOR"; else
    build demo-operator "$root/demo/operator" ""
  fi
fi
if [ ${#want[@]} -gt 0 ] && is_wanted catalogd-upstream; then
  if [ -n "${OLM_TEST_CATALOGD_UPSTREAM:-}" ]; then echo "catalogd-upstream=$OLM_TEST_CATALOGD_UPSTREAM"; else
    build_tool catalogd-upstream "$here/catalogd-upstream" containers_image_openpgp
  fi
fi
