package controller

import (
	"context"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
)

// optionalCRDs are the CustomResourceDefinitions that serve the optional
// APIs, named from the group versions discovery asks about so the two cannot
// drift apart.
func optionalCRDs() []string {
	group := func(gv string) string {
		parsed, _ := schema.ParseGroupVersion(gv)
		return parsed.Group
	}
	return []string{
		"servicemonitors." + group(base.MonitoringGroupVersion),
		"prometheusrules." + group(base.MonitoringGroupVersion),
		"securitycontextconstraints." + group(base.OpenShiftSecurityGV),
	}
}

// crdSettle is how long after a CRD event the optional APIs are checked a
// second time: the API server's discovery document follows the CRD's
// Established condition by a moment, so the check at the event itself can
// still see the old answer.
const crdSettle = 3 * time.Second

var crdsGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// watchOptionalCRDs watches the optional APIs' CRDs, one informer per name
// (a field selector matches one name), and calls poke on every event,
// including the initial list's: a CRD established while the first check ran
// is seen then. The cache keeps only the name: the event is the news. A
// forbidden watch (a ClusterRole older than the binary) is logged once and
// pokes at every retry of the reflector (about every 30 s).
func watchOptionalCRDs(ctx context.Context, dyn dynamic.Interface, poke func()) error {
	h := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { poke() },
		UpdateFunc: func(any, any) { poke() },
		DeleteFunc: func(any) { poke() },
	}
	var forbiddenLogged sync.Once
	onWatchError := func(ctx context.Context, r *cache.Reflector, err error) {
		if apierrors.IsForbidden(err) {
			forbiddenLogged.Do(func() {
				klog.FromContext(ctx).Error(err, "Watching the optional APIs' CRDs is forbidden (is the ClusterRole current?); re-checking at every retry instead")
			})
			poke()
			return
		}
		cache.DefaultWatchErrorHandler(ctx, r, err)
	}
	for _, name := range optionalCRDs() {
		f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, metav1.NamespaceAll, func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		})
		inf := f.ForResource(crdsGVR).Informer()
		if err := inf.SetTransform(nameOnly); err != nil {
			return err
		}
		if err := inf.SetWatchErrorHandlerWithContext(onWatchError); err != nil {
			return err
		}
		if _, err := inf.AddEventHandler(h); err != nil {
			return err
		}
		f.Start(ctx.Done())
	}
	return nil
}

// nameOnly reduces an object to its name and resourceVersion.
func nameOnly(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	out := &unstructured.Unstructured{}
	out.SetName(u.GetName())
	out.SetResourceVersion(u.GetResourceVersion())
	return out, nil
}

// watchOptionalAPIs checks the optional APIs when their CRDs change (twice:
// at the event and crdSettle later) and every interval, for APIs served some
// other way than by a CRD; when a result flips, every OGXServer is enqueued
// for the controllers they gate. The interval is long by default: at fleet
// scale a converged operator sends no requests at all, and a CRD event is
// what makes an API appear or go.
func (m *Manager) watchOptionalAPIs(ctx context.Context, interval time.Duration) {
	logger := klog.FromContext(ctx)
	pokes := make(chan struct{}, 1)
	poke := func() {
		select {
		case pokes <- struct{}{}:
		default:
		}
	}
	dyn, err := base.DynamicClientFor(m.Kube)
	if err == nil && dyn != nil {
		err = watchOptionalCRDs(ctx, dyn, poke)
	}
	if err != nil {
		logger.Error(err, "Cannot watch the optional APIs' CRDs; checking every interval only", "interval", interval)
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	var settle <-chan time.Time
	m.checkOptionalAPIs(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-pokes:
			settle = time.After(crdSettle)
		case <-settle:
			settle = nil
		}
		m.checkOptionalAPIs(ctx)
	}
}

// checkOptionalAPIs runs discovery once and acts on a change.
func (m *Manager) checkOptionalAPIs(ctx context.Context) {
	changed := m.Resolver.APIs.Discover(m.Kube.Discovery())
	// Starts or stops the monitoring informers; the monitoring controller
	// enqueues every OGXServer once they have synced or stopped.
	m.monitoring.SetAPIServed(ctx, m.Resolver.APIs.Monitoring.Load())
	if !changed {
		return
	}
	klog.FromContext(ctx).Info("Optional APIs changed",
		"monitoring", m.Resolver.APIs.Monitoring.Load(), "openshiftSecurity", m.Resolver.APIs.OpenShift.Load())
	for _, s := range m.Caches.Servers() {
		key := caches.Key(s.Namespace, s.Name)
		m.deployment.Enqueue(key)
		m.status.Enqueue(key)
	}
}
