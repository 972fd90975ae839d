// Package base is what every controller is built from: the Options and the
// Deps its controllers share, the pass every child controller runs
// (Controller), the outcome board status reads, the resolver of a server's
// inputs, the appliers of the shared child kinds (Children) and the
// adoption helpers. It knows no controller: each is a package of its own
// that imports base, and the manager (package controller) lists them.
package base
