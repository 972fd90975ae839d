package fence

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
	clocktesting "k8s.io/utils/clock/testing"
)

// recorder is a transport that counts what reaches it.
type recorder struct{ sent []string }

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.sent = append(r.sent, req.Method)
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Request: req}, nil
}

func send(t *testing.T, rt http.RoundTripper, method string) error {
	t.Helper()
	req := httptest.NewRequest(method, "https://api.test/api/v1/namespaces/ns/configmaps/x", strings.NewReader("{}"))
	resp, err := rt.RoundTrip(req)
	if resp != nil {
		_ = resp.Body.Close()
	}
	return err
}

func TestFenceRefusesWritesOutsideTheRenewDeadline(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakePassiveClock(start)
	f := New(3*time.Second, clk)
	inner := &recorder{}
	rt := f.WrapTransport(inner)

	if err := send(t, rt, http.MethodPost); !errors.Is(err, ErrFenced) {
		t.Fatalf("write before the first renewal: err %v, want ErrFenced", err)
	}
	if err := send(t, rt, http.MethodGet); err != nil {
		t.Fatalf("read before the first renewal: %v", err)
	}

	f.Renewed(clk.Now())
	clk.SetTime(start.Add(2999 * time.Millisecond))
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if err := send(t, rt, m); err != nil {
			t.Errorf("%s just inside the renew deadline: %v", m, err)
		}
	}
	// Past the deadline: a process that was frozen, or whose renewals
	// fail, writes nothing; reads still pass.
	clk.SetTime(start.Add(3 * time.Second))
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if err := send(t, rt, m); !errors.Is(err, ErrFenced) {
			t.Errorf("%s at the renew deadline: err %v, want ErrFenced", m, err)
		}
	}
	if err := send(t, rt, http.MethodGet); err != nil {
		t.Errorf("read past the deadline: %v", err)
	}
	// A renewal opens the fence again; an older renewal reported late
	// does not move it back.
	f.Renewed(clk.Now())
	f.Renewed(start)
	if err := send(t, rt, http.MethodPatch); err != nil {
		t.Errorf("write after a new renewal: %v", err)
	}
	f.Revoke()
	if err := send(t, rt, http.MethodPatch); !errors.Is(err, ErrFenced) {
		t.Errorf("write after Revoke: err %v, want ErrFenced", err)
	}
	want := "GET POST PUT PATCH DELETE GET PATCH"
	if got := strings.Join(inner.sent, " "); got != want {
		t.Errorf("reached the API server: %s, want %s", got, want)
	}
}

// fakeLock is a resource lock whose writes succeed or fail on demand.
type fakeLock struct {
	resourcelock.Interface
	fail    bool
	updates []string
	onSend  func()
}

func (l *fakeLock) Identity() string { return "me" }

func (l *fakeLock) Create(_ context.Context, ler resourcelock.LeaderElectionRecord) error {
	return l.Update(context.Background(), ler)
}

func (l *fakeLock) Update(_ context.Context, ler resourcelock.LeaderElectionRecord) error {
	if l.onSend != nil {
		l.onSend()
	}
	l.updates = append(l.updates, ler.HolderIdentity)
	if l.fail {
		return errors.New("conflict")
	}
	return nil
}

func TestLockRenewsTheFenceFromTheSendTime(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakePassiveClock(start)
	f := New(3*time.Second, clk)
	inner := &fakeLock{}
	l := NewLock(inner, f)
	// The renewal takes 2 s to be answered: the fence counts from when it
	// was sent.
	inner.onSend = func() { clk.SetTime(clk.Now().Add(2 * time.Second)) }
	if err := l.Create(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Check(); err != nil {
		t.Fatalf("after acquiring: %v", err)
	}
	clk.SetTime(start.Add(3 * time.Second))
	if err := f.Check(); !errors.Is(err, ErrFenced) {
		t.Errorf("3 s after the acquiring request was sent: %v, want ErrFenced", err)
	}

	// A failed renewal does not refresh the fence.
	inner.onSend, inner.fail = nil, true
	if err := l.Update(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err == nil {
		t.Fatal("the failing update succeeded")
	}
	if err := f.Check(); !errors.Is(err, ErrFenced) {
		t.Errorf("after a failed renewal: %v, want ErrFenced", err)
	}
	inner.fail = false
	if err := l.Update(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Check(); err != nil {
		t.Errorf("after a renewal: %v", err)
	}

	// Releasing (an empty holder) closes the fence before the request is
	// sent.
	inner.onSend = func() {
		if err := f.Check(); !errors.Is(err, ErrFenced) {
			t.Errorf("while the release is being sent: %v, want ErrFenced", err)
		}
	}
	if err := l.Update(context.Background(), resourcelock.LeaderElectionRecord{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Check(); !errors.Is(err, ErrFenced) {
		t.Errorf("after the release: %v, want ErrFenced", err)
	}
	if got := strings.Join(inner.updates, ","); got != "me,me,me," {
		t.Errorf("updates %q", got)
	}
}
