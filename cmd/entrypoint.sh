#!/bin/sh
# Container entrypoint: the first argument names the binary (catalogd, operator-controller, olm-classic, kubectl-olm).
# OLMV1_DIST (default /app/dist) lets bench/footprint.ts run a checkout's build exactly as the image does.
set -e
name="${1:?usage: olmv1 catalogd|operator-controller|olm-classic|kubectl-olm [flags]}"
shift
exec node "${OLMV1_DIST:-/app/dist}/cmd/$name/main.js" "$@"
