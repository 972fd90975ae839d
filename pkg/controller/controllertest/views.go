package controllertest

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// ChildViews is the child caches' transform, as the controllers' caches
// build it.
func ChildViews() cache.TransformFunc {
	return caches.NewCaches(kubefake.NewClientset(), ogxfake.NewSimpleClientset(), nil, Operator,
		render.OwnFieldManagers(), []string{"ogx-operator"}).ChildTransform()
}

// KnownDeployment is the Deployment a cached entry holds.
func KnownDeployment(t *testing.T, entry any) apply.Known[*appsv1.Deployment] {
	t.Helper()
	k, err := apply.KnownOf[*appsv1.Deployment]("Deployment", entry)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
