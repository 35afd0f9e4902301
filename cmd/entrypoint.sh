#!/bin/sh
# Container entrypoint: the first argument names the binary (catalogd, operator-controller, olm-classic, kubectl-olm).
# The controllers run from their esbuild bundles (cmd/bundle.ts: dist/bin/<name>/main.mjs), anything without a bundle
# (kubectl-olm) from tsc's output. OLMV1_DIST (default /app/dist) lets bench/footprint.ts run a checkout's build exactly as the image does.
set -e
name="${1:?usage: olmv1 catalogd|operator-controller|olm-classic|kubectl-olm [flags]}"
shift
dist="${OLMV1_DIST:-/app/dist}"
main="$dist/bin/$name/main.mjs"
[ -f "$main" ] || main="$dist/cmd/$name/main.js"
# A 2 MiB young generation (V8's default is up to 16 MiB per semi-space): catalogd serving the certified catalog idles
# 10–40 MiB lower with the same time to Serving (bench/footprint.ts, issue 17). OLMV1_NODE_FLAGS replaces it.
# shellcheck disable=SC2086 # the flags are words
exec node ${OLMV1_NODE_FLAGS---max-semi-space-size=2} "$main" "$@"
