package framework

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
)

// logTailLines is how much of each component's log RunMain prints after a
// failure: enough to show a crash or the errors around it without burying
// the test output.
const logTailLines = 60

// RunMain is the body of a test package's TestMain. It starts one control
// plane for the whole package, because start-up takes seconds and tests can
// share it by working in their own namespaces. It hands the control plane to
// setup (which typically stores it in a package variable and may install
// CRDs), runs the tests, prints the end of every component log if a test
// failed, stops the control plane and returns the exit code:
//
//	var cp *framework.ControlPlane
//
//	func TestMain(m *testing.M) {
//		os.Exit(framework.RunMain(m, framework.Options{Full: true}, func(c *framework.ControlPlane) error {
//			cp = c
//			return nil
//		}))
//	}
//
// Start-up and setup failures are reported on stderr with exit code 1; the
// tests do not run. With -v it also reports the start-up times.
func RunMain(m *testing.M, opts Options, setup func(*ControlPlane) error) int {
	// testing.Verbose needs parsed flags; m.Run does not parse them again.
	flag.Parse()

	// Each wait inside Start is bounded by ReadyTimeout; this only caps the
	// sum (etcd, apiserver, nodes) should several be slow.
	ctx, cancel := context.WithTimeout(context.Background(), 3*opts.withDefaults().ReadyTimeout)
	cp, err := Start(ctx, opts)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "framework: starting control plane: %v\n", err)
		return 1
	}
	defer func() {
		if err := cp.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "framework: stopping control plane: %v\n", err)
		}
	}()
	if testing.Verbose() {
		times := cp.StartupTimes()
		fmt.Fprintf(os.Stderr, "framework: control plane in %s ready: apiserver after %s", cp.Dir(), times.APIServerReady)
		if cp.Full() {
			fmt.Fprintf(os.Stderr, ", nodes after %s", times.NodesReady)
		}
		fmt.Fprintln(os.Stderr)
	}

	if setup != nil {
		if err := setup(cp); err != nil {
			fmt.Fprintf(os.Stderr, "framework: test setup: %v\n", err)
			cp.DumpLogs(os.Stderr, logTailLines)
			return 1
		}
	}
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "framework: tests failed; component logs follow\n")
		cp.DumpLogs(os.Stderr, logTailLines)
	}
	return code
}
