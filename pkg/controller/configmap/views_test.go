package configmap

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// TestDeploymentViewKeepsMountedConfig: retention reads the user-config
// volume of the Deployment's template from the cached view.
func TestDeploymentViewKeepsMountedConfig(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "team-a"}}
	d.Spec.Template.Spec.Volumes = []corev1.Volume{
		{Name: render.VolumeUserConfig, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "demo-config-abc"}}}},
		{Name: "other", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "unrelated"}}}},
	}
	out, err := controllertest.ChildViews()(d.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	protected := map[string]bool{}
	markMounted(protected, controllertest.KnownDeployment(t, out).Obj.Spec.Template.Spec.Volumes)
	if diff := cmp.Diff(map[string]bool{"demo-config-abc": true}, protected); diff != "" {
		t.Errorf("retention from the view (-want +got):\n%s", diff)
	}
}
