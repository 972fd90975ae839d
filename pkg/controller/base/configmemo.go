package base

import (
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// ConfigMemo keeps, per OGXServer, the config generated for its current
// generation and base (docs/controllers.md, Inputs): the configmap and
// deployment controllers share one config per generation, and status reads
// it without generating, so it never calls a registry. The base is the
// base ConfigMap's resourceVersion or the image whose labels carry it.
// Only successes are kept: a failure is retried by the next pass.
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

// Current returns the config last generated for uid at generation, whatever
// its base: what status reports.
func (m *ConfigMemo) Current(uid types.UID, generation int64) (resolve.GeneratedConfig, bool) {
	e, ok := m.Get(uid)
	if !ok || e.key.generation != generation {
		return resolve.GeneratedConfig{}, false
	}
	return e.cfg, true
}

// put replaces uid's entry unless it holds a newer generation, so a pass
// that read an older generation and finishes late does not take the memo
// back. Bases of one generation have no order: a pass that read a base
// before it changed may put it back for a moment, but the change's event
// runs its controller once more, which puts the new base back.
//
// For the same generation and base the first config put wins and is
// returned: two controllers that generated at once (after a restart, or on
// a tag that moved between their registry reads) then use one config, so
// the deployment controller never waits for a ConfigMap the configmap
// controller did not write.
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
	if e, ok := m.Get(s.UID); ok && e.key == key {
		return e.cfg, nil
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
