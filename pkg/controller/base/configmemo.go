package base

import (
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// ConfigMemo keeps, per OGXServer, the config generated for its current
// generation and base: the configmap and deployment controllers of one
// generation share one generation of the config, and status reads the
// result without generating (so it never calls a registry). The key is
// everything the generated config depends on: the spec (through the
// generation) and the base config (the resourceVersion of the base
// ConfigMap, or the image whose labels carry it). A base read from a tag's
// labels is therefore read once per generation of the server.
//
// When the configmap and deployment controllers miss at the same moment,
// both generate (with the same result); otherwise the second reads the
// first's. Only successes are kept: a failure is retried by the next pass,
// which is what the controllers' backoff paces.
type ConfigMemo struct {
	record.Slot[memoEntry]
	// record is told of a server whose entry changed, so status reports a
	// new base even when nothing else about the server changed.
	record *record.Store
}

type memoKey struct {
	generation int64
	base       string
}

type memoEntry struct {
	key memoKey
	cfg resolve.GeneratedConfig
}

func newConfigMemo(r *record.Store) *ConfigMemo {
	return &ConfigMemo{Slot: record.NewSlot[memoEntry](r), record: r}
}

// get returns the config generated for uid under key.
func (m *ConfigMemo) get(uid types.UID, key memoKey) (resolve.GeneratedConfig, bool) {
	e, ok := m.Get(uid)
	if !ok || e.key != key {
		return resolve.GeneratedConfig{}, false
	}
	return e.cfg, true
}

// Current returns the config last generated for uid at generation, whatever
// its base: what status reports.
func (m *ConfigMemo) Current(uid types.UID, generation int64) (resolve.GeneratedConfig, bool) {
	e, ok := m.Get(uid)
	if !ok || e.key.generation != generation {
		return resolve.GeneratedConfig{}, false
	}
	return e.cfg, true
}

// put replaces uid's entry: only the newest generation and base are kept.
// A pass that read an older generation and finishes after one that read a
// newer one does not take the memo back. Within one generation bases have
// no order, so a pass that read the base before it changed and finishes
// last puts the older base back for a moment; the change's informer event
// queued that pass's controller again while it ran, and the workqueue runs
// it once more afterwards, on the new base, which puts that back.
//
// For the same generation and base the first config put wins and put
// returns it: two controllers that generated at once (after a restart, or
// with a tag that moved between their two registry reads) then both use one
// config, so the deployment controller never waits for a ConfigMap the
// configmap controller did not write.
func (m *ConfigMemo) put(uid types.UID, serverKey string, key memoKey, cfg resolve.GeneratedConfig) resolve.GeneratedConfig {
	var changed bool
	kept := cfg
	m.Update(uid, func(e memoEntry, ok bool) (memoEntry, bool) {
		if ok && (e.key.generation > key.generation || e.key == key) {
			if e.key == key {
				kept = e.cfg
			}
			return e, true
		}
		changed = true
		return memoEntry{key: key, cfg: cfg}, true
	})
	if changed {
		m.record.Changed(serverKey)
	}
	return kept
}

// Generated implements resolve.Memo: generate runs only when the memo has
// no config for s's generation and base.
func (m *ConfigMemo) Generated(s *ogxv1beta1.OGXServer, base string, generate func() (resolve.GeneratedConfig, error)) (resolve.GeneratedConfig, error) {
	key := memoKey{generation: s.Generation, base: base}
	if g, ok := m.get(s.UID, key); ok {
		return g, nil
	}
	g, err := generate()
	if err != nil {
		return resolve.GeneratedConfig{}, err
	}
	return m.put(s.UID, caches.Key(s.Namespace, s.Name), key, g), nil
}

// Drop forgets uid's generated config, as a restart of the process would
// (for tests of what a pass does on a memo miss).
func (m *ConfigMemo) Drop(uid types.UID) {
	m.Update(uid, func(memoEntry, bool) (memoEntry, bool) { return memoEntry{}, false })
}
