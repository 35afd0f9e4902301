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
exec node "$main" "$@"
