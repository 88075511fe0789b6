# Flinkop — `make help` lists the targets.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec
.DEFAULT_GOAL := help

# Tools are pinned and installed into ./bin (never committed).
LOCALBIN ?= $(CURDIR)/bin
CONTROLLER_GEN_VERSION ?= v0.23.0
GOLANGCI_LINT_VERSION ?= v2.15.0
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_GEN_VERSION)
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
# deadcode (golang.org/x/tools): functions no main and no test reaches.
DEADCODE_VERSION ?= v0.39.0
DEADCODE ?= $(LOCALBIN)/deadcode-$(DEADCODE_VERSION)
# Helm, built from the Go module proxy (no download site needed).
HELM_VERSION ?= v3.22.0
HELM ?= $(LOCALBIN)/helm-$(HELM_VERSION)

# envtest: a real kube-apiserver and etcd, put into ./bin/k8s by `make envtest-assets`.
KUBEBUILDER_ASSETS ?= $(LOCALBIN)/k8s
export KUBEBUILDER_ASSETS

GO_TEST_FLAGS ?= -race -count=1 -timeout 30m
# Property checks the CI-sized scenario sweep runs (make test, kept within 15 minutes on 2
# cores: the seeds are fixed, so CI replays the same runs on each change; make sim explores
# SEEDS new ones).
SCENARIO_CHECKS ?= 50
# The hostile-input property's runs are longer (every run settles for 10 virtual minutes).
HOSTILE_CHECKS ?= 20
# The CI sweep is reproducible (a fixed base seed); make sim explores new random seeds.
SCENARIO_SEED ?= 20261122
# FLEET deployments (SLOW percent of them hung in the last phase) for make bench-fleet.
FLEET ?= 100
SLOW ?= 5
# More flags of flinksim fleet for make bench-fleet, e.g. FLEET_FLAGS='--converge-only --hostile'.
FLEET_FLAGS ?=
SEEDS ?= 5000
UNIT_PKGS = $(shell go list ./... | grep -v /scenarios)
# The envtest tests: the files tagged `integration`, their packages, and their tests by name.
# The integration tier runs only these; the other tests of those packages ran in test-unit and
# test-scenarios already.
INTEGRATION_FILES = $(shell grep -rl --include='*_test.go' '^//go:build integration' .)
INTEGRATION_PKGS = $(shell echo $(INTEGRATION_FILES) | xargs -r -n1 dirname | sort -u)
INTEGRATION_RUN = ^($(shell grep -ho '^func Test[A-Za-z0-9_]*' $(INTEGRATION_FILES) /dev/null | sed 's/^func //' | paste -sd'|' -))$$
# ./scenarios's envtest tests (TestOnEnvtest) drive the operator through the harness one
# reconcile at a time, as the scenario tier does on the fake backend (without -race there
# too): they run without -race, which halves their time. The manager's own tests, with their
# concurrent workers, keep -race.

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make \033[36m<target>\033[0m\n"} \
		/^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } \
		/^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Run

.PHONY: demo
demo: ## Run the operator's main job in the simulated world (no cluster needed).
	go run ./cmd/flinksim demo --timeline flinksim-timeline.html

.PHONY: autoscale-demo
autoscale-demo: ## Run a day of a sine-shaped input under the autoscaler and chart it (flinksim-autoscale.html).
	go run ./cmd/flinksim autoscale --out flinksim-autoscale.html

.PHONY: sandbox
sandbox: envtest-assets ## Run the operator + pod simulator + fakeflink on a real kube-apiserver; kubectl works against it.
	go run ./cmd/flinksim sandbox --kubeconfig flinksim.kubeconfig

##@ Development

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate deepcopy code for the API types.
	$(CONTROLLER_GEN) object paths=./operator/api/...

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate CRDs (config/crd/bases), RBAC (config/rbac) and the webhook configuration (config/webhook) from the Go markers.
	$(CONTROLLER_GEN) crd:allowDangerousTypes=true,generateEmbeddedObjectMeta=true rbac:roleName=flinkop-manager webhook \
		paths=./operator/... output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac \
		output:webhook:artifacts:config=config/webhook
	go run ./hack/crdtrim config/crd/bases/*.yaml
	cp config/crd/bases/*.yaml charts/flinkop/crds/
	cp config/rbac/role.yaml charts/flinkop/files/role.yaml
	cp config/webhook/manifests.yaml charts/flinkop/files/webhook.yaml

.PHONY: fmt
fmt: $(GOLANGCI_LINT) ## Format the code (gofumpt + gci).
	$(GOLANGCI_LINT) fmt

.PHONY: vet
vet: ## Run go vet, with and without the integration and e2e build tags.
	go vet ./...
	go vet -tags integration ./...
	go vet -tags e2e ./harness/e2e/

.PHONY: lint
lint: $(GOLANGCI_LINT) $(DEADCODE) ## Run golangci-lint (config in .golangci.yml), and deadcode: no function that no main and no test (any build tag) reaches.
	$(GOLANGCI_LINT) run ./...
	$(GOLANGCI_LINT) run --build-tags integration ./...
	$(GOLANGCI_LINT) run --build-tags e2e ./harness/e2e/
	@dead="$$($(DEADCODE) -test -tags 'integration e2e' ./...)"; if [ -n "$$dead" ]; then \
		echo "lint: unreachable code (delete it, or reach it from a main or a test):"; echo "$$dead"; exit 1; fi

.PHONY: verify
verify: generate manifests helm-check ## Regenerate, tidy, check the chart, and fail if anything changed or is untracked.
	go mod tidy
	@if [ -n "$$(git status --porcelain)" ]; then \
		echo "verify: generated files or go.mod are out of date (commit the result of 'make generate manifests' and 'go mod tidy'):"; \
		git status --porcelain; git --no-pager diff --stat; exit 1; fi

.PHONY: helm-check
helm-check: $(HELM) ## Lint the Helm chart and render it cluster-wide and for watched namespaces.
	$(HELM) lint --strict charts/flinkop
	$(HELM) lint --strict charts/flinkop --set 'watchNamespaces={flink,jobs}' --set tls.create=true --set metrics.serviceMonitor.create=true --set jarCredentials.enabled=true --set grafanaDashboard.create=true
	$(HELM) template flinkop charts/flinkop -n flinkop-system > /dev/null
	$(HELM) template flinkop charts/flinkop -n flinkop-system --set 'watchNamespaces={flink,jobs}' --set tls.create=true > /dev/null
	$(HELM) template flinkop charts/flinkop -n flinkop-system --set webhook.certManager.enabled=true > /dev/null
	$(HELM) template flinkop charts/flinkop -n flinkop-system --set webhook.create=false > /dev/null

##@ Testing

.PHONY: test
test: test-unit test-scenarios test-integration ## Run every test: unit, the scenario sweep and envtest.

.PHONY: test-unit
test-unit: ## Run the unit tests with -race (no API server needed).
	go test $(GO_TEST_FLAGS) -v $(UNIT_PKGS) 2>&1 | hack/test-summary.sh unit

.PHONY: test-scenarios
test-scenarios: ## Run the property-based scenarios (SCENARIO_CHECKS random runs each, HOSTILE_CHECKS of the hostile-input one; fake backend).
	go test -count=1 -timeout 30m -v ./scenarios/ -skip 'TestHostileInput$$' -rapid.checks=$(SCENARIO_CHECKS) -rapid.steps=50 -rapid.seed=$(SCENARIO_SEED) 2>&1 | hack/test-summary.sh scenarios
	go test -count=1 -timeout 30m -v ./scenarios/ -run 'TestHostileInput$$' -rapid.checks=$(HOSTILE_CHECKS) -rapid.steps=50 -rapid.seed=$(SCENARIO_SEED) 2>&1 | hack/test-summary.sh hostile

.PHONY: sim
sim: ## Run a long property sweep in parallel workers and print a summary: make sim SEEDS=5000.
	go run ./cmd/flinksim sweep --seeds $(SEEDS) --base-seed $$(date +%s)
	go test -count=1 ./harness/autoscale/ -run 'TestAutoscalerProperties$$' -rapid.checks=$(SEEDS)
	go test -count=1 -timeout 30m ./scenarios/ -run 'TestScriptsSurviveACrashAfterEveryWrite$$' -crash-stride=1

.PHONY: test-integration
test-integration: envtest-assets $(HELM) ## Run the envtest tests against a real kube-apiserver and etcd.
	FLINKOP_HELM=$(HELM) go test $(GO_TEST_FLAGS) -tags integration -v -run '$(INTEGRATION_RUN)' $(filter-out ./scenarios,$(INTEGRATION_PKGS)) 2>&1 | hack/test-summary.sh integration
	go test -count=1 -timeout 30m -tags integration -v -run '$(INTEGRATION_RUN)' ./scenarios/ 2>&1 | hack/test-summary.sh integration-scenarios

.PHONY: envtest-assets
envtest-assets: ## Put kube-apiserver (built from the Go module proxy) and etcd into ./bin/k8s.
	hack/envtest-assets.sh

##@ Build

.PHONY: build
build: ## Build the binaries into ./bin (flink-operator, fakeflink).
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o $(LOCALBIN)/flink-operator ./cmd/flink-operator
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o $(LOCALBIN)/fakeflink ./cmd/fakeflink

.PHONY: docker-up
docker-up: ## Make a Docker engine answer for kind (installs and starts Debian's docker.io when none does).
	hack/docker-up.sh

.PHONY: kind-node-image
kind-node-image: envtest-assets docker-up ## Build the offline kind node image kindest/node:v1.37.0-flinkop (cached under bin/kind).
	hack/kind-node-image.sh

.PHONY: operator-image
operator-image: ## Build the operator container image flinkop/flink-operator:dev (needs a Docker engine: make docker-up).
	mkdir -p $(LOCALBIN)/operator-image
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o $(LOCALBIN)/operator-image/flink-operator ./cmd/flink-operator
	test -s /etc/ssl/certs/ca-certificates.crt || (apt-get update -qq && apt-get install -y -qq ca-certificates >/dev/null)
	cp /etc/ssl/certs/ca-certificates.crt $(LOCALBIN)/operator-image/ca-certificates.crt
	docker build -f cmd/flink-operator/Dockerfile -t flinkop/flink-operator:dev $(LOCALBIN)/operator-image

.PHONY: fakeflink-image
fakeflink-image: ## Build the fakeflink container image (needs a Docker engine: make docker-up).
	mkdir -p $(LOCALBIN)/image
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o $(LOCALBIN)/image/fakeflink ./cmd/fakeflink
	docker build -f cmd/fakeflink/Dockerfile -t flinkop/fakeflink:dev $(LOCALBIN)/image

.PHONY: e2e
e2e: kind-node-image operator-image fakeflink-image $(HELM) ## Run the end-to-end tests on a kind cluster (offline; creates flinkop-e2e, or reuses it; installs the Helm chart).
	FLINKOP_HELM=$(HELM) go test -tags e2e -count=1 -timeout 40m -v ./harness/e2e/ 2>&1 | hack/test-summary.sh e2e

.PHONY: bench
bench: ## Run the benchmarks (scenario runs per minute, per-reconcile cost, fakeflink speed).
	go test -run '^$$' -bench . -benchmem ./...

.PHONY: bench-fleet
bench-fleet: envtest-assets ## Measure the operator (its own process) on a fleet on a real kube-apiserver: make bench-fleet FLEET=1000 SLOW=5.
	go build -o $(LOCALBIN)/flink-operator ./cmd/flink-operator
	go run ./cmd/flinksim fleet --n $(FLEET) --slow $(SLOW) --operator-binary $(LOCALBIN)/flink-operator $(FLEET_FLAGS)

##@ Tools

$(CONTROLLER_GEN):
	GOBIN=$(LOCALBIN) go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)
	mv $(LOCALBIN)/controller-gen $@

$(HELM):
	mkdir -p $(LOCALBIN)/helm-build
	GOBIN=$(LOCALBIN)/helm-build GOFLAGS= go install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)
	mv $(LOCALBIN)/helm-build/helm $(HELM)

$(DEADCODE):
	GOBIN=$(LOCALBIN) go install golang.org/x/tools/cmd/deadcode@$(DEADCODE_VERSION)
	mv $(LOCALBIN)/deadcode $@

$(GOLANGCI_LINT):
	GOBIN=$(LOCALBIN) go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(LOCALBIN)/golangci-lint $@
