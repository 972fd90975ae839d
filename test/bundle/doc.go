// Package bundle checks the OLM bundle in bundle/ (written by `make bundle`)
// with the Operator Framework's own bundle loader and validators
// (github.com/operator-framework/api, pkg/manifests and pkg/validation), plus
// what those do not check: that the CSV decodes strictly into OLM's types,
// that the bundle image's labels agree with its metadata, and that the
// Deployment is wired to what OLM provides (the webhook certificate mount
// and the OperatorGroup's namespaces).
//
// It is a separate module so the product's go.mod does not carry OLM. The
// module proxy this project uses serves v0.9.1 of the library as its latest
// version, so that is the version pinned: its validators predate some newer
// checks (for example of deprecated APIs per Kubernetes release), which is
// why the structural checks here go further.
//
// Run it with `make test-bundle` (cd test/bundle && go test ./...).
//
// Its install on the local control plane is test/bundle/e2e, a module of
// its own (see that package) run by `make test-bundle-e2e`.
package bundle
