#!/usr/bin/env bash
# Regenerates everything derived from the API types in pkg/apis:
#   - deep-copy functions (zz_generated.deepcopy.go, k8s.io/code-generator)
#   - the typed clientset with its fake, listers, informers and apply
#     configurations under pkg/generated (k8s.io/code-generator)
#   - the CRD YAML under config/crd/bases (controller-gen, pinned in hack/tools)
# The code generators come from the version of k8s.io/code-generator in go.mod,
# found through the module cache, never from a relative checkout.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"
MODULE=github.com/ogx-k8s/ogx-controller
BOILERPLATE="${ROOT}/hack/boilerplate.go.txt"
GOBIN_DIR="${GOBIN_DIR:-${ROOT}/bin}"

# `go list -m` names no directory for a module not yet in the module cache
# (a fresh machine): download it first.
go mod download k8s.io/code-generator
CODEGEN_PKG=$(go list -m -f '{{.Dir}}' k8s.io/code-generator)
# shellcheck source=/dev/null
source "${CODEGEN_PKG}/kube_codegen.sh"

kube::codegen::gen_helpers \
  --boilerplate "${BOILERPLATE}" \
  "${ROOT}/pkg/apis"

kube::codegen::gen_client \
  --with-watch \
  --with-applyconfig \
  --output-dir "${ROOT}/pkg/generated" \
  --output-pkg "${MODULE}/pkg/generated" \
  --boilerplate "${BOILERPLATE}" \
  "${ROOT}/pkg/apis"

# controller-gen is built from its own pinned module so the product's go.mod
# stays clean.
mkdir -p "${GOBIN_DIR}"
(cd hack/tools && go build -o "${GOBIN_DIR}/controller-gen" sigs.k8s.io/controller-tools/cmd/controller-gen)
"${GOBIN_DIR}/controller-gen" crd \
  paths=./pkg/apis/... \
  output:crd:artifacts:config=config/crd/bases
