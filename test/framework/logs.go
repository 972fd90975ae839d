package framework

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// DumpLogs writes the last lines lines of each component's log to w, in start
// order, each under a header naming the component and whether it is still
// running. It is meant for failure diagnostics (RunMain calls it when a test
// failed), so it is best effort: a log that cannot be read is reported inline
// instead of aborting the dump. Call it before Stop, which removes the logs.
func (cp *ControlPlane) DumpLogs(w io.Writer, lines int) {
	for _, p := range cp.procList() {
		state := "running"
		if p.exited() {
			state = fmt.Sprintf("exited: %v", p.waitErr)
		}
		fmt.Fprintf(w, "===== %s (%s), last %d lines of %s =====\n", p.name, state, lines, p.logPath)
		tail, err := tailLines(p.logPath, lines)
		if err != nil {
			fmt.Fprintf(w, "(cannot read log: %v)\n", err)
			continue
		}
		for _, l := range tail {
			fmt.Fprintln(w, l)
		}
	}
}

// tailBlock is how much tailLines reads per step from the end of a log.
const tailBlock = 32 << 10

// tailLines returns the last n lines of the file at path. It reads backwards
// in blocks because an apiserver log can grow large over a test run and only
// its end matters.
func tailLines(path string, n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening log: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading log size: %w", err)
	}

	var buf []byte
	end := info.Size()
	// n lines need n+1 newlines before them unless the file start is reached
	// (a trailing newline ends the last line rather than starting a new one).
	for end > 0 && bytes.Count(buf, []byte{'\n'}) <= n {
		start := max(end-tailBlock, 0)
		block := make([]byte, end-start)
		if _, err := f.ReadAt(block, start); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("reading log: %w", err)
		}
		buf = append(block, buf...)
		end = start
	}

	all := strings.Split(strings.TrimSuffix(string(buf), "\n"), "\n")
	if end > 0 {
		all = all[1:] // the first piece is a partial line
	}
	if len(all) > n {
		all = all[len(all)-n:]
	}
	if len(all) == 1 && all[0] == "" {
		return nil, nil
	}
	return all, nil
}
