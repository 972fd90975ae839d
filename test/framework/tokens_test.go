package framework

import (
	"os"
	"strings"
	"testing"
)

// TestTokenFileGroups checks the token file: Users are in system:masters,
// RBACUsers in no group of their own, and a name may not be in both lists.
func TestTokenFileGroups(t *testing.T) {
	dir := t.TempDir()
	cp := &ControlPlane{opts: Options{Users: []string{"root-like"}, RBACUsers: []string{"workload"}}, dir: dir, files: newFiles(dir)}
	if _, err := cp.writeSecrets(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(cp.files.tokens)
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		fields := strings.SplitN(line, ",", 4)
		if len(fields) < 3 {
			t.Fatalf("token line %q has fewer than 3 fields", line)
		}
		g := ""
		if len(fields) == 4 {
			g = fields[3]
		}
		groups[fields[1]] = g
	}
	if g := groups["root-like"]; g != `"system:masters"` {
		t.Errorf("Users entry groups = %q, want system:masters", g)
	}
	if g, ok := groups["workload"]; !ok || g != "" {
		t.Errorf("RBACUsers entry groups = %q (present %v), want none", g, ok)
	}
	if cp.userTokens["workload"] == "" {
		t.Errorf("no token recorded for the RBAC user")
	}

	dup := &ControlPlane{opts: Options{Users: []string{"x"}, RBACUsers: []string{"x"}}, dir: dir, files: newFiles(t.TempDir())}
	if _, err := dup.writeSecrets(); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("a name in both lists: err = %v, want listed twice", err)
	}
}
