package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestReadMemory reads this test process's own /proc entry: every figure
// the report prints is there, and the anonymous and file parts are within
// the resident set.
func TestReadMemory(t *testing.T) {
	m, err := readMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.rss <= 0 || m.hwm < m.rss || m.anon <= 0 || m.file <= 0 {
		t.Fatalf("implausible reading %+v", m)
	}
	if m.anon+m.file > m.rss {
		t.Errorf("anon %d + file %d exceed VmRSS %d", m.anon, m.file, m.rss)
	}
	if _, err := readMemory(-1); err == nil {
		t.Error("no error for a process that does not exist")
	}
}

// TestReadCPU checks the reading of this test process's own CPU time
// against the kernel's other account of it, getrusage: after some CPU was
// burned, the /proc reading lies between two rusage readings taken around
// it, give or take its 10 ms ticks. A parser reading the wrong fields
// (state, pids, page faults, child times) would fall outside.
func TestReadCPU(t *testing.T) {
	rusage := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	for start := rusage(); rusage()-start < 200*time.Millisecond; {
		// Burn CPU: the reading must be well above zero to mean anything.
	}
	low := rusage()
	got, err := readCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	high := rusage()
	const tick = time.Second / userHZ
	if got < low-2*tick || got > high+2*tick {
		t.Errorf("readCPU = %v, getrusage around it %v .. %v", got, low, high)
	}
	if _, err := readCPU(-1); err == nil {
		t.Error("no error for a process that does not exist")
	}
}
