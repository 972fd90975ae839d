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

// userHZ is the unit of the CPU times in /proc/<pid>/stat: Linux reports
// them in clock ticks of 1/100 s whatever the kernel's own tick rate.
const userHZ = 100

// readCPU reads the CPU time (user plus system) pid has used so far, from
// /proc/<pid>/stat. The command name, field 2, is in parentheses and may
// hold spaces, so the fields are counted from after its closing one:
// utime and stime are fields 14 and 15 of the line.
func readCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	end := strings.LastIndexByte(string(data), ')')
	if end < 0 {
		return 0, fmt.Errorf("no command name in /proc/%d/stat", pid)
	}
	fields := strings.Fields(string(data[end+1:]))
	// fields[0] is field 3 (state), so field k is fields[k-3].
	if len(fields) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parsing /proc/%d/stat: %w", pid, err)
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
