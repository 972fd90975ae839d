//go:build faults

package faults

import (
	"time"

	"github.com/ogx-k8s/ogx-controller/test/framework/auditlog"
)

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
func (r request) isWrite() bool { return auditlog.IsWriteVerb(r.verb) }

// operatorRequests returns the operator user's requests in namespace ns
// received at or after since, in log order, each as its last audit event
// (see auditlog.Requests). Requests the apiserver never answered, because
// it was stopped mid-request, may be missing: the blocking audit mode
// writes an event when the response starts.
func operatorRequests(ns string, since time.Time) ([]request, error) {
	evs, err := auditlog.Requests(s.cp.AuditLogPath(), auditlog.Options{
		Match: func(e *auditlog.Event) bool {
			return e.User.Username == operatorUser && e.ObjectRef != nil && e.ObjectRef.Namespace == ns &&
				!e.RequestReceivedTimestamp.Before(since)
		},
		// The restart tests kill the apiserver, which can cut a line.
		SkipUndecodable: true,
	})
	if err != nil {
		return nil, err
	}
	out := make([]request, 0, len(evs))
	for i := range evs {
		e := &evs[i]
		out = append(out, request{verb: e.Verb, resource: e.Resource(), name: e.Name(), code: e.Code(),
			at: e.RequestReceivedTimestamp, done: e.StageTimestamp, userAgent: e.UserAgent})
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
