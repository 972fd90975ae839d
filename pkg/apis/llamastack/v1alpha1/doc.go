// Package v1alpha1 holds the legacy LlamaStackDistribution API (group
// llamastack.io, version v1alpha1) of the llama-stack operator.
//
// ogx-controller never watches or writes these objects. The types exist so
// that `kubectl ogx migrate` can read legacy manifests and so that the
// controller can recognise legacy owner references while adopting storage and
// networking. The schema keeps the legacy operator's gaps (few bounds) on
// purpose, so that every manifest it accepted is accepted here unchanged.
//
// +k8s:deepcopy-gen=package
// +groupName=llamastack.io
package v1alpha1
