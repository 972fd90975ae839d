package framework

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

func TestProcessExitReportsPortConflict(t *testing.T) {
	p, err := startProcess("fake", "/bin/sh", []string{"-c", "echo 'listen tcp 127.0.0.1:1: bind: address already in use' >&2; exit 1"},
		filepath.Join(t.TempDir(), "fake.log"))
	if err != nil {
		t.Fatal(err)
	}
	<-p.done
	if err := p.exitError(); !errors.Is(err, errPortInUse) {
		t.Errorf("exitError() = %v, want it to wrap errPortInUse", err)
	}
}

func TestProcessStopKillsGroupIgnoringSIGTERM(t *testing.T) {
	// The shell and its sleep child both ignore SIGTERM, so only the
	// process-group SIGKILL after the grace period ends them.
	p, err := startProcess("stubborn", "/bin/sh", []string{"-c", `trap "" TERM; sleep 300 & echo ready; wait`},
		filepath.Join(t.TempDir(), "stubborn.log"))
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		lines, err := tailLines(p.logPath, 1)
		return len(lines) == 1 && lines[0] == "ready", err
	})
	if err != nil {
		t.Fatalf("shell did not start: %v", err)
	}
	begin := time.Now()
	if err := p.stop(200 * time.Millisecond); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if took := time.Since(begin); took < 200*time.Millisecond || took > 10*time.Second {
		t.Errorf("stop took %s, want the 200ms grace period and then a prompt kill", took)
	}
	if !p.exited() {
		t.Error("process still running after stop")
	}
	if err := p.stop(time.Second); err != nil {
		t.Errorf("second stop: %v", err)
	}
}
