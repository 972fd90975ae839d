package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// controllerProcess is the running ogx-controller binary.
type controllerProcess struct {
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed once the process has been reaped
	waitErr error         // read only after done is closed
}

// startController runs bin with args, its output appended to logPath. It gets
// its own process group, so a Ctrl-C in the terminal reaches only this
// program, which then stops the controller before the control plane; and
// Pdeathsig, so it never outlives this program.
func startController(bin string, args []string, logPath string) (*controllerProcess, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening ogx-controller log: %w", err)
	}
	defer logFile.Close() // the child has its own descriptor
	fmt.Fprintf(logFile, "=== %s %s %s\n", time.Now().Format(time.RFC3339Nano), bin, strings.Join(args, " "))

	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &controllerProcess{cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the controller has terminated.
func (p *controllerProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, which ogx-controller answers with a graceful shutdown,
// and SIGKILL if it is still running after grace. A controller that had
// already exited is not an error here; run reports that separately.
func (p *controllerProcess) stop(grace time.Duration) error {
	if p.exited() {
		return nil
	}
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
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
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
	return fmt.Errorf("ogx-controller did not stop within %s after SIGTERM and was killed", grace)
}

// dumpLog writes the last n lines of the controller's log to w.
func (p *controllerProcess) dumpLog(w io.Writer, n int) {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		fmt.Fprintf(w, "(cannot read ogx-controller log: %v)\n", err)
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	fmt.Fprintf(w, "===== last %d lines of %s =====\n%s\n", len(lines), p.logPath, strings.Join(lines, "\n"))
}

// pid is the controller's process id.
func (p *controllerProcess) pid() int { return p.cmd.Process.Pid }

// memory is one reading of a process's memory from /proc/<pid>/status.
type memory struct {
	rss, hwm int64 // VmRSS and VmHWM, bytes
}

// readMemory reads VmRSS and VmHWM of pid.
func readMemory(pid int) (memory, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	var m memory
	for _, line := range strings.Split(string(data), "\n") {
		field, rest, ok := strings.Cut(line, ":")
		if !ok || (field != "VmRSS" && field != "VmHWM") {
			continue
		}
		var kb int64
		if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
			return memory{}, fmt.Errorf("parsing %s of /proc/%d/status: %w", field, pid, err)
		}
		if field == "VmRSS" {
			m.rss = kb << 10
		} else {
			m.hwm = kb << 10
		}
	}
	if m.rss == 0 {
		return memory{}, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	return m, nil
}

// rssSampler reads a process's memory every second until stopped; peak is
// the larger of the highest VmRSS seen and the kernel's own high-water mark
// VmHWM, which also covers spikes between samples.
type rssSampler struct {
	mu      sync.Mutex
	peak    int64
	last    int64
	samples int
	stop    chan struct{}
	done    chan struct{}
}

func startRSSSampler(pid int) *rssSampler {
	s := &rssSampler{stop: make(chan struct{}), done: make(chan struct{})}
	sample := func() {
		m, err := readMemory(pid)
		if err != nil {
			return // the process is gone; keep the last reading
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.peak = max(s.peak, m.rss, m.hwm)
		s.last = m.rss
		s.samples++
	}
	go func() {
		defer close(s.done)
		ticker := time.NewTicker(time.Second)
		defer ticker.Stop()
		sample()
		for {
			select {
			case <-s.stop:
				return
			case <-ticker.C:
				sample()
			}
		}
	}()
	return s
}

// finish takes a last sample and stops sampling; it returns the peak and the
// final resident set size in bytes.
func (s *rssSampler) finish(pid int) (peak, final int64) {
	close(s.stop)
	<-s.done
	if m, err := readMemory(pid); err == nil {
		s.mu.Lock()
		s.peak = max(s.peak, m.rss, m.hwm)
		s.last = m.rss
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, s.last
}
