# ogx-controller build, code generation and tests.
#
# The control-plane programs the integration tests run (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, kwok) are built from the pinned
# module in test/tools into bin/. The first build takes about 15 minutes on
# 2 cores; afterwards the targets are up to date and cost nothing.

SHELL := /usr/bin/env bash
BIN := $(CURDIR)/bin
GO ?= go
export OGX_TEST_ASSETS ?= $(BIN)

K8S_VERSION := v1.37.2
## VERSION is the release, read from the file VERSION (its one source). Every
## install path names the image tag v$(VERSION) (config/manager, the release
## file, the chart's version, appVersion and image.tag, the bundle), and the
## binaries report it (--version, user agent, ogx_controller_build_info).
## make release VERSION=x.y.z changes it everywhere; config/versions_test.go
## and make verify fail when one place names another (or :latest).
VERSION ?= $(shell cat $(CURDIR)/VERSION)
GO_LDFLAGS := -X main.version=v$(VERSION)
K8S_LDFLAGS := -X k8s.io/component-base/version.gitVersion=$(K8S_VERSION) \
	-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37
TOOLS_DEPS := test/tools/go.mod test/tools/go.sum
CONTROL_PLANE := $(BIN)/etcd $(BIN)/kube-apiserver $(BIN)/kube-controller-manager \
	$(BIN)/kube-scheduler $(BIN)/kwok $(BIN)/kwok-stages.yaml

.PHONY: all build test unit integration verify codegen tools clean run bench test-faults

all: build tools

build:
	$(GO) build ./...

## tools: the local control plane's programs, built once into bin/.
tools: $(CONTROL_PLANE)

$(BIN)/etcd: $(TOOLS_DEPS)
	cd test/tools && $(GO) build -o $@ go.etcd.io/etcd/server/v3
$(BIN)/kube-%: $(TOOLS_DEPS)
	cd test/tools && $(GO) build -ldflags "$(K8S_LDFLAGS)" -o $@ k8s.io/kubernetes/cmd/kube-$*
# kubectl runs kubectl-ogx as a plugin in test/e2e (plugin_test.go).
$(BIN)/kubectl: $(TOOLS_DEPS)
	cd test/tools && $(GO) build -ldflags "$(K8S_LDFLAGS)" -o $@ k8s.io/kubernetes/cmd/kubectl
$(BIN)/kwok: $(TOOLS_DEPS)
	cd test/tools && $(GO) build -o $@ sigs.k8s.io/kwok/cmd/kwok
# kwok refuses to start without stage definitions; its module ships them.
$(BIN)/kwok-stages.yaml: $(TOOLS_DEPS)
	@mkdir -p $(BIN)
	cd test/tools && d=$$($(GO) list -m -f '{{.Dir}}' sigs.k8s.io/kwok) && \
	  for f in $$d/kustomize/stage/node/fast/*.yaml $$d/kustomize/stage/node/heartbeat/*.yaml $$d/kustomize/stage/pod/fast/*.yaml; do \
	    case $$f in */kustomization.yaml) continue;; esac; echo '---'; cat $$f; done > $@.tmp && mv $@.tmp $@

## test: unit and integration tests (builds the control plane first if needed).
test: tools $(BIN)/ogx-controller $(BIN)/kubectl $(BIN)/kubectl-ogx
	$(GO) test ./... -count=1 -timeout 30m
	$(MAKE) test-chart
	$(MAKE) test-image
	$(MAKE) test-bundle-e2e
	cd test/monitoring && OGX_CONTROLLER_BIN=$(BIN)/ogx-controller $(GO) test ./... -count=1 -timeout 15m

unit:
	$(GO) test ./pkg/... ./cmd/... -count=1

## fuzz: every fuzz target of the repository (each "func FuzzX" in a
## _test.go file, found anew on every run), one after another, FUZZTIME each
## (default 10m). A failing target does not stop the others; the target fails
## at the end if any did. Go keeps each failing input under the package's
## testdata/fuzz/FuzzX/, where it becomes a regression case of go test.
## FUZZFLAGS adds go test flags, e.g. make fuzz FUZZTIME=30s FUZZFLAGS=-parallel=1.
FUZZTIME ?= 10m
FUZZFLAGS ?=
.PHONY: fuzz
fuzz:
	@targets=$$(grep -rE --include='*_test.go' --exclude-dir=.git --exclude-dir=bin -o '^func Fuzz[A-Za-z0-9_]*' . \
	  | sed -E 's|^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)$$|\1 \2|' | sort -u); \
	if [ -z "$$targets" ]; then echo "no fuzz targets found" >&2; exit 1; fi; \
	failed=; \
	while read -r dir name; do \
	  echo "== $$dir $$name ($(FUZZTIME))"; \
	  (cd "$$dir" && $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) . </dev/null) || failed="$$failed $$dir:$$name"; \
	done <<< "$$targets"; \
	if [ -n "$$failed" ]; then echo "fuzz targets failed:$$failed" >&2; exit 1; fi

## verify: generated code and CRDs are current, the code is formatted and
## vetted, and packages import downward only (test/layering).
verify: verify-version verify-release verify-overlays verify-bundle verify-api-reference verify-chart verify-monitoring verify-controller-deps verify-image
	hack/verify-codegen.sh
	$(GO) test ./test/layering/ -count=1
	@bad=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^pkg/generated/')); \
	  if [ -n "$$bad" ]; then echo "gofmt needed: $$bad"; exit 1; fi
	$(GO) vet ./...

## verify-controller-deps: the controller binary links none of the API
## server's schema machinery (structural schemas, CEL, pruning: package
## k8s.io/apiextensions-apiserver/pkg/apiserver/...). Only the offline
## commands of kubectl-ogx (render --validate, migrate) need it; every
## controller replica would otherwise carry it (docs/cli.md).
.PHONY: verify-controller-deps
verify-controller-deps:
	@bad=$$($(GO) list -deps ./cmd/ogx-controller | grep apiextensions-apiserver/pkg/apiserver); \
	  if [ -n "$$bad" ]; then echo "cmd/ogx-controller depends on the API server's schema packages (keep them in cmd/kubectl-ogx):" >&2; echo "$$bad" >&2; exit 1; fi

codegen:
	hack/update-codegen.sh
	$(MAKE) chart-crds

clean:
	rm -rf $(BIN)

## run: with KUBECONFIG unset, start a local control plane (hack/localcluster),
## run ogx-controller against it, apply config/samples/ogx_v1beta1_ogxserver.yaml
## and wait until it is Ready; Ctrl-C stops everything. With KUBECONFIG set,
## run ogx-controller against that cluster (install the CRDs there first).
## ARGS adds ogx-controller flags, e.g. make run ARGS=-v=4.
# The control-plane programs are only needed for the local cluster.
RUN_DEPS := $(BIN)/ogx-controller $(if $(KUBECONFIG),,tools $(BIN)/localcluster)
run: $(RUN_DEPS)
	@if [ -n "$$KUBECONFIG" ]; then \
	  echo "Running ogx-controller against KUBECONFIG=$$KUBECONFIG. Install the CRDs there first:"; \
	  echo "  kubectl apply --server-side -f config/crd/bases/ogx.io_ogxservers.yaml"; \
	  exec $(BIN)/ogx-controller run --kubeconfig="$$KUBECONFIG" --leader-elect=false \
	    --operator-namespace="$${OPERATOR_NAMESPACE:-ogx-system}" \
	    --admission-bind-address=0 --metrics-bind-address=0 $(ARGS); \
	else \
	  exec $(BIN)/localcluster -- $(ARGS); \
	fi

## bench: measure ogx-controller at fleet scale on the local control plane
## (test/bench; see docs/performance.md): N OGXServers (N ?= 1000) against a
## raw-API baseline, the operator's requests and memory; prints one table.
## BENCH_ARGS adds flags, e.g. make bench N=50 BENCH_ARGS="-probe refuse".
## Not part of make test.
N ?= 1000
BENCH_ARGS ?=
bench: tools $(BIN)/ogx-controller
	$(GO) run ./test/bench -n $(N) -controller $(BIN)/ogx-controller $(BENCH_ARGS)

# Go decides what is stale, so these always run go build, which is quick when
# nothing changed.
$(BIN)/ogx-controller: FORCE
	$(GO) build -ldflags "$(GO_LDFLAGS)" -o $@ ./cmd/ogx-controller
# The kubectl plugin (docs/cli.md): render, migrate, status. On PATH,
# kubectl runs it for kubectl ogx. Same version stamp as the controller.
$(BIN)/kubectl-ogx: FORCE
	$(GO) build -ldflags "$(GO_LDFLAGS)" -o $@ ./cmd/kubectl-ogx
$(BIN)/localcluster: FORCE
	$(GO) build -o $@ ./hack/localcluster

# Short and relative names for the files in bin/: make ogx-controller,
# make kwok-stages, make bin/kwok-stages.yaml.
.PHONY: ogx-controller kubectl-ogx kubectl localcluster kwok-stages FORCE
ogx-controller: $(BIN)/ogx-controller
kubectl-ogx: $(BIN)/kubectl-ogx
kubectl: $(BIN)/kubectl
localcluster: $(BIN)/localcluster
kwok-stages: $(BIN)/kwok-stages.yaml
BIN_FILES := etcd kube-apiserver kube-controller-manager kube-scheduler kwok kwok-stages.yaml ogx-controller kubectl-ogx kubectl localcluster
$(addprefix bin/,$(BIN_FILES)): bin/%: $(BIN)/%
	@:
FORCE:

## release: stamp VERSION into every install path (hack/release: the file
## VERSION, config/manager, the chart; it refuses a version CHANGELOG.md has
## no section for), then regenerate from them the single-file install
## release/ogx-controller.yaml (config/default, with the kustomize pinned in
## hack/tools), the OLM bundle and the chart's CRDs. Without VERSION= on the
## command line it regenerates the current release.
KUSTOMIZE := $(BIN)/kustomize
$(KUSTOMIZE): hack/tools/go.mod hack/tools/go.sum
	cd hack/tools && $(GO) build -o $@ sigs.k8s.io/kustomize/kustomize/v5
.PHONY: release release-manifest verify-release verify-version
release:
	$(GO) run ./hack/release -version $(VERSION)
	$(MAKE) release-manifest bundle chart-crds
release-manifest: $(KUSTOMIZE)
	@mkdir -p release
	{ echo "# Generated by 'make release' from config/default; do not edit."; \
	  echo "# Install: kubectl apply --server-side -f release/ogx-controller.yaml"; \
	  $(KUSTOMIZE) build config/default; } > release/ogx-controller.yaml
## verify-release: fails when release/ogx-controller.yaml is stale.
verify-release: $(KUSTOMIZE)
	@tmp=$$(mktemp); { echo "# Generated by 'make release' from config/default; do not edit."; \
	  echo "# Install: kubectl apply --server-side -f release/ogx-controller.yaml"; \
	  $(KUSTOMIZE) build config/default; } > $$tmp; \
	  if ! diff -u release/ogx-controller.yaml $$tmp; then echo "release/ogx-controller.yaml is stale: run make release" >&2; rm -f $$tmp; exit 1; fi; rm -f $$tmp

## verify-version: the binary built with the Makefile's flags reports
## v$(VERSION); config/versions_test.go checks the files (make test).
verify-version: $(BIN)/ogx-controller
	@got=$$($(BIN)/ogx-controller --version); if [ "$$got" != "v$(VERSION)" ]; then \
	  echo "bin/ogx-controller --version prints $$got, want v$(VERSION) (the file VERSION)" >&2; exit 1; fi
	$(GO) test ./config/ -run 'TestInstallPathsNameTheRelease|TestVersion' -count=1

## docker-build: the image, for those with a Docker engine (none runs on
## the project's machines: make image builds the same image without one).
IMG ?= ghcr.io/ogx-k8s/ogx-controller:v$(VERSION)
.PHONY: docker-build
docker-build:
	docker build --build-arg VERSION=v$(VERSION) -t $(IMG) .

## image: the same image without a container engine (hack/image, a module of
## its own): ogx-controller cross-compiled for linux/amd64 and linux/arm64 on
## a base of /etc/passwd, /etc/group and CA certificates, as a multi-arch OCI
## image layout in $(IMAGE_LAYOUT) named $(IMG). Offline and reproducible:
## every timestamp is SOURCE_DATE_EPOCH (the last commit's time), so the
## same source gives the same digest. docs/operations.md, Building the image.
## image-push: make image, then push the layout to IMAGE (default $(IMG))
## with the credentials of docker login or credential helpers; or copy
## _output/image with skopeo (oci:_output/image:$(IMG)) or crane push.
IMAGE_LAYOUT := $(CURDIR)/_output/image
IMAGE ?= $(IMG)
.PHONY: image image-push test-image verify-image
image:
	cd hack/image && SOURCE_DATE_EPOCH=$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || echo 0)} \
	  $(GO) run . build -root $(CURDIR) -out $(IMAGE_LAYOUT) -ref $(IMG) -version $(VERSION) \
	  -binary-version v$(VERSION) \
	  -revision $$(git rev-parse HEAD 2>/dev/null || echo unknown) -go $(GO)
image-push: image
	cd hack/image && $(GO) run . push -layout $(IMAGE_LAYOUT) -image $(IMAGE)
## test-image: build the image into a temporary layout and check its
## platforms, user, entrypoint, files and binaries, that two builds are
## identical, and a push to an in-process registry (part of make test).
test-image:
	cd hack/image && $(GO) vet ./... && $(GO) test ./... -count=1 -timeout 20m
## verify-image: hack/image is vetted and tidy and the Dockerfile's final
## stage agrees with it (user, entrypoint, paths, build flags).
verify-image:
	cd hack/image && $(GO) vet ./... && $(GO) test ./... -run Dockerfile -count=1
	@bad=$$(cd hack/image && $(GO) mod tidy -diff 2>&1) || { echo "hack/image/go.mod is not tidy: $$bad" >&2; exit 1; }

## verify-monitoring: config/monitoring (the operator's ServiceMonitor,
## alerting rules and Grafana dashboard) is consistent: every PromQL
## expression parses, the rules load as Prometheus loads them, the
## ServiceMonitor matches the metrics Service and its scraper token, and
## every alert has its runbook in docs/operations-monitoring.md. Its own Go
## module (test/monitoring) keeps the Prometheus libraries out of go.mod.
.PHONY: verify-monitoring test-monitoring
verify-monitoring:
	cd test/monitoring && $(GO) vet ./... && $(GO) test . -count=1
	@bad=$$(cd test/monitoring && $(GO) mod tidy -diff 2>&1) || { echo "test/monitoring/go.mod is not tidy: $$bad" >&2; exit 1; }

## test-monitoring: run the real binary on the local control plane and check
## that every series the dashboard and the alerts select is exported
## (test/monitoring/live). Not part of make test: it needs bin/ogx-controller.
test-monitoring: tools $(BIN)/ogx-controller
	cd test/monitoring && OGX_CONTROLLER_BIN=$(BIN)/ogx-controller $(GO) test ./... -count=1 -timeout 15m
## verify-overlays: the optional overlays (cert-manager, OpenShift) render.
.PHONY: verify-overlays
verify-overlays: $(KUSTOMIZE)
	@for o in config/overlays/*/; do $(KUSTOMIZE) build $$o > /dev/null || { echo "overlay $$o does not build" >&2; exit 1; }; done

## bundle: the OLM bundle in bundle/ (hack/bundle), made from
## release/ogx-controller.yaml, config/crd/bases and config/samples.
## bundle.Dockerfile packages it; test/bundle validates it with OLM's library.
BUNDLE_VERSION ?= $(VERSION)
BUNDLE_CHANNEL ?= alpha
BUNDLE_ARGS = -release release/ogx-controller.yaml -crds config/crd/bases -samples config/samples -changelog CHANGELOG.md \
	-version $(BUNDLE_VERSION) -channel $(BUNDLE_CHANNEL)
.PHONY: bundle verify-bundle test-bundle test-bundle-e2e
bundle:
	$(GO) run ./hack/bundle $(BUNDLE_ARGS) -out bundle
## verify-bundle: fails when bundle/ is stale or OLM's validators (with the
## catalog's rules) reject it.
verify-bundle: test-bundle
	@tmp=$$(mktemp -d); $(GO) run ./hack/bundle $(BUNDLE_ARGS) -out $$tmp && \
	  if ! diff -ru bundle $$tmp; then echo "bundle/ is stale: run make bundle" >&2; rm -rf $$tmp; exit 1; fi; rm -rf $$tmp
## test-bundle: OLM's own validation of bundle/ (a separate module, test/bundle).
test-bundle:
	cd test/bundle && $(GO) test ./... -count=1
## test-bundle-e2e: the bundle installed as OLM would on the local control
## plane, with the real operator under the CSV's RBAC (test/bundle/e2e, a
## module of its own; part of make test). docs/operations.md, OLM, says
## what it proves and what it does not.
test-bundle-e2e: tools
	cd test/bundle/e2e && $(GO) vet ./... && $(GO) test ./... -count=1 -timeout 15m

## api-reference: docs/api-reference.md from the API types in pkg/apis, by
## crd-ref-docs (pinned in hack/tools/crdrefdocs, a module of its own) with the
## configuration and templates in hack/api-reference.
CRD_REF_DOCS := $(BIN)/crd-ref-docs
$(CRD_REF_DOCS): hack/tools/crdrefdocs/go.mod hack/tools/crdrefdocs/go.sum
	cd hack/tools/crdrefdocs && $(GO) build -o $@ github.com/elastic/crd-ref-docs
# api-reference-to writes the reference to the file $(1). crd-ref-docs only
# warns, and exits 0, when it leaves a type out (for example at --max-depth),
# so any warning fails the target.
define api-reference-to
log=$$($(CRD_REF_DOCS) $(API_REF_ARGS) --output-path=$(1) 2>&1) && [ -z "$$log" ] || { echo "$$log" >&2; echo "crd-ref-docs failed or warned" >&2; exit 1; }
endef
API_REF_ARGS := --source-path=pkg/apis --config=hack/api-reference/config.yaml --renderer=markdown \
	--templates-dir=hack/api-reference/templates --max-depth=30 --log-level=WARN
.PHONY: api-reference verify-api-reference
api-reference: $(CRD_REF_DOCS)
	@$(call api-reference-to,docs/api-reference.md)
## verify-api-reference: fails when docs/api-reference.md is stale or the
## tool's module (hack/tools/crdrefdocs) is not tidy.
verify-api-reference: $(CRD_REF_DOCS)
	@tmp=$$(mktemp); trap 'rm -f $$tmp' EXIT; $(call api-reference-to,$$tmp); \
	  if ! diff -u docs/api-reference.md $$tmp; then echo "docs/api-reference.md is stale: run make api-reference" >&2; exit 1; fi
	@bad=$$(cd hack/tools/crdrefdocs && $(GO) mod tidy -diff 2>&1) || { echo "hack/tools/crdrefdocs/go.mod is not tidy: $$bad" >&2; exit 1; }

## Helm chart (charts/ogx-controller, docs/install-helm.md). Its tests live in
## the module test/chart so the product module does not depend on Helm.
CHART := charts/ogx-controller
CHART_CRDS := ogx.io_ogxservers.yaml
## CHART_FILES are the monitoring files the chart's metrics.prometheusRule
## and metrics.dashboard options read (.Files.Get) from its files/.
CHART_FILES := prometheusrule.yaml ogx-controller-dashboard.json
.PHONY: chart-crds verify-chart test-chart
## chart-crds: copy the CRDs the default install carries, and
## config/monitoring's rules and dashboard, into the chart.
chart-crds:
	@mkdir -p $(CHART)/crds $(CHART)/files
	cp $(addprefix config/crd/bases/,$(CHART_CRDS)) $(CHART)/crds/
	cp $(addprefix config/monitoring/,$(CHART_FILES)) $(CHART)/files/
## verify-chart: the chart's CRDs are byte-identical to config/crd/bases
## and its files/ to config/monitoring, the chart lints (strict), with
## default values renders exactly release/ogx-controller.yaml (but for
## Helm's own labels and the release namespace; docs/install-helm.md), in
## the cert-manager and OpenShift modes what config/overlays renders
## (kustomize) and with its monitoring options config/overlays/monitoring;
## values, schema and helm test hook tests run too.
verify-chart: $(KUSTOMIZE)
	@for f in $(CHART_CRDS); do \
	  cmp -s config/crd/bases/$$f $(CHART)/crds/$$f || { diff -u config/crd/bases/$$f $(CHART)/crds/$$f | head -20; \
	    echo "$(CHART)/crds/$$f differs from config/crd/bases: run make chart-crds" >&2; exit 1; }; done
	@extra=$$(ls $(CHART)/crds | grep -vxF $(addprefix -e ,$(CHART_CRDS))); \
	  if [ -n "$$extra" ]; then echo "$(CHART)/crds has files that config/crd/bases does not provide: $$extra" >&2; exit 1; fi
	@for f in $(CHART_FILES); do \
	  cmp -s config/monitoring/$$f $(CHART)/files/$$f || { diff -u config/monitoring/$$f $(CHART)/files/$$f | head -20; \
	    echo "$(CHART)/files/$$f differs from config/monitoring: run make chart-crds" >&2; exit 1; }; done
	@extra=$$(ls $(CHART)/files | grep -vxF $(addprefix -e ,$(CHART_FILES))); \
	  if [ -n "$$extra" ]; then echo "$(CHART)/files has files that config/monitoring does not provide: $$extra" >&2; exit 1; fi
	cd test/chart && $(GO) vet ./... && $(GO) test . -count=1
## test-faults: the fault-injection suite (test/faults; docs/faults.md) on the
## local control plane: two real ogx-controller replicas roll out FAULTS_N
## OGXServers (default 200) while the leader is killed, the apiserver or etcd
## restarts, API Priority and Fairness throttles the operator, or the cluster
## changes while no replica runs. FAULTS_IDLE (default 60s) is the idle
## window after a restart. Not part of make test (build tag faults).
test-faults: tools
	$(GO) test -tags faults ./test/faults/ -count=1 -v -timeout 60m

## test-chart: the chart's tests, including the end-to-end install on the
## local control plane (test/chart/e2e).
test-chart: tools $(KUSTOMIZE)
	cd test/chart && $(GO) test ./... -count=1 -timeout 20m
