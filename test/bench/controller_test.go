package main

import (
	"os"
	"testing"
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
