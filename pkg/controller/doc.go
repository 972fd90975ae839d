// Package controller is ogx-controller's manager: it builds the shared
// dependencies (base.Deps), one controller per child kind and the status
// controller, wires informer events to their queues and runs their workers
// while the replica leads. Each controller has the shape of
// kubernetes/sample-controller: a worker.Runner calling sync(ctx, key), whose
// errors are retried with backoff (docs/architecture.md, The controllers).
package controller
