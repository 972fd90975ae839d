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

// selfCPU is this process's CPU time (user plus system) by getrusage, the
// kernel's other account of what /proc/<pid>/stat reports.
func selfCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// burnCPU burns CPU on this goroutine until getrusage has counted d of it.
func burnCPU(t *testing.T, d time.Duration) {
	t.Helper()
	for start := selfCPU(t); selfCPU(t)-start < d; {
	}
}

// burnBetween calls first, burns d of CPU, calls second, and returns the
// least and most CPU time this process can have used between the two
// calls by getrusage, which brackets each call: a reading taken by first
// and second from /proc, whose fields are each rounded down to a tick
// (two per reading), must differ by an amount within them.
func burnBetween(t *testing.T, first, second func(), d time.Duration) (least, most time.Duration) {
	t.Helper()
	lowBefore := selfCPU(t)
	first()
	highBefore := selfCPU(t)
	burnCPU(t, d)
	lowAfter := selfCPU(t)
	second()
	highAfter := selfCPU(t)
	const tick = time.Second / userHZ
	return lowAfter - highBefore - 2*tick, highAfter - lowBefore + 2*tick
}

// TestReadCPU checks the reading of this test process's own CPU time
// against the kernel's other account of it, getrusage: while CPU is
// burned, the /proc reading grows by what getrusage says was burned, give
// or take its 10 ms ticks. Fields that do not count CPU time (priority,
// nice, pids, child times) would not grow.
func TestReadCPU(t *testing.T) {
	var before, after time.Duration
	read := func(into *time.Duration) func() {
		return func() {
			d, err := readCPU(os.Getpid())
			if err != nil {
				t.Fatal(err)
			}
			*into = d
		}
	}
	// The growth must be well above the ticks to mean anything.
	least, most := burnBetween(t, read(&before), read(&after), 200*time.Millisecond)
	grew := after - before
	if grew < least || grew > most {
		t.Errorf("readCPU grew by %v while getrusage grew by %v .. %v", grew, least, most)
	}
	if _, err := readCPU(-1); err == nil {
		t.Error("no error for a process that does not exist")
	}
}

// TestParseCPU covers what the test process's own line cannot: a command
// name with spaces and parentheses, and lines that are not a stat line.
func TestParseCPU(t *testing.T) {
	// Fields 3-17: state, ppid, pgrp, session, tty, tpgid, flags, minflt,
	// cminflt, majflt, cmajflt, utime (250), stime (130), cutime, cstime.
	const tail = " S 1 2 3 0 -1 4194304 900 0 7 0 250 130 60 40 20 0 12"
	for _, tc := range []struct {
		name, line string
		want       time.Duration
		wantErr    bool
	}{
		{name: "plain", line: "42 (ogx-controller)" + tail, want: 3800 * time.Millisecond},
		{name: "spaces and parentheses in the name", line: "42 (a) b (c) d)" + tail, want: 3800 * time.Millisecond},
		{name: "no command name", line: "42 ogx-controller" + tail, wantErr: true},
		{name: "short", line: "42 (x) S 1 2 3", wantErr: true},
		{name: "not a number", line: "42 (x) S 1 2 3 0 -1 4194304 900 0 7 0 abc 130 60 40", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseCPU(tc.line)
			if (err != nil) != tc.wantErr {
				t.Fatalf("parseCPU error = %v, want error %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("parseCPU = %v, want %v", got, tc.want)
			}
		})
	}
}
