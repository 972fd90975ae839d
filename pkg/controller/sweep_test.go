package controller

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// storeHolds lists the in-memory stores that hold state for uid.
func storeHolds(m *Manager, uid types.UID) []string {
	stores := []struct {
		name string
		mu   sync.Locker
		has  func() bool
	}{
		{"outcomes", &m.board.mu, func() bool { _, ok := m.board.outcomes[uid]; return ok }},
		{"facts", &m.board.mu, func() bool { _, ok := m.board.facts[uid]; return ok }},
		{"status written", &m.status.writes.mu, func() bool { return m.status.writes.entries[uid].written != nil }},
		{"status writtenAt", &m.status.writes.mu, func() bool { return !m.status.writes.entries[uid].at.IsZero() }},
		{"probes", &m.status.probes.last.mu, func() bool { _, ok := m.status.probes.last.entries[uid]; return ok }},
		{"digests", &m.status.digests.mu, func() bool { _, ok := m.status.digests.entries[uid]; return ok }},
		{"journal", &m.events.journal.mu, func() bool { _, ok := m.events.journal.entries[uid]; return ok }},
		{"held warnings", &m.events.holding.mu, func() bool { _, ok := m.events.holding.entries[uid]; return ok }},
		{"config memo", &m.resolver.memo.mu, func() bool { _, ok := m.resolver.memo.entries[uid]; return ok }},
		{"spec memo", &m.specs.mu, func() bool { _, ok := m.specs.entries[uid]; return ok }},
		{"server-TLS warnings", &m.deployment.tlsWarnings.mu, func() bool { _, ok := m.deployment.tlsWarnings.entries[uid]; return ok }},
	}
	var held []string
	for _, st := range stores {
		st.mu.Lock()
		if st.has() {
			held = append(held, st.name)
		}
		st.mu.Unlock()
	}
	return held
}

// record puts state for s into every store, as a pass over s would.
func record(m *Manager, s *ogxv1beta1.OGXServer) {
	key := Key(s.Namespace, s.Name)
	m.board.Record(key, s.UID, "deployment", Outcome{Generation: s.Generation, Class: OutcomeOK})
	m.board.SetFacts(key, s.UID, "service", []metav1.Condition{{Type: CondNetworkingAdopted, Status: metav1.ConditionTrue}})
	m.status.writes.set(s.UID, statusWrite{written: s, at: time.Now()})
	m.status.probes.store(s.UID, "t", time.Now(), ProbeResult{})
	m.status.digests.set(s.UID, digestRecord{image: "img", digest: "sha256:0"})
	m.events.journal.add(key, s.UID, "Service", s.Name, writeCreated)
	m.events.holding.update(s.UID, "Reason", "note", true)
	m.resolver.memo.put(s.UID, key, memoKey{generation: s.Generation}, resolve.GeneratedConfig{})
	m.specs.errors(s)
	m.deployment.tlsWarnings.set(s.UID, "sha256:0")
}

// A pass that finishes after its server was deleted records into the stores
// after the delete handler forgot the server; the sweep drops that state and
// keeps the state of servers that still exist.
func TestSweepDropsStateOfDeletedServers(t *testing.T) {
	live := sfServer(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, Options{}, nil, live)
	gone := sfServer(sfNamespace, "deleted", types.UID("9f0c2a51-7d1e-4b6a-8a3e-2c4d5e6f7a8b"))

	record(e.m, live)
	record(e.m, gone)
	all := storeHolds(e.m, live.UID)
	if len(all) != 11 {
		t.Fatalf("the test records into %d stores, want all 11: %v", len(all), all)
	}
	if diff := cmp.Diff(all, storeHolds(e.m, gone.UID)); diff != "" {
		t.Fatalf("state of the deleted server before the sweep (-live +deleted):\n%s", diff)
	}

	e.m.sweep(e.ctx)

	if held := storeHolds(e.m, gone.UID); len(held) != 0 {
		t.Errorf("after the sweep these stores still hold the deleted server: %v", held)
	}
	if diff := cmp.Diff(all, storeHolds(e.m, live.UID)); diff != "" {
		t.Errorf("the sweep dropped state of a live server (-before +after):\n%s", diff)
	}
}

// The sweep asks the cache whether a server exists when it drops that
// server's state: a server created after the sweep began is live for it.
func TestHasServerFollowsTheCache(t *testing.T) {
	e := newSFEnv(t, Options{}, nil, sfServer(sfNamespace, sfName, sfUID))
	late := sfServer(sfNamespace, "late", types.UID("3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"))
	if e.m.caches.hasServer(late.UID) {
		t.Fatal("hasServer is true before the server exists")
	}
	if _, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Create(e.ctx, late, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sfEventually(t, "the new server in the UID index", func() (bool, string) {
		return e.m.caches.hasServer(late.UID), "not indexed"
	})
	record(e.m, late)
	e.m.sweep(e.ctx)
	if held := storeHolds(e.m, late.UID); len(held) != 11 {
		t.Errorf("the sweep dropped state of a server created after start: left %v", held)
	}
	if err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Delete(e.ctx, late.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	sfEventually(t, "the deleted server gone from the UID index", func() (bool, string) {
		return !e.m.caches.hasServer(late.UID), "still indexed"
	})
}
