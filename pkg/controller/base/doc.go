// Package base is what every controller of ogx-controller is built from:
// the Options of a process and the Deps shared by its controllers (clients,
// caches, the per-server record and the stores kept in it), the pass every
// child controller runs (Controller: read the server from the cache,
// re-validate it, call the kind's reconcile, record the outcome), the
// outcome board the status controller reads, the resolver of a server's
// inputs, the appliers of each child kind (Children) and the adoption
// helpers the PVC, Service and Ingress controllers share.
//
// It knows no controller: each controller is a package of its own that
// imports base, and the manager (package controller) lists them.
package base
