package auditlog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The lines are shaped like a kube-apiserver's Metadata-level events under
// framework.AuditPolicyForUsers: a watch (two events, one auditID), a
// status update, a create answered 201, another user's get, and a
// non-resource discovery request.
const (
	watchStarted  = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"w1","stage":"ResponseStarted","requestURI":"/api/v1/namespaces/ns1/configmaps?watch=true","verb":"watch","user":{"username":"op"},"userAgent":"ogx-controller/v1 (a_1)","objectRef":{"resource":"configmaps","namespace":"ns1","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-01-02T03:04:05.000001Z","stageTimestamp":"2026-01-02T03:04:05.000002Z"}`
	statusUpdate  = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"u1","stage":"ResponseComplete","requestURI":"/apis/ogx.io/v1beta1/namespaces/ns1/ogxservers/s/status","verb":"update","user":{"username":"op"},"userAgent":"ogx-controller/v1 (a_1)","objectRef":{"resource":"ogxservers","namespace":"ns1","name":"s","apiGroup":"ogx.io","subresource":"status"},"responseStatus":{"metadata":{},"code":409},"requestReceivedTimestamp":"2026-01-02T03:04:06Z","stageTimestamp":"2026-01-02T03:04:06.5Z"}`
	create        = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"c1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/ns2/configmaps","verb":"create","user":{"username":"op"},"userAgent":"ogx-controller/v1 (b_2)","objectRef":{"resource":"configmaps","namespace":"ns2","name":"cm"},"responseStatus":{"metadata":{},"code":201},"requestReceivedTimestamp":"2026-01-02T03:04:07Z","stageTimestamp":"2026-01-02T03:04:07.1Z"}`
	otherUser     = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"g1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/ns1/secrets/x","verb":"get","user":{"username":"alice"},"objectRef":{"resource":"secrets","namespace":"ns1","name":"x"},"responseStatus":{"metadata":{},"code":404},"requestReceivedTimestamp":"2026-01-02T03:04:08Z","stageTimestamp":"2026-01-02T03:04:08Z"}`
	discovery     = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"d1","stage":"ResponseComplete","requestURI":"/apis?timeout=32s","verb":"get","user":{"username":"op"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-01-02T03:04:09Z","stageTimestamp":"2026-01-02T03:04:09Z"}`
	watchComplete = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"w1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/ns1/configmaps?watch=true","verb":"watch","user":{"username":"op"},"userAgent":"ogx-controller/v1 (a_1)","objectRef":{"resource":"configmaps","namespace":"ns1","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-01-02T03:04:05.000001Z","stageTimestamp":"2026-01-02T03:05:00Z"}`
	// cut is what a killed apiserver leaves: half an event, then the
	// restarted apiserver's first event on the same line.
	cut = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"x9","verb":"upd` + create
)

// brief is what the tests compare: enough of an event to tell every field
// was decoded, in a form cmp can diff.
type brief struct {
	ID, Stage, Verb, User, Agent, Resource, Namespace, Name string
	Code                                                    int
	Received, Done                                          time.Time
}

func briefOf(e *Event) brief {
	return brief{ID: e.AuditID, Stage: e.Stage, Verb: e.Verb, User: e.User.Username, Agent: e.UserAgent,
		Resource: e.Resource(), Namespace: e.Namespace(), Name: e.Name(), Code: e.Code(),
		Received: e.RequestReceivedTimestamp, Done: e.StageTimestamp}
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

var (
	briefWatchStarted = brief{ID: "w1", Stage: "ResponseStarted", Verb: "watch", User: "op", Agent: "ogx-controller/v1 (a_1)",
		Resource: "configmaps", Namespace: "ns1", Code: 200,
		Received: at("2026-01-02T03:04:05.000001Z"), Done: at("2026-01-02T03:04:05.000002Z")}
	briefWatchComplete = brief{ID: "w1", Stage: "ResponseComplete", Verb: "watch", User: "op", Agent: "ogx-controller/v1 (a_1)",
		Resource: "configmaps", Namespace: "ns1", Code: 200,
		Received: at("2026-01-02T03:04:05.000001Z"), Done: at("2026-01-02T03:05:00Z")}
	briefStatusUpdate = brief{ID: "u1", Stage: "ResponseComplete", Verb: "update", User: "op", Agent: "ogx-controller/v1 (a_1)",
		Resource: "ogxservers/status", Namespace: "ns1", Name: "s", Code: 409,
		Received: at("2026-01-02T03:04:06Z"), Done: at("2026-01-02T03:04:06.5Z")}
	briefCreate = brief{ID: "c1", Stage: "ResponseComplete", Verb: "create", User: "op", Agent: "ogx-controller/v1 (b_2)",
		Resource: "configmaps", Namespace: "ns2", Name: "cm", Code: 201,
		Received: at("2026-01-02T03:04:07Z"), Done: at("2026-01-02T03:04:07.1Z")}
	briefOtherUser = brief{ID: "g1", Stage: "ResponseComplete", Verb: "get", User: "alice",
		Resource: "secrets", Namespace: "ns1", Name: "x", Code: 404,
		Received: at("2026-01-02T03:04:08Z"), Done: at("2026-01-02T03:04:08Z")}
	briefDiscovery = brief{ID: "d1", Stage: "ResponseComplete", Verb: "get", User: "op", Code: 200,
		Received: at("2026-01-02T03:04:09Z"), Done: at("2026-01-02T03:04:09Z")}
)

func writeLog(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAuditEach(t *testing.T) {
	path := writeLog(t, watchStarted, statusUpdate, create, otherUser, discovery, watchComplete)
	for _, tc := range []struct {
		name string
		o    Options
		want []brief
	}{{
		name: "every event in log order",
		want: []brief{briefWatchStarted, briefStatusUpdate, briefCreate, briefOtherUser, briefDiscovery, briefWatchComplete},
	}, {
		name: "one user",
		o:    Options{Match: ByUser("alice")},
		want: []brief{briefOtherUser},
	}, {
		name: "writes in a namespace",
		o:    Options{Match: func(e *Event) bool { return e.IsWrite() && e.Namespace() == "ns1" }},
		want: []brief{briefStatusUpdate},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var got []brief
			if err := Each(path, tc.o, func(e *Event) error { got = append(got, briefOf(e)); return nil }); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAuditEachStopsAtCallbackError(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	err := Each(writeLog(t, watchStarted, statusUpdate, create), Options{}, func(*Event) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Each = %v after %d calls, want %v after 1", err, calls, stop)
	}
}

func TestAuditRequests(t *testing.T) {
	path := writeLog(t, watchStarted, statusUpdate, create, otherUser, discovery, watchComplete)
	reqs, err := Requests(path, Options{Match: ByUser("op")})
	if err != nil {
		t.Fatal(err)
	}
	var got []brief
	for i := range reqs {
		got = append(got, briefOf(&reqs[i]))
	}
	// The watch keeps its first place but is seen as it ended.
	want := []brief{briefWatchComplete, briefStatusUpdate, briefCreate, briefDiscovery}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestAuditUndecodableLine(t *testing.T) {
	path := writeLog(t, watchStarted, cut, otherUser)
	if _, err := Requests(path, Options{}); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("Requests = %v, want an error naming line 2", err)
	}
	reqs, err := Requests(path, Options{SkipUndecodable: true})
	if err != nil {
		t.Fatalf("Requests skipping undecodable lines: %v", err)
	}
	var ids []string
	for _, r := range reqs {
		ids = append(ids, r.AuditID)
	}
	if diff := cmp.Diff([]string{"w1", "g1"}, ids); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestAuditMissingLog(t *testing.T) {
	err := Each(filepath.Join(t.TempDir(), "none.log"), Options{}, func(*Event) error { return nil })
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Each = %v, want an error wrapping os.ErrNotExist", err)
	}
}

func TestAuditEventString(t *testing.T) {
	var got []string
	err := Each(writeLog(t, statusUpdate, discovery), Options{}, func(e *Event) error { got = append(got, e.String()); return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"update ogxservers/status ns1/s -> 409 (received 2026-01-02T03:04:06Z, done 2026-01-02T03:04:06.5Z, ogx-controller/v1 (a_1))",
		"get  / -> 200 (received 2026-01-02T03:04:09Z, done 2026-01-02T03:04:09Z, )",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("strings (-want +got):\n%s", diff)
	}
}
