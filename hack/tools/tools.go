//go:build tools

// Package tools pins the code-generation and release programs so that the
// product's go.mod stays free of them.
package tools

import (
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
	_ "sigs.k8s.io/kustomize/kustomize/v5"
)
