// Package caches holds the informer caches every controller reads and the
// mapping of their events to OGXServer keys: one Scope per watched namespace,
// one factory per label filter, transforms that trim what is kept
// (childview.go, transforms.go, intern.go) (docs/architecture.md, Caches, and
// What wakes each controller).
package caches
