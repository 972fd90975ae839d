package controller

// The ownership guard (docs/controllers.md, Ownership guard: an object with a
// child's name owned by something else is never modified) and the admission
// re-validation of a pass (docs/controllers.md, The pass of a child
// controller, step 3), on fake clientsets.

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// agService is an existing Service named demo-service.
func agService(lbls map[string]string, owners []metav1.OwnerReference) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: sfName + "-service", Namespace: sfNamespace, Labels: lbls, OwnerReferences: owners},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: map[string]string{"app": "someone-else"},
			Ports:    []corev1.ServicePort{{Name: "web", Port: 80}},
		},
	}
}

type agCase struct {
	name     string
	existing runtime.Object
	// want is the outcome; Generation is filled in.
	want base.Outcome
	// userErr: the pass returns a user error; waiting: RequeueAfter 5s.
	userErr, waiting bool
}

func TestApplyGuardService(t *testing.T) {
	svcName := sfName + "-service"
	cases := []agCase{
		{name: "unlabelled without owner (not cached: live GET)", existing: agService(nil, nil),
			want: controllertest.Conflict("Service", svcName), userErr: true},
		{name: "labelled, controlled by a Deployment", existing: agService(controllertest.ManagedLabels(), controllertest.OwnerRefs("apps/v1", "Deployment", "x", "uid-x")),
			want: controllertest.Conflict("Service", svcName), userErr: true},
		{name: "unlabelled, controlled by another OGXServer", existing: agService(nil, controllertest.OwnerRefs(controllertest.GroupVersion, "OGXServer", "other", "uid-other")),
			want: controllertest.Conflict("Service", svcName), userErr: true},
		{name: "labelled, controlled by an OGXServer of another group", existing: agService(controllertest.ManagedLabels(), controllertest.OwnerRefs("example.com/v1", "OGXServer", sfName, "uid-old")),
			want: controllertest.Conflict("Service", svcName), userErr: true},
		{name: "labelled, controlled by an older OGXServer of the same name", existing: agService(controllertest.ManagedLabels(), controllertest.OwnerRefs(controllertest.GroupVersion, "OGXServer", sfName, "uid-old")),
			want: controllertest.WaitingForGC("Service", svcName), waiting: true},
		{name: "unlabelled, controlled by an older OGXServer of the same name (live GET)", existing: agService(nil, controllertest.OwnerRefs(controllertest.GroupVersion, "OGXServer", sfName, "uid-old")),
			want: controllertest.WaitingForGC("Service", svcName), waiting: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := controllertest.Server(sfNamespace, sfName, sfUID)
			e := newSFEnv(t, base.Options{}, []runtime.Object{tc.existing.DeepCopyObject()}, s)
			before, err := e.kube.CoreV1().Services(sfNamespace).Get(e.ctx, svcName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			e.ClearActions()
			for pass := range 2 {
				res, err := e.m.service.Sync(e.ctx, sfKey)
				switch {
				case tc.userErr && !resolve.IsUserError(err):
					t.Errorf("pass %d: err = %v, want a user error", pass, err)
				case tc.waiting && (err != nil || res.RequeueAfter != 5*time.Second):
					t.Errorf("pass %d: result %+v err %v, want requeue after 5s and no error", pass, res, err)
				}
				want := tc.want
				want.Generation = 1
				if got, _ := e.Outcome(s, "service"); got != want {
					t.Errorf("pass %d: outcome (-want +got):\n%s", pass, cmp.Diff(want, got))
				}
			}
			// A create-only apply is refused by an existing object, so it
			// is the one request allowed before the live GET; the second
			// pass knows the name is taken and only reads.
			if w := controllertest.WithoutCreateOnly(e.KubeWrites()); len(w) != 0 {
				t.Errorf("guarded Service was written:%s", controllertest.Describe(w))
			}
			if n := len(e.KubeWrites()); n > 1 {
				t.Errorf("%d create-only applies in two passes, want at most 1:%s", n, controllertest.Describe(e.KubeWrites()))
			}
			after, err := e.kube.CoreV1().Services(sfNamespace).Get(e.ctx, svcName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(before, after) {
				t.Errorf("guarded Service changed (-before +after):\n%s", cmp.Diff(before, after))
			}
		})
	}
}

// TestApplyGuardAdoptsLabelledOrphan: the one row of the guard that writes an
// object it did not create: no controller owner but our managed-by label.
func TestApplyGuardAdoptsLabelledOrphan(t *testing.T) {
	s := controllertest.Server(sfNamespace, sfName, sfUID)
	e := newSFEnv(t, base.Options{}, []runtime.Object{agService(controllertest.ManagedLabels(), nil)}, s)
	if _, err := e.m.service.Sync(e.ctx, sfKey); err != nil {
		t.Fatal(err)
	}
	w := e.KubeWrites()
	if len(w) != 1 {
		t.Fatalf("want one apply adopting the orphan, got%s", controllertest.Describe(w))
	}
	sfExpectApply(t, w[0], gvrServices, sfName+"-service")
	svc, err := e.kube.CoreV1().Services(sfNamespace).Get(e.ctx, sfName+"-service", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref := metav1.GetControllerOf(svc); ref == nil || ref.UID != sfUID {
		t.Errorf("adopted Service controller = %+v, want this OGXServer", ref)
	}
	if o, _ := e.Outcome(s, "service"); o != (base.Outcome{Generation: 1, Class: base.OutcomeOK}) {
		t.Errorf("outcome = %+v, want ok", o)
	}
}

func TestApplyGuardDeploymentChildren(t *testing.T) {
	foreignDeployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: sfName, Namespace: sfNamespace, Labels: controllertest.ManagedLabels(),
			OwnerReferences: controllertest.OwnerRefs("example.com/v1", "Pipeline", "p", "uid-p")},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](7),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "x", Image: "x"}}},
			},
		},
	}
	foreignSA := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sfName + "-sa", Namespace: sfNamespace}}
	oldIncarnation := foreignDeployment.DeepCopy()
	oldIncarnation.OwnerReferences = controllertest.OwnerRefs(controllertest.GroupVersion, "OGXServer", sfName, "uid-old")

	for _, tc := range []struct {
		name     string
		existing runtime.Object
		want     base.Outcome
		// applied are the objects written (ServiceAccount before the Deployment).
		applied []string
	}{
		{name: "foreign Deployment (storage on: no strategy patch either)", existing: foreignDeployment,
			want: controllertest.Conflict("Deployment", sfName), applied: []string{"serviceaccounts"}},
		{name: "Deployment of a previous incarnation", existing: oldIncarnation,
			want: controllertest.WaitingForGC("Deployment", sfName), applied: []string{"serviceaccounts"}},
		{name: "foreign ServiceAccount ends the pass", existing: foreignSA,
			want: controllertest.Conflict("ServiceAccount", sfName+"-sa")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := controllertest.Server(sfNamespace, sfName, sfUID, controllertest.WithStorage("1Gi"))
			e := newSFEnv(t, base.Options{}, []runtime.Object{tc.existing.DeepCopyObject()}, s)
			e.serviceDone()
			_, _ = e.m.deployment.Sync(e.ctx, sfKey)
			want := tc.want
			want.Generation = 1
			if got, _ := e.Outcome(s, "deployment"); got != want {
				t.Errorf("outcome (-want +got):\n%s", cmp.Diff(want, got))
			}
			var applied []string
			guarded := "serviceaccounts"
			if _, ok := tc.existing.(*appsv1.Deployment); ok {
				guarded = "deployments"
			}
			for _, a := range e.KubeWrites() {
				if controllertest.IsCreateOnly(a) && a.GetResource().Resource == guarded {
					continue // refused by the existing object
				}
				if a.GetVerb() != "patch" {
					t.Errorf("unexpected write %s", controllertest.ActionString(a))
					continue
				}
				applied = append(applied, a.GetResource().Resource)
			}
			if diff := cmp.Diff(tc.applied, applied); diff != "" {
				t.Errorf("written resources (-want +got):\n%s", diff)
			}
			if d, ok := tc.existing.(*appsv1.Deployment); ok {
				got, err := e.kube.AppsV1().Deployments(sfNamespace).Get(e.ctx, sfName, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if !equality.Semantic.DeepEqual(got.Spec, d.Spec) || !equality.Semantic.DeepEqual(got.OwnerReferences, d.OwnerReferences) {
					t.Errorf("guarded Deployment changed:\n%s", cmp.Diff(d.Spec, got.Spec))
				}
			}
		})
	}
}

// TestApplyGuardPVCConflict: an unlabelled claim named N-pvc (invisible to
// the label-filtered cache) makes the create fail with AlreadyExists; the
// claim is reported, never written.
func TestApplyGuardPVCConflict(t *testing.T) {
	existing := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: sfName + "-pvc", Namespace: sfNamespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("3Gi")}},
		},
	}
	s := controllertest.Server(sfNamespace, sfName, sfUID, controllertest.WithStorage(""))
	e := newSFEnv(t, base.Options{}, []runtime.Object{existing}, s)
	_, err := e.m.pvc.Sync(e.ctx, sfKey)
	if !resolve.IsUserError(err) {
		t.Errorf("err = %v, want a user error", err)
	}
	want := controllertest.Conflict("PersistentVolumeClaim", sfName+"-pvc")
	want.Generation = 1
	if got, _ := e.Outcome(s, "pvc"); got != want {
		t.Errorf("outcome (-want +got):\n%s", cmp.Diff(want, got))
	}
	for _, a := range e.KubeWrites() {
		if a.GetVerb() != "create" {
			t.Errorf("PVC conflict sent %s", controllertest.ActionString(a))
		}
	}
	got, err := e.kube.CoreV1().PersistentVolumeClaims(sfNamespace).Get(e.ctx, sfName+"-pvc", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(got.Spec, existing.Spec) || len(got.Labels) != 0 {
		t.Errorf("existing claim changed: %+v", got)
	}

	// A labelled claim that is not cached yet (AlreadyExists, then a live
	// GET finding our label) is fine: ok, no error.
	labelled := existing.DeepCopy()
	labelled.Name = "second-pvc"
	labelled.Labels = map[string]string{render.LabelManagedBy: render.ManagedByValue}
	s2 := controllertest.Server(sfNamespace, "second", "uid-second", controllertest.WithStorage(""))
	e2 := newSFEnv(t, base.Options{}, []runtime.Object{labelled}, s2)
	// Hide the claim from the cache, as if the informer had not delivered it.
	sc := e2.m.Caches.For(sfNamespace)
	if err := sc.ChildFactory.Core().V1().PersistentVolumeClaims().Informer().GetIndexer().Delete(labelled); err != nil {
		t.Fatal(err)
	}
	if _, err := e2.m.pvc.Sync(e2.ctx, caches.Key(sfNamespace, "second")); err != nil {
		t.Errorf("labelled claim missing from the cache: err %v, want nil", err)
	}
	if o, _ := e2.Outcome(s2, "pvc"); o != (base.Outcome{Generation: 1, Class: base.OutcomeOK}) {
		t.Errorf("outcome = %+v, want ok", o)
	}
}

// TestApplyGuardInvalidSpec: an OGXServer failing the admission validator is
// a user error InvalidSpec in every child controller, recorded before any
// request is sent, and status reports it as Failed.
func TestApplyGuardInvalidSpec(t *testing.T) {
	s := controllertest.Server(sfNamespace, sfName, sfUID, controllertest.WithStorage(""), func(sp *ogxv1beta1.OGXServerSpec) {
		sp.Distribution.Name = ptr.To("no-such-distribution")
	})
	e := newSFEnv(t, base.Options{}, nil, s)
	for _, c := range e.m.childControllers {
		_, err := c.Sync(e.ctx, sfKey)
		var ue *resolve.UserError
		if !errors.As(err, &ue) || ue.Reason != ogxv1beta1.ReasonInvalidSpec {
			t.Errorf("%s: err = %v, want a user error %s", c.Name(), err, ogxv1beta1.ReasonInvalidSpec)
		}
		o, _ := e.Outcome(s, c.Name())
		if o.Generation != 1 || o.Class != base.OutcomeUserError || o.Reason != ogxv1beta1.ReasonInvalidSpec ||
			!strings.Contains(o.Message, `unknown distribution "no-such-distribution"`) {
			t.Errorf("%s: outcome %+v, want InvalidSpec naming the distribution", c.Name(), o)
		}
	}
	if a := e.kube.Actions(); len(a) != 0 {
		t.Errorf("invalid spec sent requests:%s", controllertest.Describe(a))
	}

	got := e.syncStatus()
	ready := apimeta.FindStatusCondition(got.Status.Conditions, ogxv1beta1.ConditionReady)
	stalled := apimeta.FindStatusCondition(got.Status.Conditions, ogxv1beta1.ConditionStalled)
	if got.Status.Phase != ogxv1beta1.PhaseFailed || ready == nil || ready.Status != metav1.ConditionFalse ||
		ready.Reason != ogxv1beta1.ReasonInvalidSpec || stalled == nil || stalled.Status != metav1.ConditionTrue || stalled.Message != ready.Message {
		t.Fatalf("status = phase %q Ready %+v Stalled %+v, want Failed, Ready False and Stalled True with InvalidSpec", got.Status.Phase, ready, stalled)
	}
	// The first controller in the fixed order gives the reason and leads the
	// message.
	first := e.m.Board.Get(sfUID)[e.m.childControllers[0].Name()]
	if !strings.HasPrefix(ready.Message, first.Message) {
		t.Errorf("Ready message = %q, want it to start with the %s controller's %q", ready.Message, e.m.childControllers[0].Name(), first.Message)
	}
}

// TestStaleTakeoverIsTransient: when the cache is older than the stored
// object, the takeover's resourceVersion test fails with 422; that is a
// race to retry, not a user error (which would show Failed and back off).
func TestStaleTakeoverIsTransient(t *testing.T) {
	// What the API server's patch handler returns when a JSON patch
	// operation fails (the patch library's message is dropped).
	stale := apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "",
		"testing value /metadata/resourceVersion failed: test failed", 0, false)
	invalid := apierrors.NewInvalid(appsv1.SchemeGroupVersion.WithKind("Deployment").GroupKind(), "demo",
		field.ErrorList{field.Invalid(field.NewPath("metadata", "managedFields"), "x", "bad")})
	for _, tc := range []struct {
		name     string
		err      error
		wantUser bool
	}{
		{"stale resourceVersion", stale, false},
		{"another invalid patch", invalid, true},
	} {
		c := &base.DeploymentChild{Kind: "Deployment", Takeover: []string{"ogx-operator"},
			Patch: func(context.Context, string, string, []byte) (*appsv1.Deployment, error) { return nil, tc.err }}
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "ns", ResourceVersion: "5",
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "ogx-operator", Operation: metav1.ManagedFieldsOperationUpdate}}}}
		owner := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "ns"}}
		_, err := c.TakeOver(context.Background(), owner, d)
		if err == nil {
			t.Fatalf("%s: no error", tc.name)
		}
		if resolve.IsUserError(err) != tc.wantUser {
			t.Errorf("%s: user error = %v, want %v (%v)", tc.name, resolve.IsUserError(err), tc.wantUser, err)
		}
	}
}

// TestTakeoverIsJournaled: a takeover is reported in the server's next
// Event, with reason TakenOver; a failed one is not.
func TestTakeoverIsJournaled(t *testing.T) {
	owner := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "ns", UID: "u1"}}
	upstream := func() *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "ns", ResourceVersion: "5",
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "ogx-operator", Operation: metav1.ManagedFieldsOperationUpdate,
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:replicas":{}}}`)}}}}}
	}
	for _, tc := range []struct {
		name     string
		patchErr error
		want     []string
	}{
		{"taken over", nil, []string{ogxv1beta1.EventTakenOver, "Reconcile", "Took over Deployment demo"}},
		{"refused", apierrors.NewForbidden(schema.GroupResource{Resource: "deployments"}, "demo", errors.New("no")), []string{"", "", ""}},
	} {
		journal := events.NewJournal(record.New())
		c := &base.DeploymentChild{Kind: "Deployment", Takeover: []string{"ogx-operator"}, Journal: journal,
			Patch: func(_ context.Context, _, _ string, _ []byte) (*appsv1.Deployment, error) {
				if tc.patchErr != nil {
					return nil, tc.patchErr
				}
				return upstream(), nil
			}}
		_, _ = c.TakeOver(context.Background(), owner, upstream())
		reason, action, note := journal.Take(owner.UID).Summary()
		if diff := cmp.Diff(tc.want, []string{reason, action, note}); diff != "" {
			t.Errorf("%s: event (-want +got):\n%s", tc.name, diff)
		}
	}
}
