package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/klog/v2"
)

// The logging libraries keep their configuration in global state that can
// be applied once per process, so these tests run the test binary again as
// a child process that does what main does (helperEnv selects it).
const helperEnv = "OGX_CONTROLLER_LOGGING_HELPER"

// TestMain runs the child process instead of the tests when helperEnv
// holds its JSON-encoded arguments.
func TestMain(m *testing.M) {
	if raw := os.Getenv(helperEnv); raw != "" {
		os.Exit(loggingHelper(raw))
	}
	os.Exit(m.Run())
}

// loggingHelper is the child process. "dispatch" runs its arguments
// through dispatch, as main would; "setup" parses them as run's flags,
// applies the logging and logs a line at each level, the way the
// controllers log. It returns the exit code.
func loggingHelper(raw string) int {
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		os.Stderr.WriteString("helper arguments: " + err.Error() + "\n")
		return 2
	}
	mode, args := args[0], args[1:]
	if mode == "dispatch" {
		return dispatch(args, os.Stdout, os.Stderr)
	}
	o, err := parseTestFlags(args...)
	if err == nil {
		err = applyLogging(o.logging, os.Stderr)
	}
	if err != nil {
		os.Stderr.WriteString("flag error: " + err.Error() + "\n")
		return 2
	}
	logger := klog.Background().WithValues("server", "team-a/llama")
	logger.Info("at level 0", "child", "Deployment")
	logger.V(2).Info("at level 2")
	logger.V(4).Info("at level 4")
	logger.Error(errors.New("boom"), "a failure")
	klog.InfoS("through klog's global functions")
	klog.Flush()
	return 0
}

// runHelper runs the child process with args and returns its stderr and
// exit code; stdout must stay empty (the controller prints nothing there).
func runHelper(t *testing.T, args ...string) (string, int) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+string(raw))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running %v: %v", args, err)
	}
	if stdout.Len() > 0 {
		t.Errorf("%v: wrote to stdout: %q", args, stdout.String())
	}
	return stderr.String(), code
}

// jsonLines parses every line of out as one JSON object, failing the test
// on any line that is not.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		obj := map[string]any{}
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Errorf("not one JSON object: %q: %v", line, err)
			continue
		}
		objs = append(objs, obj)
	}
	return objs
}

// messages returns the "msg" of each line.
func messages(objs []map[string]any) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o["msg"].(string))
	}
	return out
}

// TestJSONLogFormat: with --log-format=json every line on stderr is one
// JSON object, -v still selects the levels, and key/value pairs become
// fields.
func TestJSONLogFormat(t *testing.T) {
	out, code := runHelper(t, "setup", "--log-format=json", "-v=2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	objs := jsonLines(t, out)
	got := messages(objs)
	want := []string{"at level 0", "at level 2", "a failure", "through klog's global functions"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("messages %q, want %q (-v=2: level 4 left out)", got, want)
	}
	if len(objs) > 0 && (objs[0]["server"] != "team-a/llama" || objs[0]["child"] != "Deployment") {
		t.Errorf("first line %v lacks the key/value pairs as fields", objs[0])
	}
	if len(objs) > 2 && objs[2]["err"] != "boom" {
		t.Errorf("error line %v lacks err", objs[2])
	}
}

// TestTextLogFormatIsTheDefault: without the flag the lines are klog's
// text lines, not JSON, and -v=4 shows level 4.
func TestTextLogFormatIsTheDefault(t *testing.T) {
	out, code := runHelper(t, "setup", "-v=4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if json.Valid([]byte(l)) || !strings.Contains(l, "] ") {
			t.Errorf("not a klog text line: %q", l)
		}
	}
	if !strings.Contains(lines[2], `"at level 4"`) || !strings.HasPrefix(lines[3], "E") {
		t.Errorf("level 4 or the error line missing:\n%s", out)
	}
}

// TestUnknownLogFormatIsAFlagError: exit 2 before anything runs, naming
// the allowed values.
func TestUnknownLogFormatIsAFlagError(t *testing.T) {
	out, code := runHelper(t, "dispatch", "run", "--log-format=xml", "--operator-namespace=ogx-system")
	if code != 2 || !strings.Contains(out, `unknown log format "xml": want one of text, json`) {
		t.Errorf("exit %d, stderr:\n%s", code, out)
	}
}

// TestControllerLogsJSON runs the controller itself with --log-format=json
// against a kubeconfig that does not exist: its start-up line and the
// failure that ends it must both be JSON objects.
func TestControllerLogsJSON(t *testing.T) {
	out, code := runHelper(t, "dispatch", "run", "--log-format=json",
		"--kubeconfig="+filepath.Join(t.TempDir(), "missing"), "--operator-namespace=ogx-system", "--leader-elect=false",
		"--metrics-bind-address=0", "--health-probe-bind-address=0", "--admission-bind-address=0")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (no cluster): %s", code, out)
	}
	got := messages(jsonLines(t, out))
	if len(got) < 2 || got[0] != "Starting ogx-controller" || got[len(got)-1] != "ogx-controller failed" {
		t.Errorf("messages %q, want the start-up line first and the failure last", got)
	}
}
