// Package e2e installs the OLM bundle in bundle/ on the local control plane
// (test/framework) the way OLM would, without OLM, and runs the real
// ogx-controller binary as the CSV's Deployment would run it;
// TestBundleInstallsAndRuns says what that proves and what it cannot.
//
// It is its own module, not part of test/bundle's: that module pins
// github.com/operator-framework/api v0.9.1, whose Kubernetes v0.20
// dependencies cannot be built together with the v0.37 ones the product and
// test/framework need. So this package reads the CSV with the Kubernetes
// types of the fields it uses (csv_test.go), and the strict decoding into
// OLM's own types stays in test/bundle.
//
// Run it with `make test-bundle-e2e`.
package e2e
