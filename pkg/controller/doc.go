// Package controller is ogx-controller's manager: it builds the shared
// dependencies (base.Deps), one controller per child kind (each a package
// of its own: configmap, pvc, service, networkpolicy, deployment, hpa, pdb,
// ingress, monitoring) and the status controller, wires informer events to
// their queues, and runs their workers while the replica leads.
//
// Every controller follows the shape of kubernetes/sample-controller: a
// constructor taking the shared dependencies, a worker loop
// (worker.Runner.Run(ctx, workers, grace)), and a sync(ctx, key) that reads
// from listers, computes the desired state with the pure functions of
// package render, applies the difference (package apply) and returns an
// error to be retried with backoff. Data flows one way: informer event, key,
// resolved inputs, render, apply (skipped when nothing changed), outcome,
// status.
package controller
