// Package v1beta1 holds the OGXServer API (group ogx.io, version v1beta1).
//
// The Go types are the source of truth for the CRD schema: controller-gen turns
// the kubebuilder markers below each field into the OpenAPI schema and the CEL
// rules (x-kubernetes-validations), and k8s.io/code-generator turns the same
// types into deep-copy functions, a typed clientset, listers, informers and
// apply configurations. The wire format (field names, defaults, bounds and the
// text of every CEL rule) is kept identical to the upstream ogx-k8s-operator so
// that manifests written for it decode into the same fields here.
//
// +k8s:deepcopy-gen=package
// +groupName=ogx.io
package v1beta1
