// Package auditlog reads the kube-apiserver's JSON-lines audit log, the one
// framework.ControlPlane.AuditLogPath names, so that the suites that count an
// operator's API requests (test/faults, test/bench, test/e2e) decode it one
// way and keep only their own tallies.
//
// It is a package of its own, not part of framework, because it needs no
// control plane: its tests run without the TestMain that framework's tests
// share, which starts one.
package auditlog

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// maxLine bounds one event's line. Metadata-level events are a few hundred
// bytes; the bound only keeps a corrupt file from growing the buffer
// without limit.
const maxLine = 64 << 20

// Event is the part of an audit.k8s.io/v1 Event the suites read: who made
// the request, what it asked for, how it was answered and when.
type Event struct {
	// AuditID is shared by the events of one request (a watch has one
	// when its response starts and one when it ends).
	AuditID    string `json:"auditID"`
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	// ObjectRef is nil for a non-resource request such as discovery.
	ObjectRef *ObjectRef `json:"objectRef"`
	// ResponseStatus is nil until the apiserver has answered.
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
	StageTimestamp           time.Time `json:"stageTimestamp"`
}

// ObjectRef is the object, or collection, a request addressed.
type ObjectRef struct {
	Resource    string `json:"resource"`
	Subresource string `json:"subresource"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	APIGroup    string `json:"apiGroup"`
}

// Resource is resource[/subresource] (e.g. "ogxservers/status"), or "" for
// a non-resource request.
func (e *Event) Resource() string {
	if e.ObjectRef == nil {
		return ""
	}
	if e.ObjectRef.Subresource != "" {
		return e.ObjectRef.Resource + "/" + e.ObjectRef.Subresource
	}
	return e.ObjectRef.Resource
}

// Namespace and Name are the addressed object's, or "" when the request
// named none.
func (e *Event) Namespace() string {
	if e.ObjectRef == nil {
		return ""
	}
	return e.ObjectRef.Namespace
}

// Name: see Namespace.
func (e *Event) Name() string {
	if e.ObjectRef == nil {
		return ""
	}
	return e.ObjectRef.Name
}

// Code is the response's HTTP status code, or 0 when the event precedes
// the response.
func (e *Event) Code() int {
	if e.ResponseStatus == nil {
		return 0
	}
	return e.ResponseStatus.Code
}

// IsWrite reports whether the request's verb changes stored state.
func (e *Event) IsWrite() bool { return IsWriteVerb(e.Verb) }

// IsWriteVerb reports whether an API verb changes stored state.
func IsWriteVerb(verb string) bool {
	switch verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// String is one line for a failure message: verb, object, answer, timing
// and the client's user agent (which names the replica).
func (e *Event) String() string {
	return fmt.Sprintf("%s %s %s/%s -> %d (received %s, done %s, %s)", e.Verb, e.Resource(), e.Namespace(), e.Name(),
		e.Code(), e.RequestReceivedTimestamp.Format(time.RFC3339Nano), e.StageTimestamp.Format(time.RFC3339Nano), e.UserAgent)
}

// Options says which events a read keeps.
type Options struct {
	// Match, when set, keeps only the events it returns true for.
	Match func(*Event) bool
	// SkipUndecodable passes over lines that are not one JSON event
	// instead of failing. A test that kills the apiserver needs it: a
	// process killed mid-write leaves a cut line, and the restarted
	// apiserver appends to it. Every other reader should fail, because
	// then a bad line means the log is not what the test thinks it is.
	SkipUndecodable bool
}

// Each streams the audit log at path and calls fn with each event that
// o keeps, in log order, stopping at fn's first error, which it returns.
func Each(path string, o Options, fn func(*Event) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("opening audit log: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), maxLine)
	for line := 1; sc.Scan(); line++ {
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			if o.SkipUndecodable {
				continue
			}
			return fmt.Errorf("audit log %s line %d: %w", path, line, err)
		}
		if o.Match != nil && !o.Match(&ev) {
			continue
		}
		if err := fn(&ev); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading audit log %s: %w", path, err)
	}
	return nil
}

// Requests returns one event per request (auditID) that o keeps, ordered by
// each request's first event, and being the request's last event: a watch
// that ended, or any request answered, is then seen with its final stage
// and response code. Under framework.AuditPolicyForUsers a watch has two
// events and every other request one, so len(Requests) counts requests,
// including watches still open when the log was read.
func Requests(path string, o Options) ([]Event, error) {
	index := map[string]int{}
	var out []Event
	err := Each(path, o, func(ev *Event) error {
		if i, ok := index[ev.AuditID]; ok {
			out[i] = *ev
			return nil
		}
		index[ev.AuditID] = len(out)
		out = append(out, *ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ByUser matches the requests of one user (the authenticated name, e.g. a
// framework.Options.Users entry).
func ByUser(name string) func(*Event) bool {
	return func(e *Event) bool { return e.User.Username == name }
}
