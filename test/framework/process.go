package framework

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Component names. They name the program in the assets directory, the log
// file and the key of Options.ExtraArgs.
const (
	Etcd              = "etcd"
	APIServer         = "kube-apiserver"
	ControllerManager = "kube-controller-manager"
	Scheduler         = "kube-scheduler"
	Kwok              = "kwok"
)

// process is one running control-plane program whose output goes to a log
// file. It is started in its own process group so stop can signal it and any
// children it forks together.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed once the program has exited and been reaped
	waitErr error         // the exit status; read only after done is closed
	killed  bool          // stop had to send SIGKILL
}

// startProcess runs binary with args, appending its stdout and stderr to
// logPath after a header line with the command, so a log that spans a retry
// still shows which invocation wrote what. The program is not tied to any
// context: it runs until stop, because its lifetime is the control plane's,
// not that of whatever call started it.
func startProcess(name, binary string, args []string, logPath string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening %s log: %w", name, err)
	}
	// The child holds its own descriptor; ours is only needed until Start.
	defer logFile.Close()
	if _, err := fmt.Fprintf(logFile, "=== %s %s %s\n", time.Now().Format(time.RFC3339Nano), binary, strings.Join(args, " ")); err != nil {
		return nil, fmt.Errorf("writing %s log: %w", name, err)
	}

	cmd := exec.Command(binary, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the program has terminated.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitError describes an unexpected exit, with the end of the log because
// that is where every component prints why it gave up. It wraps
// errPortInUse when the log shows a failed bind.
func (p *process) exitError() error {
	lines, err := tailLines(p.logPath, 20)
	if err != nil {
		return fmt.Errorf("%s exited (%v); reading its log: %w", p.name, p.waitErr, err)
	}
	tail := strings.Join(lines, "\n\t")
	if mentionsPortInUse(lines) {
		return fmt.Errorf("%s exited (%v): %w; last log lines:\n\t%s", p.name, p.waitErr, errPortInUse, tail)
	}
	return fmt.Errorf("%s exited (%v); last log lines:\n\t%s", p.name, p.waitErr, tail)
}

// stop asks the process group to terminate with SIGTERM, so components shut
// down cleanly and flush their logs, and sends SIGKILL if it has not exited
// after grace. It returns once the program is reaped; calling it again is a
// no-op.
func (p *process) stop(grace time.Duration) error {
	if p.exited() {
		return nil
	}
	if err := signalGroup(p.cmd.Process.Pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stopping %s: %w", p.name, err)
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.done:
		return nil
	case <-timer.C:
	}
	p.killed = true
	if err := signalGroup(p.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("killing %s after %s: %w", p.name, grace, err)
	}
	<-p.done
	return nil
}

// signalGroup sends sig to the process group led by pid. A group that no
// longer exists has nothing left to stop, so ESRCH is not an error.
func signalGroup(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("sending %s to process group %d: %w", sig, pid, err)
	}
	return nil
}
