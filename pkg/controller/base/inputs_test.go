package base

// Unit tests of the controller's resolve.Source (inputs.go): a referenced
// ConfigMap or Secret comes from the label-filtered cache; on a miss, one
// live GET tells "not found" from "exists but not watched", and any other
// answer stays a transient error.

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/metadata"
	clienttesting "k8s.io/client-go/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

const testNamespace = "team-a"

// resolverEnv is a Resolver on synced caches of fake clientsets.
type resolverEnv struct {
	ctx      context.Context
	kube     *kubefake.Clientset
	resolver *Resolver
}

func newResolverEnv(t *testing.T, objs []runtime.Object) *resolverEnv {
	t.Helper()
	return startResolverEnv(t, kubefake.NewClientset(objs...), nil)
}

// startResolverEnv starts caches over kube (and, with md, the metadata-only
// watch of the trusted bundle), waits for them and returns a resolver on
// them, with the fakes' actions cleared.
func startResolverEnv(t *testing.T, kube *kubefake.Clientset, md metadata.Interface) *resolverEnv {
	t.Helper()
	c := caches.NewCaches(kube, ogxfake.NewSimpleClientset(), nil, "ogx-system", nil, nil)
	if md != nil {
		c.WatchTrustedBundles(md)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c.Start(ctx)
	if err := c.WaitForSync(ctx, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	opts := WithDefaults(Options{OperatorNamespace: "ogx-system"}, kube)
	records := record.New()
	kube.ClearActions()
	return &resolverEnv{ctx: ctx, kube: kube, resolver: NewResolver(c, kube, opts, records, events.NewSink("test", nil, nil, records))}
}

func TestCacheSourceReferences(t *testing.T) {
	watched := map[string]string{ogxv1beta1.WatchLabel: "true"}
	meta := func(name string, labels map[string]string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: testNamespace, Name: name, Labels: labels}
	}
	objs := []runtime.Object{
		&corev1.ConfigMap{ObjectMeta: meta("cm-watched", watched)},
		&corev1.ConfigMap{ObjectMeta: meta("cm-unwatched", nil)},
		&corev1.Secret{ObjectMeta: meta("sec-watched", watched)},
		&corev1.Secret{ObjectMeta: meta("sec-unwatched", nil)},
	}
	e := newResolverEnv(t, objs)
	for _, resource := range []string{"configmaps", "secrets"} {
		e.kube.PrependReactor("get", resource, func(a clienttesting.Action) (bool, runtime.Object, error) {
			if a.(clienttesting.GetAction).GetName() != "broken" {
				return false, nil, nil
			}
			return true, nil, apierrors.NewInternalError(errors.New("etcd unavailable"))
		})
	}
	src, ok := e.resolver.Source.(*cacheSource)
	if !ok {
		t.Fatalf("the resolver's source is %T, want *cacheSource", e.resolver.Source)
	}
	lookups := map[string]func(name string) error{
		"configmaps": func(name string) error { _, err := src.ConfigMap(e.ctx, testNamespace, name); return err },
		"secrets":    func(name string) error { _, err := src.Secret(e.ctx, testNamespace, name); return err },
	}
	prefix := map[string]string{"configmaps": "cm-", "secrets": "sec-"}
	cases := []struct {
		name      string
		object    string // appended to the kind's prefix, except "broken"
		want      error  // nil, resolve.ErrNotFound or resolve.ErrNotWatched
		transient bool
		liveGets  int
	}{
		{name: "cached: no live read", object: "watched"},
		{name: "exists without the label", object: "unwatched", want: resolve.ErrNotWatched, liveGets: 1},
		{name: "does not exist", object: "absent", want: resolve.ErrNotFound, liveGets: 1},
		{name: "the live read fails", object: "broken", transient: true, liveGets: 1},
	}
	for resource, lookup := range lookups {
		for _, c := range cases {
			t.Run(resource+"/"+c.name, func(t *testing.T) {
				name := prefix[resource] + c.object
				if c.object == "broken" {
					name = "broken"
				}
				e.kube.ClearActions()
				err := lookup(name)
				switch {
				case c.transient:
					if err == nil || errors.Is(err, resolve.ErrNotFound) || errors.Is(err, resolve.ErrNotWatched) || !apierrors.IsInternalError(err) {
						t.Errorf("error %v, want the live read's internal error, neither not found nor not watched", err)
					}
				case c.want == nil && err != nil:
					t.Errorf("error %v, want the cached object", err)
				case c.want != nil && !errors.Is(err, c.want):
					t.Errorf("error %v, want %v", err, c.want)
				}
				gets := 0
				for _, a := range e.kube.Actions() {
					if a.GetVerb() == "get" && a.GetResource() == (schema.GroupVersionResource{Version: "v1", Resource: resource}) {
						gets++
					}
				}
				if gets != c.liveGets {
					t.Errorf("%d live GETs of %s, want %d", gets, resource, c.liveGets)
				}
			})
		}
	}
}
