//go:build faults

package faults

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// auditEvent is the part of an audit.k8s.io/v1 Event the suite reads.
type auditEvent struct {
	AuditID   string `json:"auditID"`
	Stage     string `json:"stage"`
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
	StageTimestamp           time.Time `json:"stageTimestamp"`
}

// request is one of the operator's API requests in namespace ns, from the
// last audit event of its auditID (which has the final response code).
type request struct {
	verb, resource, name string
	code                 int
	// at is when the apiserver received the request, done when it last
	// reported on it (the response, for a request that completed).
	at, done time.Time
	// userAgent names the replica's process identity
	// (ogx-controller/<version> (<HOSTNAME>_<uuid>)).
	userAgent string
}

func (r request) key() string { return r.resource + "/" + r.name }

// isWrite reports whether the request changes stored state.
func (r request) isWrite() bool {
	switch r.verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// operatorRequests returns the operator user's requests in namespace ns
// received at or after since, in log order. With
// framework.AuditPolicyForUsers a watch has two events and every other
// request one; keying by auditID counts each request once. Requests the
// apiserver never answered, because it was stopped mid-request, may be
// missing: the blocking audit mode writes an event when the response
// starts.
func operatorRequests(ns string, since time.Time) ([]request, error) {
	f, err := os.Open(s.cp.AuditLogPath())
	if err != nil {
		return nil, fmt.Errorf("opening audit log: %w", err)
	}
	defer f.Close()
	index := map[string]int{}
	var out []request
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			// The apiserver may have been killed mid-line during a
			// restart test; such a line is cut, not corrupt.
			continue
		}
		if ev.User.Username != operatorUser || ev.ObjectRef == nil || ev.ObjectRef.Namespace != ns ||
			ev.RequestReceivedTimestamp.Before(since) {
			continue
		}
		res := ev.ObjectRef.Resource
		if ev.ObjectRef.Subresource != "" {
			res += "/" + ev.ObjectRef.Subresource
		}
		r := request{verb: ev.Verb, resource: res, name: ev.ObjectRef.Name, at: ev.RequestReceivedTimestamp,
			done: ev.StageTimestamp, userAgent: ev.UserAgent}
		if ev.ResponseStatus != nil {
			r.code = ev.ResponseStatus.Code
		}
		if i, ok := index[ev.AuditID]; ok {
			out[i] = r
			continue
		}
		index[ev.AuditID] = len(out)
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading audit log: %w", err)
	}
	return out, nil
}

// creations counts, per resource/name, the operator's requests that created
// an object: a create or a server-side apply answered 201 Created.
func creations(reqs []request) map[string]int {
	out := map[string]int{}
	for _, r := range reqs {
		if (r.verb == "create" || r.verb == "patch") && r.code == 201 {
			out[r.key()]++
		}
	}
	return out
}

// writesExceptLeases are the operator's writes other than to its Lease
// (renewing the Lease is the only write an idle leader must make).
func writesExceptLeases(reqs []request) []request {
	var out []request
	for _, r := range reqs {
		if r.isWrite() && r.resource != "leases" {
			out = append(out, r)
		}
	}
	return out
}
