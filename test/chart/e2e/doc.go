// Package e2e takes the ogx-controller chart through a release's life with
// Helm's actions on the local control plane (test/framework) and runs the
// real ogx-controller binary with the chart's identity and flags;
// TestChartLifecycle says what that proves and what it cannot.
package e2e
