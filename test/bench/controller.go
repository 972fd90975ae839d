package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// memory is one reading of a process's memory from /proc/<pid>/status.
type memory struct {
	rss, hwm int64 // VmRSS and VmHWM, bytes
	// anon and file split VmRSS: anonymous memory (the Go heap, stacks and
	// runtime) and resident pages of the executable, whose size is the
	// binary's and does not grow with the fleet.
	anon, file int64
}

// readMemory reads VmRSS, VmHWM, RssAnon and RssFile of pid.
func readMemory(pid int) (memory, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	var m memory
	for _, line := range strings.Split(string(data), "\n") {
		field, rest, ok := strings.Cut(line, ":")
		dst := map[string]*int64{"VmRSS": &m.rss, "VmHWM": &m.hwm, "RssAnon": &m.anon, "RssFile": &m.file}[field]
		if !ok || dst == nil {
			continue
		}
		var kb int64
		if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
			return memory{}, fmt.Errorf("parsing %s of /proc/%d/status: %w", field, pid, err)
		}
		*dst = kb << 10
	}
	if m.rss == 0 {
		return memory{}, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	return m, nil
}

// userHZ is the unit of the CPU times in /proc/<pid>/stat: clock ticks of
// 1/100 s (sysconf(_SC_CLK_TCK), fixed at 100 on amd64 and arm64 whatever
// the kernel's own tick rate).
const userHZ = 100

// readCPU reads the CPU time (user plus system) pid has used so far.
func readCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	d, err := parseCPU(string(data))
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return d, nil
}

// parseCPU reads utime and stime, fields 14 and 15, from a line of
// /proc/<pid>/stat. The command name, field 2, is in parentheses and may
// itself hold spaces and parentheses, so the fields are counted from after
// the last closing one.
func parseCPU(line string) (time.Duration, error) {
	end := strings.LastIndexByte(line, ')')
	if end < 0 {
		return 0, fmt.Errorf("no command name")
	}
	fields := strings.Fields(line[end+1:])
	// fields[0] is field 3 (state), so field k is fields[k-3].
	if len(fields) < 13 {
		return 0, fmt.Errorf("%d fields after the command name, want at least 13", len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parsing the CPU times: %w", err)
		}
		ticks += v
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// rssSampler reads a process's memory every second until stopped; peak is
// the larger of the highest VmRSS seen and the kernel's own high-water mark
// VmHWM, which also covers spikes between samples.
type rssSampler struct {
	mu       sync.Mutex
	peak     int64
	peakAnon int64
	last     memory
	samples  int
	stop     chan struct{}
	done     chan struct{}
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
		s.peakAnon = max(s.peakAnon, m.anon)
		s.last = m
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

// finish takes a last sample and stops sampling; it returns the peak
// resident set size and peak anonymous memory (bytes; the anonymous peak is
// from the one-second samples only), and the final reading.
func (s *rssSampler) finish(pid int) (peak, peakAnon int64, final memory) {
	close(s.stop)
	<-s.done
	if m, err := readMemory(pid); err == nil {
		s.mu.Lock()
		s.peak = max(s.peak, m.rss, m.hwm)
		s.peakAnon = max(s.peakAnon, m.anon)
		s.last = m
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, s.peakAnon, s.last
}
