#!/bin/sh
# Container entrypoint: the first argument names the binary (catalogd, operator-controller, olm-classic, kubectl-olm).
# The controllers run from their esbuild bundles (cmd/bundle.ts: dist/bin/<name>/main.mjs), anything without a bundle
# (kubectl-olm) from tsc's output. OLMV1_DIST (default /app/dist) lets bench/footprint.ts run a checkout's build exactly as the image does.
set -e
usage='usage: olmv1 catalogd|operator-controller|olm-classic|kubectl-olm [flags]'
name="${1-}"
dist="${OLMV1_DIST:-/app/dist}"
main="$dist/bin/$name/main.mjs"
[ -f "$main" ] || main="$dist/cmd/$name/main.js"
# No name, or one that names no binary of the image (and nothing but a plain name): the usage line, exit 2.
case $name in
  '' | */* | .*) main= ;;
esac
if [ -z "$main" ] || [ ! -f "$main" ]; then
  [ -n "$name" ] && echo "olmv1: unknown binary \"$name\"; $usage" >&2 || echo "$usage" >&2
  exit 2
fi
shift
# Memory (bench/footprint.ts and bench/catalogd-peer.ts, issue 17):
# - no node flags: any V8 flag makes node's built-in code cache miss (~20 ms of start-up); the young generation is
#   held small and a full GC made available at run time instead (internal/shared/observability/memory.ts);
# - glibc's mmap threshold fixed at its default 128 KiB: glibc raises it each time a mapped buffer is freed, after
#   which big buffers come from its heap and are kept after they are freed (catalogd 104 → 88 MiB at Serving).
# OLMV1_NODE_FLAGS adds node flags (e.g. --max-old-space-size=256); a MALLOC_MMAP_THRESHOLD_ already set is kept.
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_-131072}"
# shellcheck disable=SC2086 # the flags are words
exec node ${OLMV1_NODE_FLAGS-} "$main" "$@"
