package caches

import (
	"context"
	"crypto/sha256"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

func testViews() childView {
	return childView{fields: newManagedFieldsFilter(
		render.OwnFieldManagers(), []string{"ogx-operator"}), share: &sharing{}}
}

func viewDeploymentAC(image string, replicas *int32) *appsv1ac.DeploymentApplyConfiguration {
	spec := appsv1ac.DeploymentSpec().
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "ogx"})).
		WithTemplate(corev1ac.PodTemplateSpec().
			WithLabels(map[string]string{"app": "ogx"}).
			WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("ogx").WithImage(image))))
	if replicas != nil {
		spec.WithReplicas(*replicas)
	}
	return appsv1ac.Deployment("demo", "team-a").
		WithLabels(map[string]string{render.LabelManagedBy: render.ManagedByValue}).
		WithOwnerReferences(metav1ac.OwnerReference().WithAPIVersion("ogx.io/v1beta1").WithKind("OGXServer").
			WithName("demo").WithUID("u1").WithController(true)).
		WithSpec(spec)
}

// TestChildViewDeployment: a cached Deployment keeps what its readers use
// and, as a digest, what the applier compares; a change another manager
// makes to a field we own changes the digest, so it is corrected.
func TestChildViewDeployment(t *testing.T) {
	ctx := context.Background()
	kube := kubefake.NewClientset()
	deployments := kube.AppsV1().Deployments("team-a")
	desired := viewDeploymentAC("img:1", func() *int32 { v := int32(2); return &v }())
	if _, err := deployments.Apply(ctx, desired, apply.ApplyOptions()); err != nil {
		t.Fatal(err)
	}
	d, err := deployments.Get(ctx, "demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Status = appsv1.DeploymentStatus{AvailableReplicas: 2, ObservedGeneration: 1}
	d.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType
	d.Annotations = map[string]string{"keep": "me"}
	d.ManagedFields = append(d.ManagedFields, metav1.ManagedFieldsEntry{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status"})

	out, err := testViews().transform(d.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	cached := knownDeployment(t, out)
	view := cached.Obj
	want, _ := apply.DigestOf(desired)
	if got := cached.Digest; got != want {
		t.Errorf("view digest %q, want the digest of what was applied %q", got, want)
	}
	wholeOwned, err := appsv1ac.ExtractDeployment(d, render.FieldManager)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := apply.DigestOf(wholeOwned); err != nil || got != want {
		t.Errorf("digest of the whole object %q (%v), want %q", got, err, want)
	}
	if len(view.Spec.Template.Spec.Containers) != 0 || view.Spec.Selector != nil {
		t.Errorf("view keeps the pod template or selector: %+v", view.Spec)
	}
	if *view.Spec.Replicas != 2 || view.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType ||
		view.Status.AvailableReplicas != 2 || view.Name != "demo" || metav1.GetControllerOfNoCopy(view).UID != "u1" {
		t.Errorf("view lost what its readers use: %+v", view)
	}
	if view.Annotations["keep"] != "me" {
		t.Errorf("view lost an annotation: %v", view.Annotations)
	}
	// Our manager's entry without its field set.
	if diff := cmp.Diff([]string{render.FieldManager}, managersOf(view.ManagedFields)); diff != "" {
		t.Errorf("managers (-want +got):\n%s", diff)
	}
	for _, e := range view.ManagedFields {
		if e.FieldsV1 != nil {
			t.Errorf("view keeps the field set of %s", e.Manager)
		}
	}
	if owns, err := OwnsReplicas(cached); err != nil || !owns {
		t.Errorf("ownsReplicas(view) = %v, %v; want true", owns, err)
	}

	// Another manager changes the image: it takes the field from us, and
	// the view's digest no longer matches what we would apply.
	d.Spec.Template.Spec.Containers[0].Image = "img:2"
	changed, err := deployments.Update(ctx, d, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
	if err != nil {
		t.Fatal(err)
	}
	out, _ = testViews().transform(changed.DeepCopy())
	if got := knownDeployment(t, out).Digest; got == want {
		t.Error("a foreign change to an owned field left the digest unchanged")
	}

	// Applied without replicas, we no longer own them.
	if _, err := deployments.Apply(ctx, viewDeploymentAC("img:1", nil), apply.ApplyOptions()); err != nil {
		t.Fatal(err)
	}
	d, _ = deployments.Get(ctx, "demo", metav1.GetOptions{})
	out, _ = testViews().transform(d.DeepCopy())
	if owns, err := OwnsReplicas(knownDeployment(t, out)); err != nil || owns {
		t.Errorf("ownsReplicas after dropping replicas = %v, %v; want false", owns, err)
	}
	if owns, err := OwnsReplicas(apply.Known[*appsv1.Deployment]{Obj: d}); err != nil || owns {
		t.Errorf("ownsReplicas(whole) after dropping replicas = %v, %v; want false", owns, err)
	}
}

// knownDeployment reads a cache entry of the Deployment cache as the
// applier does.
func knownDeployment(t *testing.T, entry any) apply.Known[*appsv1.Deployment] {
	t.Helper()
	k, err := apply.KnownOf[*appsv1.Deployment]("Deployment", entry)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestViewWithoutAnnotationsHasNoMap: the digest is not an annotation, so a
// child without annotations is cached without a map.
func TestViewWithoutAnnotationsHasNoMap(t *testing.T) {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "ns", Labels: map[string]string{"a": "b"}}}
	out, err := testViews().transform(sa)
	if err != nil {
		t.Fatal(err)
	}
	v := out.(*apply.CachedChild)
	if a := v.Meta.GetAnnotations(); a != nil {
		t.Errorf("annotations %v", a)
	}
	if v.OwnedDigest.IsZero() {
		t.Errorf("no digest")
	}
}

// TestChildViewTakeoverKeepsWhole: the takeover patch needs every entry and
// every field set, so an object the upstream operator manages is cached
// whole.
func TestChildViewTakeoverKeepsWhole(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "demo", ManagedFields: []metav1.ManagedFieldsEntry{
		{Manager: "ogx-operator", Operation: metav1.ManagedFieldsOperationUpdate, FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}},
		{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate},
	}}}
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "ogx", Image: "img"}}
	want := d.DeepCopy()
	out, err := testViews().transform(d)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, out.(*apply.CachedChild).Typed()); diff != "" {
		t.Errorf("object with a takeover entry changed (-want +got):\n%s", diff)
	}
	if d := out.(*apply.CachedChild).OwnedDigest; !d.IsZero() {
		t.Errorf("a whole object carries a digest %q", d)
	}
}

// TestChildViewOtherKinds: Services, and NetworkPolicies as a kind a
// controller package adds (ViewOf), are cached as digests too, and the
// digest is the one of what was applied.
func TestChildViewOtherKinds(t *testing.T) {
	ctx := context.Background()
	kube := kubefake.NewClientset()
	owner := metav1ac.OwnerReference().WithAPIVersion("ogx.io/v1beta1").WithKind("OGXServer").
		WithName("demo").WithUID("u1").WithController(true)
	svcAC := corev1ac.Service("demo-service", "team-a").WithOwnerReferences(owner).
		WithSpec(corev1ac.ServiceSpec().WithSelector(map[string]string{"app": "ogx"}).
			WithPorts(corev1ac.ServicePort().WithName("http").WithPort(8321)))
	if _, err := kube.CoreV1().Services("team-a").Apply(ctx, svcAC, apply.ApplyOptions()); err != nil {
		t.Fatal(err)
	}
	svc, _ := kube.CoreV1().Services("team-a").Get(ctx, "demo-service", metav1.GetOptions{})
	npAC := networkingv1ac.NetworkPolicy("demo-network-policy", "team-a").WithOwnerReferences(owner).
		WithSpec(networkingv1ac.NetworkPolicySpec().WithPodSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "ogx"})))
	if _, err := kube.NetworkingV1().NetworkPolicies("team-a").Apply(ctx, npAC, apply.ApplyOptions()); err != nil {
		t.Fatal(err)
	}
	np, _ := kube.NetworkingV1().NetworkPolicies("team-a").Get(ctx, "demo-network-policy", metav1.GetOptions{})

	views := testViews()
	npView := ViewOf(networkingv1ac.ExtractNetworkPolicy)
	views.kinds = map[reflect.Type]KindView{npView.typ: npView}
	for _, tc := range []struct {
		name    string
		obj     metav1.Object
		desired any
		spec    func(any) bool
	}{
		{"Service", svc, svcAC, func(o any) bool { return len(o.(*apply.CachedChild).Typed().(*corev1.Service).Spec.Ports) == 0 }},
		{"NetworkPolicy", np, npAC, func(o any) bool {
			return o.(*apply.CachedChild).Typed().(*networkingv1.NetworkPolicy).Spec.PodSelector.MatchLabels == nil
		}},
	} {
		out, err := views.transform(tc.obj)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := apply.DigestOf(tc.desired)
		if got := out.(*apply.CachedChild).OwnedDigest; got != want {
			t.Errorf("%s: view digest %q, want %q", tc.name, got, want)
		}
		if !tc.spec(out) {
			t.Errorf("%s: view keeps the spec", tc.name)
		}
		if got := out.(*apply.CachedChild).Typed(); got.GetName() != tc.obj.GetName() || metav1.GetControllerOfNoCopy(got).UID != "u1" {
			t.Errorf("%s: the typed object of the view lost its metadata: %+v", tc.name, got)
		}
		// Each read is an object of its own: what one reader sets on it
		// reaches neither the view nor the next read.
		first := out.(*apply.CachedChild).Typed()
		first.SetName("changed")
		first.SetGeneration(7)
		if np, ok := first.(*networkingv1.NetworkPolicy); ok {
			np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}
		}
		if again := out.(*apply.CachedChild).Typed(); again.GetName() != tc.obj.GetName() || again.GetGeneration() == 7 || !tc.spec(out) {
			t.Errorf("%s: a change to one read reached the next: %+v", tc.name, again)
		}
		if np, ok := out.(*apply.CachedChild).Typed().(*networkingv1.NetworkPolicy); ok && np.Spec.PolicyTypes != nil {
			t.Errorf("%s: a change to one read's spec reached the next read", tc.name)
		}
		// client-go may run the transform on its own output again (the
		// streaming list of WatchListClient does): the view must survive.
		again, err := views.transform(out)
		if err != nil {
			t.Fatal(err)
		}
		if again != out {
			t.Errorf("%s: a second transform replaced the view", tc.name)
		}
		if got := again.(*apply.CachedChild).OwnedDigest; got != want {
			t.Errorf("%s: view digest after a second transform %q, want %q", tc.name, got, want)
		}
	}
}

// TestTakeoverPendingMatchesTakeover: only entries the takeover merges keep
// an object whole; a status writer named like a takeover manager does not.
func TestTakeoverPendingMatchesTakeover(t *testing.T) {
	f := newManagedFieldsFilter([]string{render.FieldManager}, []string{"manager"})
	entry := func(sub string, op metav1.ManagedFieldsOperationType) metav1.Object {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "manager", Subresource: sub, Operation: op}}}}
	}
	for _, tc := range []struct {
		obj         metav1.Object
		subresource string
		want        bool
	}{
		{entry("", metav1.ManagedFieldsOperationUpdate), "", true},
		{entry("", metav1.ManagedFieldsOperationApply), "", true},
		{entry("status", metav1.ManagedFieldsOperationUpdate), "", false},
		{entry("status", metav1.ManagedFieldsOperationUpdate), "status", true},
		{entry("", metav1.ManagedFieldsOperationUpdate), "status", false},
	} {
		if got := f.takeoverPending(tc.obj, tc.subresource); got != tc.want {
			e := tc.obj.GetManagedFields()[0]
			t.Errorf("entry %s/%q, takeover of %q: pending = %v, want %v", e.Operation, e.Subresource, tc.subresource, got, tc.want)
		}
	}
}

// TestChildViewKnowsOurWrites: the object one of our writes returned is
// cached with the digest that write sent, without extracting (KnowWrites),
// for every kind, with a Deployment's ownership of spec.replicas read from
// its field set, and marked as our write's (OwnWrite); any other version
// of it is extracted, and not so marked.
func TestChildViewKnowsOurWrites(t *testing.T) {
	ctx := context.Background()
	kube := kubefake.NewClientset()
	owner := metav1ac.OwnerReference().WithAPIVersion("ogx.io/v1beta1").WithKind("OGXServer").
		WithName("demo").WithUID("u1").WithController(true)
	saAC := corev1ac.ServiceAccount("demo-sa", "team-a").WithOwnerReferences(owner)
	sa, err := kube.CoreV1().ServiceAccounts("team-a").Apply(ctx, saAC, apply.ApplyOptions())
	if err != nil {
		t.Fatal(err)
	}
	npAC := networkingv1ac.NetworkPolicy("demo-network-policy", "team-a").WithOwnerReferences(owner).
		WithSpec(networkingv1ac.NetworkPolicySpec().WithPodSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "ogx"})))
	np, err := kube.NetworkingV1().NetworkPolicies("team-a").Apply(ctx, npAC, apply.ApplyOptions())
	if err != nil {
		t.Fatal(err)
	}
	two := int32(2)
	scaled := viewDeploymentAC("img:1", &two)
	withReplicas, err := kube.AppsV1().Deployments("team-a").Apply(ctx, scaled, apply.ApplyOptions())
	if err != nil {
		t.Fatal(err)
	}
	unscaled := viewDeploymentAC("img:1", nil)
	other := "other"
	unscaled.Name = &other
	withoutReplicas, err := kube.AppsV1().Deployments("team-a").Apply(ctx, unscaled, apply.ApplyOptions())
	if err != nil {
		t.Fatal(err)
	}

	// The fake stores no resourceVersion; an API server's answer has one.
	for i, o := range []metav1.Object{sa, np, withReplicas, withoutReplicas} {
		o.SetResourceVersion(fmt.Sprint(10 + i))
	}
	c := NewCaches(kube, ogxfake.NewSimpleClientset(), []string{"team-a"}, "ogx-system", render.OwnFieldManagers(), nil)
	npView := ViewOf(networkingv1ac.ExtractNetworkPolicy)
	c.kinds[npView.typ] = npView
	sas, nps, deployments := apply.NewRecentWrites[*corev1.ServiceAccount](), apply.NewRecentWrites[*networkingv1.NetworkPolicy](),
		apply.NewRecentWrites[*appsv1.Deployment]()
	KnowWrites(c, sas)
	KnowWrites(c, nps)
	KnowWrites(c, deployments)
	sas.Remember(sa, testDigest("sent-sa"))
	nps.Remember(np, testDigest("sent-np"))
	deployments.Remember(withReplicas, testDigest("sent-scaled"))
	deployments.Remember(withoutReplicas, testDigest("sent-unscaled"))

	for _, tc := range []struct {
		name         string
		obj          apply.ChildObject
		desired      any
		sent         apply.Digest
		ownsReplicas bool
	}{
		{"ServiceAccount", sa, saAC, testDigest("sent-sa"), false},
		{"NetworkPolicy", np, npAC, testDigest("sent-np"), false},
		{"Deployment with replicas", withReplicas, scaled, testDigest("sent-scaled"), true},
		{"Deployment without replicas", withoutReplicas, unscaled, testDigest("sent-unscaled"), false},
	} {
		transform := c.ChildTransform()
		out, err := transform(tc.obj.DeepCopyObject())
		if err != nil {
			t.Fatal(err)
		}
		got := out.(*apply.CachedChild)
		if got.OwnedDigest != tc.sent || got.OwnsReplicas != tc.ownsReplicas || !got.OwnWrite {
			t.Errorf("%s, our write's answer: digest %q, owns replicas %v, own write %v; want %q, %v, true", tc.name, got.OwnedDigest, got.OwnsReplicas, got.OwnWrite, tc.sent, tc.ownsReplicas)
		}
		// Another version of the object is extracted.
		later := tc.obj.DeepCopyObject().(apply.ChildObject)
		later.SetResourceVersion(later.GetResourceVersion() + "0")
		out, err = transform(later)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := apply.DigestOf(tc.desired)
		if got := out.(*apply.CachedChild); got.OwnedDigest != want || got.OwnsReplicas != tc.ownsReplicas || got.OwnWrite {
			t.Errorf("%s, a later version: digest %q, owns replicas %v, own write %v; want the extracted %q, %v, false", tc.name, got.OwnedDigest, got.OwnsReplicas, got.OwnWrite, want, tc.ownsReplicas)
		}
	}
}

// TestChildViewExtractsWhenTheFieldSetIsUnreadable: with a sent digest
// but a field set it cannot read, the Deployment's view does not claim the
// replica count is not ours; it extracts, and an object whose fields
// cannot be extracted is cached whole.
func TestChildViewExtractsWhenTheFieldSetIsUnreadable(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "team-a", UID: "u", ResourceVersion: "7",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: render.FieldManager, Operation: metav1.ManagedFieldsOperationApply,
			APIVersion: "apps/v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":"unreadable"}`)}}}}}
	views := testViews()
	deployments := apply.NewRecentWrites[*appsv1.Deployment]()
	deployments.Remember(d.DeepCopy(), testDigest("sent"))
	views.sent = map[reflect.Type]func(metav1.Object) apply.Digest{reflect.TypeFor[*appsv1.Deployment](): deployments.SentFor}
	out, err := views.transform(d)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*apply.CachedChild); !got.OwnedDigest.IsZero() {
		t.Errorf("digest %q from an unreadable field set, want the object cached whole", got.OwnedDigest)
	}
}

// testDigest is a digest standing for what a write sent.
func testDigest(s string) apply.Digest { return sha256.Sum256([]byte(s)) }

// TestChildViewCreditsACreateInFlight: while our create of a name is in
// flight, its event is cached with the digest the create sent and as our
// write; a version another manager has written to is extracted, although
// the cache keeps only our managers' entries.
func TestChildViewCreditsACreateInFlight(t *testing.T) {
	c := NewCaches(kubefake.NewClientset(), ogxfake.NewSimpleClientset(), []string{"team-a"}, "ogx-system", render.OwnFieldManagers(), nil)
	sas := apply.NewRecentWrites[*corev1.ServiceAccount]()
	KnowWrites(c, sas)
	sas.Creating("team-a", "demo-sa", testDigest("create"))
	ours := metav1.ManagedFieldsEntry{Manager: render.FieldManager, Operation: metav1.ManagedFieldsOperationApply,
		APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:l":{}}}}`)}}
	kubectl := metav1.ManagedFieldsEntry{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate,
		APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:l":{}}}}`)}}
	sa := func(entries ...metav1.ManagedFieldsEntry) *corev1.ServiceAccount {
		return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "demo-sa", UID: "u", ResourceVersion: "3",
			Labels: map[string]string{"l": "x"}, ManagedFields: entries}}
	}
	extracted, err := apply.DigestOf(corev1ac.ServiceAccount("demo-sa", "team-a").WithLabels(map[string]string{"l": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		obj    *corev1.ServiceAccount
		digest apply.Digest
		own    bool
	}{
		{"only ours", sa(ours), testDigest("create"), true},
		{"another manager's too", sa(ours, kubectl), extracted, false},
	} {
		out, err := c.ChildTransform()(tc.obj)
		if err != nil {
			t.Fatal(err)
		}
		if got := out.(*apply.CachedChild); got.OwnedDigest != tc.digest || got.OwnWrite != tc.own {
			t.Errorf("%s: digest %q, own write %v; want %q, %v", tc.name, got.OwnedDigest, got.OwnWrite, tc.digest, tc.own)
		}
	}
}
