package base

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen/oci"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// DefaultImageRecheckInterval is the default of --image-recheck-interval:
// a moved tag reaches its servers within an hour, as a new pod pulling the
// tag would have found it, for one HEAD request per tag and hour.
const DefaultImageRecheckInterval = time.Hour

// recheckRetry is how soon a failed re-check of a pinned tag is tried
// again; the server keeps its digest meanwhile.
const recheckRetry = time.Minute

// Pins keeps, per OGXServer whose base config is read from the labels of
// a tagged image, the digest that tag is pinned to, so that its pods and
// its config come from the same bytes (docs/config-generation.md, Digest
// pinning).
//
// The digest is kept in status (resolvedDistribution.image) and read back
// from there by a new process, so a restart or a failover changes no
// server. It is re-checked when the interval has passed since it was last
// confirmed by this process, or when ogx.io/recheck-image asks; servers on
// one tag share each resolution (Generator.tagDigest), so a registry gets
// one request per tag and interval however many servers run it. The time
// of the last confirmation is kept in memory only, so confirming a digest
// writes nothing, and a new process counts the interval from its start.
type Pins struct {
	record.Slot[pin]
	records  *record.Store
	gen      *Generator
	events   *events.Sink
	interval time.Duration
}

// pin is one server's pinned tag.
type pin struct {
	// ref is the tag reference pinned, digest its digest ("" until the
	// first resolution).
	ref, digest string
	// checkedAt is when the digest was last confirmed or, for a pin read
	// from status, when this process first saw it.
	checkedAt time.Time
	// handled is the recheck annotation value last answered; request an
	// unanswered one, first seen at requestSeen.
	handled, request string
	requestSeen      time.Time
	// failedAt is when the last re-check failed; zero after a success.
	failedAt time.Time
}

// NewPins keeps its pins in r; gen resolves the tags, sink sends the
// Events of a moved digest and of a failed re-check. interval <= 0 turns
// the periodic re-check off (the annotation still works).
func NewPins(r *record.Store, gen *Generator, sink *events.Sink, interval time.Duration) *Pins {
	return &Pins{Slot: record.NewSlot[pin](r), records: r, gen: gen, events: sink, interval: interval}
}

// Image returns ref pinned to its digest for s. While the tag of a server
// without a digest is being resolved, or a due re-check runs, it returns
// the resolution's *DeferredError; a failed first resolution is a
// BaseConfigUnavailable user error, a failed re-check keeps the digest.
func (p *Pins) Image(ctx context.Context, s *ogxv1beta1.OGXServer, ref string) (string, error) {
	now := p.gen.now()
	cur := p.current(s, ref, now)
	notBefore, due := p.due(cur, now)
	if !due {
		return oci.PinnedImage(ref, cur.digest), nil
	}
	digest, at, err := p.gen.tagDigest(ctx, s.Namespace, ref, notBefore)
	if deferred := (*DeferredError)(nil); errors.As(err, &deferred) {
		return "", err
	}
	if err != nil {
		if cur.digest == "" {
			return "", &resolve.UserError{Reason: ogxv1beta1.ReasonBaseConfigUnavailable, Err: err}
		}
		p.failed(ctx, s, ref, cur.digest, err, at)
		return oci.PinnedImage(ref, cur.digest), nil
	}
	p.adopt(ctx, s, ref, digest, at)
	return oci.PinnedImage(ref, digest), nil
}

// current returns s's pin of ref, first from memory, else from status,
// and notes a new recheck request.
func (p *Pins) current(s *ogxv1beta1.OGXServer, ref string, now time.Time) pin {
	var out pin
	token := s.Annotations[ogxv1beta1.AnnotationRecheckImage]
	p.Update(s.UID, func(cur pin, ok bool) (pin, bool) {
		if !ok || cur.ref != ref {
			cur = pinFromStatus(s, ref, now)
		}
		switch {
		case token == "" || token == cur.handled:
			cur.request = ""
		case token != cur.request:
			cur.request, cur.requestSeen = token, now
		}
		out = cur
		return cur, true
	})
	return out
}

// pinFromStatus is the pin status reports for ref: the digest of a config
// read from ref's labels, taken as confirmed now.
func pinFromStatus(s *ogxv1beta1.OGXServer, ref string, now time.Time) pin {
	out := pin{ref: ref, checkedAt: now}
	rd := s.Status.ResolvedDistribution
	if rd == nil {
		return out
	}
	out.handled = rd.LastHandledRecheck
	if d, ok := strings.CutPrefix(rd.Image, ref+"@"); ok && rd.ConfigSource == configgen.SourceOCILabel && strings.HasPrefix(d, "sha256:") {
		out.digest = d
	}
	return out
}

// due reports whether cur needs a resolution of its tag now, and the time
// a shared resolution must be no older than to answer it.
func (p *Pins) due(cur pin, now time.Time) (notBefore time.Time, due bool) {
	switch {
	case cur.digest == "":
		if p.interval > 0 {
			return now.Add(-p.interval), true
		}
		return time.Time{}, true
	case cur.request != "":
		return cur.requestSeen, true
	case !cur.failedAt.IsZero():
		return cur.failedAt.Add(time.Nanosecond), !now.Before(cur.failedAt.Add(recheckRetry))
	case p.interval > 0:
		next := cur.checkedAt.Add(p.interval)
		return next, !now.Before(next)
	}
	return time.Time{}, false
}

// RecheckIn is how long until s's pin is due (0: not pinned, or no
// re-check planned): the configmap and deployment controllers come back
// then.
func (p *Pins) RecheckIn(s *ogxv1beta1.OGXServer) time.Duration {
	cur, ok := p.Get(s.UID)
	if !ok || cur.digest == "" {
		return 0
	}
	var next time.Time
	switch {
	case !cur.failedAt.IsZero():
		next = cur.failedAt.Add(recheckRetry)
	case p.interval > 0:
		next = cur.checkedAt.Add(p.interval)
	default:
		return 0
	}
	return max(next.Sub(p.gen.now()), time.Second)
}

// LastHandled is the recheck annotation value last answered for s, for
// status.resolvedDistribution.lastHandledRecheck.
func (p *Pins) LastHandled(s *ogxv1beta1.OGXServer) string {
	if cur, ok := p.Get(s.UID); ok {
		return cur.handled
	}
	if rd := s.Status.ResolvedDistribution; rd != nil {
		return rd.LastHandledRecheck
	}
	return ""
}

// adopt records that ref resolved to digest at at. The first pass to see
// a new digest sends the Event; status is told of a new digest or an
// answered request.
func (p *Pins) adopt(ctx context.Context, s *ogxv1beta1.OGXServer, ref, digest string, at time.Time) {
	var from string
	var changed bool
	p.Update(s.UID, func(cur pin, ok bool) (pin, bool) {
		if !ok || cur.ref != ref {
			cur = pin{ref: ref}
		}
		if cur.digest != "" && cur.checkedAt.After(at) {
			return cur, true // a newer resolution was adopted meanwhile
		}
		if cur.digest != digest {
			from, changed = cur.digest, true
		}
		cur.digest, cur.checkedAt, cur.failedAt = digest, at, time.Time{}
		if cur.request != "" && !at.Before(cur.requestSeen) {
			cur.handled, cur.request, changed = cur.request, "", true
		}
		return cur, true
	})
	p.events.While(s, corev1.EventTypeWarning, ogxv1beta1.EventImageRecheckFailed, "", "", false)
	if !changed {
		return
	}
	if from != "" && from != digest {
		klog.FromContext(ctx).Info("Image tag moved; rolling out its new digest", "image", ref, "from", from, "to", digest)
		p.events.Normal(s, ogxv1beta1.EventImageDigestChanged,
			fmt.Sprintf("Image %s moved from %s to %s; rolling out the new digest", ref, from, digest))
	}
	p.records.Changed(caches.Key(s.Namespace, s.Name))
}

// failed records a failed re-check. Its Warning is sent once while the
// re-checks of this pin keep failing (events.Sink.While); adopt ends it.
func (p *Pins) failed(ctx context.Context, s *ogxv1beta1.OGXServer, ref, digest string, err error, at time.Time) {
	if at.IsZero() {
		at = p.gen.now()
	}
	p.Update(s.UID, func(cur pin, ok bool) (pin, bool) {
		if ok && cur.ref == ref {
			cur.failedAt = at
		}
		return cur, ok
	})
	klog.FromContext(ctx).V(2).Info("Image re-check failed; the server keeps its digest", "image", ref, "digest", digest, "err", err)
	p.events.While(s, corev1.EventTypeWarning, ogxv1beta1.EventImageRecheckFailed, ref+"@"+digest,
		fmt.Sprintf("Could not re-check image %s, so the server keeps %s (tried again every %s): %v", ref, digest, recheckRetry, err), true)
}
