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
# Memory (bench/footprint.ts and bench/catalogd-peer.ts, issue 17):
# - a 2 MiB young generation (V8's default is up to 16 MiB per semi-space): catalogd serving the certified catalog
#   idles 10–40 MiB lower with the same time to Serving;
# - --expose-gc: a full collection right after a catalog is stored (internal/shared/observability/memory.ts);
# - glibc's mmap threshold fixed at its default 128 KiB: glibc raises it each time a mapped buffer is freed, after
#   which big buffers come from its heap and are kept after they are freed (catalogd 104 → 88 MiB at Serving).
# OLMV1_NODE_FLAGS replaces the node flags; a MALLOC_MMAP_THRESHOLD_ already set is kept.
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_-131072}"
# shellcheck disable=SC2086 # the flags are words
exec node ${OLMV1_NODE_FLAGS---max-semi-space-size=2 --expose-gc} "$main" "$@"
