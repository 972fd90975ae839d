package base

// Unit tests of the odh-trusted-ca-bundle lookup of the controller's
// resolve.Source (inputs.go) with the metadata watch
// (caches.Caches.WatchTrustedBundles): an unlabelled bundle is
// resolve.ErrNotWatched and reported in the CA bundle, a labelled one is
// used, an absent one is resolve.ErrNotFound; none costs a live read.

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
)

// trustedBundleEnv is a resolver on synced caches whose kube fake holds cm
// (nil: none) and whose metadata fake holds its metadata. The fakes ignore
// field selectors, so only the object under test is seeded.
func trustedBundleEnv(t *testing.T, cm *corev1.ConfigMap) (*kubefake.Clientset, *metadatafake.FakeMetadataClient, *Resolver) {
	t.Helper()
	var kubeObjs, metaObjs []runtime.Object
	if cm != nil {
		kubeObjs = append(kubeObjs, cm)
		metaObjs = append(metaObjs, &metav1.PartialObjectMetadata{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: *cm.ObjectMeta.DeepCopy()})
	}
	kube := kubefake.NewClientset(kubeObjs...)
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	md := metadatafake.NewSimpleMetadataClient(scheme, metaObjs...)
	env := startResolverEnv(t, kube, md)
	md.ClearActions()
	return kube, md, env.resolver
}

func TestCacheSourceTrustedBundle(t *testing.T) {
	ca, err := testcerts.NewCA("cluster-ca")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Issue(testcerts.Leaf{CommonName: "cluster"})
	if err != nil {
		t.Fatal(err)
	}
	bundle := func(labels map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: render.TrustedCABundleConfigMap, Labels: labels},
			Data:       map[string]string{"ca-bundle.crt": string(pair.CertPEM)},
		}
	}
	server := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "demo"}}
	for _, tc := range []struct {
		name       string
		cm         *corev1.ConfigMap
		wantErr    error
		notWatched bool
		inBundle   bool
	}{
		{name: "unlabelled", cm: bundle(map[string]string{"team": "a"}), wantErr: resolve.ErrNotWatched, notWatched: true},
		{name: "labelled false", cm: bundle(map[string]string{ogxv1beta1.WatchLabel: "false"}), wantErr: resolve.ErrNotWatched, notWatched: true},
		{name: "labelled", cm: bundle(map[string]string{ogxv1beta1.WatchLabel: "true"}), inBundle: true},
		{name: "absent", wantErr: resolve.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube, md, r := trustedBundleEnv(t, tc.cm)
			_, err := r.Source.CachedConfigMap(testNamespace, render.TrustedCABundleConfigMap)
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("CachedConfigMap: %v, want %v", err, tc.wantErr)
			}
			b, err := r.CABundle(context.Background(), server)
			if err != nil {
				t.Fatalf("CABundle: %v", err)
			}
			if got := b.NotWatched != ""; got != tc.notWatched {
				t.Errorf("NotWatched %q, want set: %v", b.NotWatched, tc.notWatched)
			}
			if tc.notWatched && !strings.Contains(b.NotWatched, ogxv1beta1.WatchLabel) {
				t.Errorf("NotWatched %q does not name the label", b.NotWatched)
			}
			if got := strings.Contains(b.Data, strings.TrimSpace(string(pair.CertPEM))); got != tc.inBundle {
				t.Errorf("bundle holds the ConfigMap's certificate: %v, want %v", got, tc.inBundle)
			}
			// The steady path reads the caches only.
			if a := append(kube.Actions(), md.Actions()...); len(a) != 0 {
				t.Errorf("API requests on lookup: %v", a)
			}
		})
	}
}
