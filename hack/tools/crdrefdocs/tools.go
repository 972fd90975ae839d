//go:build tools

// Package crdrefdocs pins crd-ref-docs, which writes docs/api-reference.md
// (make api-reference). It is a module of its own, not part of hack/tools,
// so that changing its pin does not make the kustomize that hack/tools
// builds look out of date, and so that crd-ref-docs gets the
// controller-tools it was released with rather than the newer one that
// hack/tools pins for controller-gen.
package crdrefdocs

import _ "github.com/elastic/crd-ref-docs"
