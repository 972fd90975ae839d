// Package e2e installs the rendered ogx-controller chart on the local
// control plane (test/framework) and runs the real ogx-controller binary
// with the chart's identity and flags; TestChartInstallsAndRuns says what
// that proves and what it cannot.
package e2e
