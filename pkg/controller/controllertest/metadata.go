package controllertest

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	metadatafake "k8s.io/client-go/metadata/fake"
)

// MetadataClient is a metadata fake holding objs (PartialObjectMetadata
// with their TypeMeta set), for base.Options.Metadata: tests that need the
// trusted-bundle watch (caches.Caches.WatchTrustedBundles) pass it; the
// others leave it nil and go without. The fake ignores field selectors, so
// seed only the objects the informer would list.
func MetadataClient(tb testing.TB, objs ...runtime.Object) *metadatafake.FakeMetadataClient {
	tb.Helper()
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		tb.Fatal(err)
	}
	return metadatafake.NewSimpleMetadataClient(scheme, objs...)
}
