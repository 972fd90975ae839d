package framework

import (
	"errors"
	"fmt"
	"strings"
)

// auditLogMaxSizeMB is --audit-log-maxsize: far more than any run writes,
// so the log never rotates and a reader sees every event in one file.
const auditLogMaxSizeMB = 1 << 20

// auditArgs are the apiserver's audit flags when Options.AuditPolicy is set.
// Blocking mode writes each event before the request returns: batch mode
// drops events when its buffer fills, which is exactly when a load test
// produces the most of them.
func (cp *ControlPlane) auditArgs() []string {
	if len(cp.opts.AuditPolicy) == 0 {
		return nil
	}
	return []string{
		"--audit-policy-file=" + cp.files.auditPolicy,
		"--audit-log-path=" + cp.files.auditLog,
		"--audit-log-format=json",
		"--audit-log-mode=blocking",
		fmt.Sprintf("--audit-log-maxsize=%d", auditLogMaxSizeMB),
		"--audit-log-maxbackup=0",
	}
}

// AuditPolicyForUsers returns an audit policy, for Options.AuditPolicy, that
// records every request of the given users at level Metadata (who, verb,
// resource, response code and timestamps; no bodies) from the
// ResponseStarted stage on, and nothing else. A watch thus logs one event
// when it starts and one when it ends; other requests log one event when
// they complete. Events of one request share their auditID.
func AuditPolicyForUsers(users ...string) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages:\n- RequestReceived\nrules:\n")
	if len(users) > 0 {
		b.WriteString("- level: Metadata\n  users:\n")
		for _, u := range users {
			fmt.Fprintf(&b, "  - %q\n", u)
		}
	}
	b.WriteString("- level: None\n")
	return []byte(b.String())
}

// validUser rejects Options.Users names that would corrupt the token file or
// the kubeconfig path.
func validUser(name string) error {
	switch {
	case name == "":
		return errors.New("empty name in Options.Users")
	case name == adminUser:
		return fmt.Errorf("Options.Users may not contain the admin user %q", adminUser)
	case strings.ContainsAny(name, ",\"\n\r/\\"):
		return fmt.Errorf("user name %q in Options.Users contains a comma, quote, newline or path separator", name)
	}
	return nil
}
