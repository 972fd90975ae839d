package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func parseTestFlags(args ...string) (*options, error) {
	env := func(string) string { return "" }
	noFile := func(string) ([]byte, error) { return nil, errors.New("no file") }
	return parseFlags(append([]string{"--operator-namespace=ogx-system"}, args...), env, noFile)
}

func TestWatchNamespaces(t *testing.T) {
	for _, tc := range []struct {
		value, wantErr string
		want           []string
	}{
		{value: "", want: nil},
		{value: "a", want: []string{"a"}},
		{value: " a , team-b ", want: []string{"a", "team-b"}},
		{value: "Bad_NS", wantErr: `"Bad_NS" is not a namespace name`},
		{value: "a,,b,", want: []string{"a", "b"}},
		{value: "a b", wantErr: `"a b" is not a namespace name`},
		{value: "a,a", want: []string{"a"}},
		{value: "Bad_NS,,a b", wantErr: `"Bad_NS" is not a namespace name`},
	} {
		o, err := parseTestFlags("--watch-namespaces=" + tc.value)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), "--watch-namespaces: "+tc.wantErr) {
				t.Errorf("%q: error %v, want one naming %s", tc.value, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.value, err)
		default:
			if diff := cmp.Diff(tc.want, o.watchNamespaces); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tc.value, diff)
			}
		}
	}
}

func TestFlagChecks(t *testing.T) {
	if _, err := parseTestFlags("-h"); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
	if _, err := parseTestFlags("--gc-percent=0"); err == nil || !strings.Contains(err.Error(), "--gc-percent") {
		t.Errorf("--gc-percent=0: %v", err)
	}
	if _, err := parseTestFlags("--graceful-shutdown-timeout=0s"); err == nil || !strings.Contains(err.Error(), "--graceful-shutdown-timeout") {
		t.Errorf("--graceful-shutdown-timeout=0s: %v", err)
	}
	for _, addr := range []string{":6060", "0.0.0.0:6060", "10.1.2.3:6060", "example.com:6060", "6060"} {
		if _, err := parseTestFlags("--pprof-bind-address=" + addr); err == nil || !strings.Contains(err.Error(), "--pprof-bind-address") {
			t.Errorf("--pprof-bind-address=%s: %v, want it refused", addr, err)
		}
	}
	for _, addr := range []string{"0", "127.0.0.1:6060", "[::1]:6060", "localhost:6060"} {
		if _, err := parseTestFlags("--pprof-bind-address=" + addr); err != nil {
			t.Errorf("--pprof-bind-address=%s: %v", addr, err)
		}
	}
	o, err := parseTestFlags()
	if err != nil || o.gcPercent != 50 {
		t.Errorf("defaults: %v, gc percent %d", err, o.gcPercent)
	}
}

// TestHelpExitsZero: -h, --help and help COMMAND exit 0 for every command;
// an unknown command exits 2 with the command list.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"run", "-h"}, {"help"}, {"help", "run"}} {
		var out, errOut bytes.Buffer
		if code := dispatch(args, &out, &errOut); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := dispatch([]string{"frobnicate"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "commands:") {
		t.Errorf("unknown command: exit %d: %s", code, errOut.String())
	}
	// The top-level help lists the commands, not the controller's flags.
	for _, flag := range []string{"-h", "--help"} {
		out.Reset()
		if code := dispatch([]string{flag}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "commands:") || strings.Contains(out.String(), "-kubeconfig") {
			t.Errorf("%s: exit %d, output %q, want the command list", flag, code, out.String())
		}
	}
}

// TestOfflineCommandsMoved: render and migrate, now commands of the kubectl
// plugin, exit 2 with one line naming their new home, whatever follows them.
func TestOfflineCommandsMoved(t *testing.T) {
	for _, args := range [][]string{{"render", "-f", "x.yaml"}, {"migrate"}, {"migrate", "-h"}, {"help", "render"}} {
		var out, errOut bytes.Buffer
		code := dispatch(args, &out, &errOut)
		want := "run kubectl ogx " + args[len(args)-1]
		if args[0] != "help" {
			want = "run kubectl ogx " + args[0]
		}
		if code != 2 || out.Len() != 0 || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", args, code, out.String(), errOut.String(), want)
		}
	}
}

// TestVersionFlagExitsZero: --version and -version print the build version
// and exit 0, as the version command does.
func TestVersionFlagExitsZero(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		var out, errOut bytes.Buffer
		if code := dispatch(args, &out, &errOut); code != 0 || strings.TrimSpace(out.String()) != version {
			t.Errorf("%v: exit %d, output %q (stderr %q), want %q", args, code, out.String(), errOut.String(), version)
		}
	}
}

// TestEffectiveFlagsAreLogged: the start-up line lists every flag of ours
// with the value in force (defaults included), and none of klog's.
func TestEffectiveFlagsAreLogged(t *testing.T) {
	o, err := parseTestFlags("--workers=3")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for i := 0; i+1 < len(o.effective); i += 2 {
		got[o.effective[i].(string)] = o.effective[i+1]
	}
	for name, want := range map[string]string{"workers": "3", "status-workers": "16", "gc-percent": "50", "operator-namespace": "ogx-system",
		"leader-elect": "true", "leader-election-namespace": "ogx-system"} {
		if got[name] != want {
			t.Errorf("%s = %v, want %s", name, got[name], want)
		}
	}
	if _, ok := got["v"]; ok {
		t.Errorf("klog's flags are listed")
	}
}

func TestWatchNamespacesWarnings(t *testing.T) {
	o, err := parseTestFlags("--watch-namespaces=a,a,")
	if err != nil {
		t.Fatal(err)
	}
	if len(o.warnings) != 2 || !strings.Contains(o.warnings[0], `"a" is listed twice`) || !strings.Contains(o.warnings[1], "is empty") {
		t.Errorf("warnings %q", o.warnings)
	}
}
