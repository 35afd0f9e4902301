#!/bin/sh
# Container entrypoint: the first argument names the binary (catalogd, operator-controller, olm-classic, kubectl-olm).
set -e
name="${1:?usage: olmv1 catalogd|operator-controller|olm-classic|kubectl-olm [flags]}"
shift
exec node "/app/dist/cmd/$name/main.js" "$@"
