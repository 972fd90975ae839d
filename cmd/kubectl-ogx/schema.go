package main

import (
	"github.com/ogx-k8s/ogx-controller/config/crd"
	"github.com/ogx-k8s/ogx-controller/pkg/crdvalidate"
)

// crdSchema is the structural schema of version of the CRD called name
// (plural.group) in config/crd, as the API server builds it.
func crdSchema(name, version string) (*crdvalidate.Schema, error) {
	def, err := crd.Definition(name)
	if err != nil {
		return nil, err
	}
	return crdvalidate.NewSchema(def, version)
}

// messages formats unknown fields as error messages.
func messages(fields []crdvalidate.UnknownField) []string {
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		out = append(out, f.String())
	}
	return out
}
