// Package e2e runs ogx-controller against a real local control plane with
// kube-controller-manager, kube-scheduler and kwok fake nodes, so
// Deployments roll out, pods become Ready and garbage collection happens.
// One control plane serves the package; each test works in its own
// namespace with its own controller instance watching only that namespace.
package e2e
