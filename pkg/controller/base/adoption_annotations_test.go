package base_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

func TestAdoptionAnnotationProblems(t *testing.T) {
	cases := []struct {
		name string
		s    *ogxv1beta1.OGXServer
		want []string
	}{
		{"none", controllertest.Annotated(ogxv1beta1.AnnotationAdoptStorage, "legacy", ogxv1beta1.AnnotationAdoptNetworking, "legacy"), nil},
		{"same name is worded for the condition", controllertest.Annotated(ogxv1beta1.AnnotationAdoptStorage, controllertest.Name), []string{
			ogxv1beta1.AnnotationAdoptStorage + `: value "demo" must not equal the CR name; same-name adoption causes resource conflicts`}},
		{"both annotations, storage first", controllertest.Annotated(ogxv1beta1.AnnotationAdoptNetworking, "No", ogxv1beta1.AnnotationAdoptStorage, "x_y"), []string{
			ogxv1beta1.AnnotationAdoptStorage + `: value "x_y" is not a valid RFC 1123 DNS label`,
			ogxv1beta1.AnnotationAdoptNetworking + `: value "No" is not a valid RFC 1123 DNS label`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, base.AdoptionAnnotationProblems(c.s)); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}
}

// legacyControlled is an object controlled by apiVersion/kind name uid.
func legacyControlled(apiVersion, kind, name string, uid types.UID) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "legacy-pvc", Namespace: controllertest.Namespace,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: ptr.To(true)}}}}
}

func TestLegacyOwnerCheck(t *testing.T) {
	s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
	noController := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "legacy-pvc",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: "u"}}}}
	labelled := func(instance string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "legacy-pvc",
			Labels: map[string]string{"app": "llama-stack", "app.kubernetes.io/instance": instance}}}
	}
	labelledButControlled := legacyControlled("apps/v1", "Deployment", "legacy", "u-d")
	labelledButControlled.Labels = labelled("legacy").Labels
	cases := []struct {
		name     string
		obj      metav1.Object
		conflict bool
	}{
		{"no owner and no legacy labels", &corev1.PersistentVolumeClaim{}, true},
		{"an owner that is not a controller, no legacy labels", noController, true},
		{"no owner, labelled by the legacy operator for the install", labelled("legacy"), false},
		{"no owner, labelled for another install", labelled("other"), true},
		{"legacy labels do not override a foreign controller", labelledButControlled, true},
		{"this OGXServer", legacyControlled("ogx.io/v1beta1", "OGXServer", controllertest.Name, controllertest.UID), false},
		{"the LlamaStackDistribution adopted", legacyControlled("llamastack.io/v1alpha1", base.LegacyKind, "legacy", "u-lsd"), false},
		{"another LlamaStackDistribution", legacyControlled("llamastack.io/v1alpha1", base.LegacyKind, "other", "u-lsd"), true},
		{"the same name in another group", legacyControlled("example.com/v1", base.LegacyKind, "legacy", "u-x"), true},
		{"another kind", legacyControlled("apps/v1", "Deployment", "legacy", "u-d"), true},
		{"another OGXServer", legacyControlled("ogx.io/v1beta1", "OGXServer", "other", "u-other"), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := base.LegacyOwnerCheck("PersistentVolumeClaim", c.obj, "legacy", s)
			if !c.conflict {
				if err != nil {
					t.Fatalf("want no error, got %v", err)
				}
				return
			}
			var ue *resolve.UserError
			if !errors.As(err, &ue) || ue.Reason != ogxv1beta1.ReasonChildConflict {
				t.Fatalf("want a %s user error, got %v", ogxv1beta1.ReasonChildConflict, err)
			}
		})
	}
}
