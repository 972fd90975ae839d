package controller

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/probe"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// storeHolds lists the slots of the per-server record, as far as they can
// be read from outside their packages, that hold state for uid. Every
// per-server store is a slot of the one record (record.NewSlot), so
// "record" covers the status controller's writes and digests as well.
func storeHolds(m *Manager, uid types.UID) []string {
	has := func(ok bool) bool { return ok }
	slots := []struct {
		name string
		has  func() bool
	}{
		{"outcomes", func() bool { return len(m.Board.Get(uid)) > 0 }},
		{"facts", func() bool { return len(m.Board.Facts(uid)) > 0 }},
		{"probes", func() bool { _, ok, _ := m.status.Probes().Due(uid, "", time.Time{}); return has(ok) }},
		{"journal", func() bool { _, ok := m.Events.Journal().Get(uid); return has(ok) }},
		{"record", func() bool { return m.Records.Has(uid) }},
		{"config memo", func() bool { _, ok := m.Resolver.Memo.Get(uid); return has(ok) }},
		{"spec memo", func() bool { _, ok := m.Specs.Get(uid); return has(ok) }},
	}
	var held []string
	for _, sl := range slots {
		if sl.has() {
			held = append(held, sl.name)
		}
	}
	return held
}

// recordAll puts state for s into every slot, as a pass over s would.
func recordAll(m *Manager, s *ogxv1beta1.OGXServer) {
	key := caches.Key(s.Namespace, s.Name)
	m.Board.Record(key, s.UID, "deployment", base.Outcome{Generation: s.Generation, Class: base.OutcomeOK})
	m.Board.SetFacts(key, s.UID, "service", []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: metav1.ConditionTrue}})
	m.status.Probes().Store(s.UID, "t", time.Now(), probe.Result{})
	m.Events.Journal().Add(key, s.UID, "Service", s.Name, events.Created)
	m.Events.Lead()
	m.Events.WarnWhile(s, "Reason", "note", true)
	if _, err := m.Resolver.Memo.Generated(s, "", func() (resolve.GeneratedConfig, error) { return resolve.GeneratedConfig{}, nil }); err != nil {
		panic(err)
	}
	m.Specs.Errors(s)
}

// slotCount is how many slots record fills.
const slotCount = 7

// A pass that finishes after its server was deleted records into the stores
// after the delete handler forgot the server; the sweep drops that state and
// keeps the state of servers that still exist.
func TestSweepDropsStateOfDeletedServers(t *testing.T) {
	live := controllertest.Server(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, base.Options{}, nil, live)
	gone := controllertest.Server(sfNamespace, "deleted", types.UID("9f0c2a51-7d1e-4b6a-8a3e-2c4d5e6f7a8b"))

	recordAll(e.m, live)
	recordAll(e.m, gone)
	all := storeHolds(e.m, live.UID)
	if len(all) != slotCount {
		t.Fatalf("the test records into %d slots, want all %d: %v", len(all), slotCount, all)
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

// The sweep reads the cache after it takes the record's UIDs: a server
// created after the process started, recorded once cached, stays live for
// it; once deleted and gone from the cache, its state is dropped.
func TestSweepReadsTheCacheAfterTheRecord(t *testing.T) {
	e := newSFEnv(t, base.Options{}, nil, controllertest.Server(sfNamespace, sfName, sfUID))
	late := controllertest.Server(sfNamespace, "late", types.UID("3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"))
	if e.m.Caches.ServerUIDs()[late.UID] {
		t.Fatal("the cache holds the server before it exists")
	}
	if _, err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Create(e.ctx, late, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "the new server in the cache", func() (bool, string) {
		return e.m.Caches.ServerUIDs()[late.UID], "not cached"
	})
	recordAll(e.m, late)
	e.m.sweep(e.ctx)
	if held := storeHolds(e.m, late.UID); len(held) != slotCount {
		t.Errorf("the sweep dropped state of a server created after start: left %v", held)
	}
	if err := e.ogx.OgxV1beta1().OGXServers(sfNamespace).Delete(e.ctx, late.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "the deleted server gone from the cache", func() (bool, string) {
		return !e.m.Caches.ServerUIDs()[late.UID], "still cached"
	})
	recordAll(e.m, late) // a pass that ended after the delete event
	e.m.sweep(e.ctx)
	if held := storeHolds(e.m, late.UID); len(held) != 0 {
		t.Errorf("after the sweep these stores still hold the deleted server: %v", held)
	}
}
