package main

import (
	"strings"
	"testing"
)

// TestOwnPprofAddress: the follower's pprof flag, as one argument or two,
// moves to a loopback port of its own; every other argument stays.
func TestOwnPprofAddress(t *testing.T) {
	for _, tc := range []struct {
		args []string
		addr int // index of the argument that holds the address
		pre  string
	}{
		{args: []string{"--v=2", "--pprof-bind-address=127.0.0.1:6060"}, addr: 1, pre: "--pprof-bind-address=127.0.0.1:"},
		{args: []string{"--pprof-bind-address", "127.0.0.1:6060", "--v=2"}, addr: 1, pre: "127.0.0.1:"},
		{args: []string{"--v=2"}, addr: -1},
	} {
		got, err := ownPprofAddress(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tc.args) {
			t.Fatalf("ownPprofAddress(%q) = %q, want as many arguments", tc.args, got)
		}
		for i := range got {
			moved := i == tc.addr
			if moved && (got[i] == tc.args[i] || !strings.HasPrefix(got[i], tc.pre)) {
				t.Errorf("ownPprofAddress(%q)[%d] = %q, want a new %s… address", tc.args, i, got[i], tc.pre)
			}
			if !moved && got[i] != tc.args[i] {
				t.Errorf("ownPprofAddress(%q)[%d] = %q, want it kept", tc.args, i, got[i])
			}
		}
	}
}
