# The OLM bundle image of ogx-controller: bundle/manifests and
# bundle/metadata (written by `make bundle`) on an empty image. The labels
# repeat bundle/metadata/annotations.yaml, as OLM reads either;
# test/bundle fails when they disagree. Reviewed, not built, in CI (no
# Docker engine runs on the project's machines):
#
#   docker build -f bundle.Dockerfile -t ghcr.io/ogx-k8s/ogx-controller-bundle:v0.1.0 .
FROM scratch

LABEL operators.operatorframework.io.bundle.mediatype.v1=registry+v1
LABEL operators.operatorframework.io.bundle.manifests.v1=manifests/
LABEL operators.operatorframework.io.bundle.metadata.v1=metadata/
LABEL operators.operatorframework.io.bundle.package.v1=ogx-controller
LABEL operators.operatorframework.io.bundle.channels.v1=alpha
LABEL operators.operatorframework.io.bundle.channel.default.v1=alpha

COPY bundle/manifests /manifests/
COPY bundle/metadata /metadata/
