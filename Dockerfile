# ogx-controller image: a static binary on a distroless, non-root base.
# No Docker engine runs on the project's machines; `make docker-build` is for
# those who have one. `make image` (hack/image) builds the same image without
# one; `make verify` fails when the final stage's USER, ENTRYPOINT or binary
# path, or the go build flags, differ from it.
FROM golang:1.26 AS build
WORKDIR /src
# Module downloads are cached in their own layer.
COPY go.mod go.sum ./
RUN go mod download
# The controller alone: the offline commands, which embed the CRDs
# (config/crd), are the kubectl plugin's (cmd/kubectl-ogx, docs/cli.md).
COPY cmd/ogx-controller/ cmd/ogx-controller/
COPY pkg/ pkg/
ARG VERSION=dev
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath \
    -ldflags "-s -w -X main.version=${VERSION}" \
    -o /out/ogx-controller ./cmd/ogx-controller

FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/ogx-controller /ogx-controller
# 65532 is distroless's nonroot user; the binary needs nothing writable.
USER 65532:65532
ENTRYPOINT ["/ogx-controller"]
