// Package caches holds the informer caches every controller reads and the
// mapping of their events to OGXServer keys.
//
// A Scope is the informers of one namespace (or all), one factory per list
// filter: OGXServers, children (managed-by label), referenced ConfigMaps and
// Secrets (ogx.io/watch), adopted legacy objects and our pods. Transforms
// trim what is kept: child kinds become apply.CachedChild views
// (childview.go), pods a PodView, OGXServers and watched objects lose the
// managedFields nobody reads (transforms.go), and repeated strings and label
// maps are shared (intern.go). Sources and Watch say which informer's events
// start which controller's passes; MergeWatches gives each informer one
// handler so the applier observes an event before any controller it wakes
// (docs/architecture.md, What wakes each controller).
package caches
