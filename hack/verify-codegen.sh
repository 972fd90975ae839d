#!/usr/bin/env bash
# Fails when the committed generated code or CRD YAML differs from what
# hack/update-codegen.sh produces: it regenerates in a temporary copy of the
# tree and compares.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "${TMP}"' EXIT

# Copy the tracked and untracked (not ignored) files, nothing else.
(cd "${ROOT}" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "${TMP}" 2>/dev/null || true)
GOBIN_DIR="${ROOT}/bin" "${TMP}/hack/update-codegen.sh"

status=0
for path in pkg/generated pkg/apis config/crd/bases; do
  if ! diff -ruN "${ROOT}/${path}" "${TMP}/${path}"; then
    status=1
  fi
done
if [ "${status}" -ne 0 ]; then
  echo "Generated files are out of date: run hack/update-codegen.sh (make codegen) and commit the result." >&2
fi
exit "${status}"
