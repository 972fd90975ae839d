// Package lifecycle runs the commands docs/lifecycle.md gives an
// administrator, with the real kubectl (make bin/kubectl) on the local
// control plane, and checks that they do what the guide says. A guide whose
// command deletes more than it says, or whose test no longer runs the
// command it prints, fails here.
package lifecycle
