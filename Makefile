# Quickstart:  make run   — a local control plane + registry, CRDs installed, catalogd, operator-controller and olm-classic running
#              make test  — install, build, lint, typecheck and run every test (unit + integration)
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

NODE_MODULES := node_modules/.installed

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

$(NODE_MODULES): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: $(NODE_MODULES) ## npm ci (only when package-lock.json changed)

SYSTEM_TOOLS := skopeo umoci zstd jq curl
system-deps: ## Debian tools the tests use (skopeo, umoci, zstd; jq, curl for the README tutorial); installed when missing
	@missing=""; for t in $(SYSTEM_TOOLS); do command -v $$t >/dev/null || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; fi; \
	fi

envtest: ## Build kube-apiserver+etcd and the registry from the Go module proxy (cached)
	bash test/envtest/build.sh >/dev/null

lint: $(NODE_MODULES) ## eslint
	npx eslint .

typecheck: $(NODE_MODULES) ## tsc --noEmit
	npx tsc -p tsconfig.json --noEmit

crd-check: $(NODE_MODULES) ## Fail when config/crd drifted from the schemas in api/, or docs/ from the flags and commands
	node --import tsx api/generate.ts --check
	node --import tsx cmd/docs.ts --check

generate: $(NODE_MODULES) ## Regenerate config/crd from api/, and the flag and command tables of docs/ from cmd/ and internal/cli
	node --import tsx api/generate.ts
	node --import tsx cmd/docs.ts

build: $(NODE_MODULES) ## Compile to dist/, bundle each controller (dist/bin, what the image runs) and the CLI that bin/kubectl-olm runs (dist/kubectl-olm)
	npx tsc -p tsconfig.build.json
	node --import tsx cmd/bundle.ts
	node --import tsx cmd/kubectl-olm/bundle.ts

test: $(NODE_MODULES) system-deps envtest lint typecheck crd-check ## Everything CI runs; last line: N passed, N failed
	npx vitest run

unit: $(NODE_MODULES) ## Unit tests only
	npx vitest run --project unit

run: $(NODE_MODULES) envtest ## Local control plane (unless KUBECONFIG is set) + catalogd, operator-controller, olm-classic; Ctrl-C stops all
	node --import tsx test/support/run-local.ts

bench: $(NODE_MODULES) envtest ## Benchmarks (figures, never pass/fail)
	npm run bench

image: ## Container image (needs a container engine)
	docker build -t olmv1:dev .

.PHONY: help install system-deps envtest lint typecheck crd-check generate build test unit run bench image
