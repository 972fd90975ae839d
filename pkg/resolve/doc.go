// Package resolve computes the render inputs of an OGXServer: the image, the
// runtime config (override, generated or none), the Secret, TLS and CA
// hashes, the CA bundle and the PVC name (docs/architecture.md, Data flow;
// docs/controllers.md, Inputs).
//
// The controllers and the offline `render` command resolve through the same
// Resolver, so the two cannot disagree about what a spec and its referenced
// objects mean. What differs is where the objects come from, which a Source
// answers: the controller's informer caches (with one live GET after a miss,
// docs/controllers.md, Referenced objects), or the objects of render's input
// files. A Partial resolver (render) tolerates references its source does
// not hold where docs/cli.md says so, and warns instead.
package resolve
