package apply

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

func TestJSONDiff(t *testing.T) {
	svc := func(port int32, selector map[string]string) *corev1ac.ServiceApplyConfiguration {
		spec := corev1ac.ServiceSpec().WithPorts(corev1ac.ServicePort().WithName("http").WithPort(port))
		if selector != nil {
			spec.WithSelector(selector)
		}
		return corev1ac.Service("s", "ns").WithSpec(spec)
	}
	cases := []struct {
		name string
		a, b any
		want string
	}{
		{name: "equal", a: svc(80, map[string]string{"app": "x"}), b: svc(80, map[string]string{"app": "x"}), want: ""},
		{name: "changed leaf", a: svc(80, nil), b: svc(8080, nil),
			want: "-.spec.ports[0].port: 80\n+.spec.ports[0].port: 8080\n"},
		{name: "added and removed map keys", a: svc(80, map[string]string{"app": "x"}), b: svc(80, map[string]string{"tier": "y"}),
			want: "-.spec.selector.app: \"x\"\n+.spec.selector.tier: \"y\"\n"},
		{name: "empty containers are leaves", a: map[string]any{"l": []any{}}, b: map[string]any{"m": map[string]any{}},
			want: "-.l: []\n+.m: {}\n"},
		{name: "scalar root", a: 1, b: "1", want: "-.: 1\n+.: \"1\"\n"},
		{name: "unencodable", a: map[string]any{"f": func() {}}, b: map[string]any{},
			want: "-.: <json: unsupported type: func()>\n+.: {}\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, jsonDiff(tc.a, tc.b)); diff != "" {
				t.Errorf("jsonDiff (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApplyDiffLoggedAtV4: at -v=4 a write logs how the stored owned fields
// differ from the desired ones (read live: the caches keep a digest only).
func TestApplyDiffLoggedAtV4(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(4), ktesting.BufferLogs(true)))
	ctx := klog.NewContext(context.Background(), logger)
	owner := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "ns", UID: "u1"}}
	stored := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "ns", ResourceVersion: "5",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "ogx.io/v1beta1", Kind: "OGXServer", Name: "demo", UID: "u1", Controller: ptr.To(true)}},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: render.FieldManager, Operation: metav1.ManagedFieldsOperationApply,
			APIVersion: "apps/v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:replicas":{}}}`)}}}},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1)}}
	reads := 0
	c := &Child[*appsv1.Deployment, *appsv1ac.DeploymentApplyConfiguration]{Kind: "Deployment",
		Live: func(context.Context, string, string) (*appsv1.Deployment, error) {
			reads++
			return stored, nil
		},
		Extract: func(d *appsv1.Deployment) (*appsv1ac.DeploymentApplyConfiguration, error) {
			return appsv1ac.ExtractDeployment(d, render.FieldManager)
		},
		SetResourceVersion: func(*appsv1ac.DeploymentApplyConfiguration, string) {},
		Apply: func(context.Context, string, *appsv1ac.DeploymentApplyConfiguration) (*appsv1.Deployment, error) {
			return stored, nil
		}}
	desired := appsv1ac.Deployment("demo", "ns").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(3))
	if res, err := c.update(ctx, owner, "demo", Known[*appsv1.Deployment]{Obj: stored}, desired, false); err != nil || res != events.Updated {
		t.Fatalf("update = %v, %v; want updated", res, err)
	}
	logs := logger.GetSink().(ktesting.Underlier).GetBuffer().String()
	if reads != 1 || !strings.Contains(logs, "Apply diff") || !strings.Contains(logs, "-.spec.replicas: 1") ||
		!strings.Contains(logs, "+.spec.replicas: 3") {
		t.Errorf("%d live reads, logs:\n%s\nwant one read and a diff from replicas 1 to 3", reads, logs)
	}

	// Below -v=4 nothing is read.
	reads = 0
	quiet := klog.NewContext(context.Background(), ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(2))))
	desired = appsv1ac.Deployment("demo", "ns").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(4))
	if _, err := c.update(quiet, owner, "demo", Known[*appsv1.Deployment]{Obj: stored}, desired, false); err != nil || reads != 0 {
		t.Errorf("at -v=2: err %v, %d live reads, want none", err, reads)
	}
}
