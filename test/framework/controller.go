package framework

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// ControllerProcess is a running ogx-controller binary started by
// StartController, for `make run` (hack/localcluster) and the benchmark
// (test/bench).
type ControllerProcess struct {
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed once the process has been reaped
	waitErr error         // read only after done is closed
}

// StartController runs bin with args, its output appended to logPath. It
// gets its own process group, so a Ctrl-C in the terminal reaches only the
// calling program, which then stops the controller before the control
// plane; and Pdeathsig, so it never outlives the caller.
func StartController(bin string, args []string, logPath string) (*ControllerProcess, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening ogx-controller log: %w", err)
	}
	defer logFile.Close() // the child has its own descriptor
	fmt.Fprintf(logFile, "=== %s %s %s\n", time.Now().Format(time.RFC3339Nano), bin, strings.Join(args, " "))

	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &ControllerProcess{cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Pid is the controller's process id.
func (p *ControllerProcess) Pid() int { return p.cmd.Process.Pid }

// Exited reports whether the controller has terminated.
func (p *ControllerProcess) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM, which ogx-controller answers with a graceful
// shutdown, and SIGKILL if it is still running after grace. A controller
// that had already exited is not an error here; callers report that
// separately.
func (p *ControllerProcess) Stop(grace time.Duration) error {
	if p.Exited() {
		return nil
	}
	if err := signalGroup(p.cmd.Process.Pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stopping ogx-controller: %w", err)
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.done:
		if p.waitErr != nil {
			return fmt.Errorf("ogx-controller exited with %v on shutdown; see %s", p.waitErr, p.logPath)
		}
		return nil
	case <-timer.C:
	}
	_ = signalGroup(p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
	return fmt.Errorf("ogx-controller did not stop within %s after SIGTERM and was killed", grace)
}

// DumpLog writes the last n lines of the controller's log to w.
func (p *ControllerProcess) DumpLog(w io.Writer, n int) {
	lines, err := tailLines(p.logPath, n)
	if err != nil {
		fmt.Fprintf(w, "(cannot read ogx-controller log: %v)\n", err)
		return
	}
	fmt.Fprintf(w, "===== last %d lines of %s =====\n%s\n", len(lines), p.logPath, strings.Join(lines, "\n"))
}

// Done is closed once the controller has exited.
func (p *ControllerProcess) Done() <-chan struct{} { return p.done }

// Err is how the controller exited; valid once Done is closed.
func (p *ControllerProcess) Err() error {
	<-p.done
	return p.waitErr
}
