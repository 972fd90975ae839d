package framework

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// ControllerProcess is a running ogx-controller binary started by
// StartController, for `make run` (hack/localcluster) and the benchmark
// (test/bench).
type ControllerProcess struct {
	p *process
}

// StartController runs bin with args, its output appended to logPath. It
// gets its own process group, so a Ctrl-C in the terminal reaches only the
// calling program, which then stops the controller before the control
// plane; and Pdeathsig, so it never outlives the caller.
func StartController(bin string, args []string, logPath string) (*ControllerProcess, error) {
	p, err := startProcess("ogx-controller", bin, args, logPath)
	if err != nil {
		return nil, err
	}
	return &ControllerProcess{p: p}, nil
}

// Pid is the controller's process id.
func (c *ControllerProcess) Pid() int { return c.p.cmd.Process.Pid }

// Exited reports whether the controller has terminated.
func (c *ControllerProcess) Exited() bool { return c.p.exited() }

// Stop sends SIGTERM, which ogx-controller answers with a graceful
// shutdown, and SIGKILL if it is still running after grace. A controller
// that had already exited is not an error here; callers report that
// separately. Unlike a control-plane component, a controller that exits
// with an error on SIGTERM, or has to be killed, is reported: its shutdown
// is part of what is tested.
func (c *ControllerProcess) Stop(grace time.Duration) error {
	if c.p.exited() {
		return nil
	}
	if err := c.p.stop(grace); err != nil {
		return err
	}
	if c.p.killed {
		return fmt.Errorf("ogx-controller did not stop within %s after SIGTERM and was killed", grace)
	}
	if c.p.waitErr != nil {
		return fmt.Errorf("ogx-controller exited with %v on shutdown; see %s", c.p.waitErr, c.p.logPath)
	}
	return nil
}

// DumpLog writes the last n lines of the controller's log to w.
func (c *ControllerProcess) DumpLog(w io.Writer, n int) {
	lines, err := tailLines(c.p.logPath, n)
	if err != nil {
		fmt.Fprintf(w, "(cannot read ogx-controller log: %v)\n", err)
		return
	}
	fmt.Fprintf(w, "===== last %d lines of %s =====\n%s\n", len(lines), c.p.logPath, strings.Join(lines, "\n"))
}

// Done is closed once the controller has exited.
func (c *ControllerProcess) Done() <-chan struct{} { return c.p.done }

// Err is how the controller exited; valid once Done is closed.
func (c *ControllerProcess) Err() error {
	<-c.p.done
	return c.p.waitErr
}
