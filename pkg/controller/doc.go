// Package controller holds ogx-controller's workqueue controllers: one per
// kind of child object, each converging its own child of every OGXServer to
// the OGXServer's spec, and a status controller that reports what they found.
//
// Every controller follows the shape of kubernetes/sample-controller: a
// constructor taking informers and clients, a worker loop
// (worker.Runner.Run(ctx, workers, grace)), and a sync(ctx, key) that reads
// from listers, computes the desired state with the pure functions of
// package render, applies the difference (package apply) and returns an
// error to be retried with backoff. Data flows one way: informer event, key,
// resolved inputs, render, apply (skipped when nothing changed), outcome,
// status.
package controller
