package e2e

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	llsdv1alpha1 "github.com/ogx-k8s/ogx-controller/pkg/apis/llamastack/v1alpha1"
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// legacyInstall creates what the llama-stack operator leaves for a
// LlamaStackDistribution named name: the LLSD itself, a running Deployment,
// a bound PVC, a Service and an Ingress, each with its labels and a
// controller owner reference to the LLSD.
func legacyInstall(t *testing.T, ns, name string) {
	t.Helper()
	kube, ogx := clients(t)
	ctx := t.Context()
	l, err := ogx.LlamastackV1alpha1().LlamaStackDistributions(ns).Create(ctx, &llsdv1alpha1.LlamaStackDistribution{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: llsdv1alpha1.LlamaStackDistributionSpec{Replicas: 1, Server: llsdv1alpha1.ServerSpec{
			Distribution: llsdv1alpha1.DistributionType{Name: "starter"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owner := []metav1.OwnerReference{{APIVersion: "llamastack.io/v1alpha1", Kind: "LlamaStackDistribution",
		Name: l.Name, UID: l.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
	labels := map[string]string{"app": "llama-stack", "app.kubernetes.io/instance": name}
	meta := func(n string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: n, Namespace: ns, Labels: labels, OwnerReferences: owner}
	}
	size := resource.MustParse("1Gi")
	if _, err := cp.CreateHostPathPV(ctx, "pv-"+ns+"-"+name, size, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: meta(name + "-pvc"),
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}}}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: meta(name),
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "llama-stack", Image: "docker.io/llamastack/distribution-starter:latest"}},
				Volumes: []corev1.Volume{{Name: "lls-storage", VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name + "-pvc"}}}}}}}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: meta(name + "-service"),
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Name: "http", Port: 8321}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pathType := networkingv1.PathTypePrefix
	if _, err := kube.NetworkingV1().Ingresses(ns).Create(ctx, &networkingv1.Ingress{ObjectMeta: meta(name + "-ingress"),
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &pathType,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: name + "-service",
					Port: networkingv1.ServiceBackendPort{Number: 8321}}}}}}}}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, 60*time.Second, "the legacy Deployment running", func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && d.Status.AvailableReplicas == 1, err
	})
}

// TestLegacyAdoption adopts a running legacy install: the legacy workload is
// scaled down and its pods are gone before the PVC is taken over and
// mounted, the Service and Ingress are re-pointed and owned, removing the
// networking annotation releases them (kept, no longer owned), and the PVC
// outlives the OGXServer.
func TestLegacyAdoption(t *testing.T) {
	ns := cp.CreateNamespace(t, "adopt")
	kube, ogx := clients(t)
	ctx := t.Context()
	legacyInstall(t, ns, "legacy")
	startController(t, ns)

	s := newServer(ns, "adopter")
	s.Annotations = map[string]string{ogxv1beta1.AnnotationAdoptStorage: "legacy", ogxv1beta1.AnnotationAdoptNetworking: "legacy"}
	size := resource.MustParse("1Gi")
	s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Storage: &ogxv1beta1.PVCStorageSpec{Size: &size}}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := waitReady(t, ogx, ns, "adopter", 2*time.Minute)
	assertCondition(t, got, "StorageAdopted", metav1.ConditionTrue, "StorageAdopted", "PVC legacy-pvc adopted")
	assertCondition(t, got, "NetworkingAdopted", metav1.ConditionTrue, "NetworkingAdopted", "Networking adopted from legacy")

	legacyD, _ := kube.AppsV1().Deployments(ns).Get(ctx, "legacy", metav1.GetOptions{})
	if legacyD.Spec.Replicas == nil || *legacyD.Spec.Replicas != 0 {
		t.Errorf("legacy Deployment replicas = %v, want 0", legacyD.Spec.Replicas)
	}
	pvc, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "legacy-pvc", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pvc.Labels["ogx.io/adopted-from"] != "legacy" || pvc.Labels["app.kubernetes.io/instance"] != "adopter" ||
		metav1.GetControllerOf(pvc) != nil || pvc.Annotations["ogx.io/adopted-at"] == "" {
		t.Errorf("adopted PVC metadata = labels %v owners %v annotations %v", pvc.Labels, pvc.OwnerReferences, pvc.Annotations)
	}
	d, _ := kube.AppsV1().Deployments(ns).Get(ctx, "adopter", metav1.GetOptions{})
	if v := d.Spec.Template.Spec.Volumes[0]; v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != "legacy-pvc" {
		t.Errorf("storage volume = %+v, want the adopted legacy-pvc", v)
	}
	if _, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "adopter-pvc", metav1.GetOptions{}); err == nil {
		t.Errorf("a fresh adopter-pvc was created next to the adopted one")
	}
	svc, _ := kube.CoreV1().Services(ns).Get(ctx, "legacy-service", metav1.GetOptions{})
	if svc.Spec.Selector["app.kubernetes.io/instance"] != "adopter" || svc.Spec.Selector["app"] != "ogx" || len(svc.Spec.Selector) != 2 {
		t.Errorf("adopted Service selector = %v", svc.Spec.Selector)
	}
	if ref := metav1.GetControllerOf(svc); ref == nil || ref.Name != "adopter" {
		t.Errorf("adopted Service owner = %v", ref)
	}
	ing, _ := kube.NetworkingV1().Ingresses(ns).Get(ctx, "legacy-ingress", metav1.GetOptions{})
	if ref := metav1.GetControllerOf(ing); ref == nil || ref.Name != "adopter" {
		t.Errorf("adopted Ingress owner = %v", ref)
	}

	// Removing the networking annotation releases the adopted Service and
	// Ingress: they stay, no longer owned or labelled by us.
	updateServer(t, ogx, ns, "adopter", func(cur *ogxv1beta1.OGXServer) {
		delete(cur.Annotations, ogxv1beta1.AnnotationAdoptNetworking)
	})
	released := func(o metav1.Object) bool {
		for _, r := range o.GetOwnerReferences() {
			if r.Name == "adopter" {
				return false
			}
		}
		return o.GetLabels()["ogx.io/adopted-from"] == "" && o.GetAnnotations()["ogx.io/adopted-at"] == ""
	}
	framework.Poll(t, 30*time.Second, "legacy-service and legacy-ingress kept and no longer owned", func(ctx context.Context) (bool, error) {
		svc, err := kube.CoreV1().Services(ns).Get(ctx, "legacy-service", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		ing, err := kube.NetworkingV1().Ingresses(ns).Get(ctx, "legacy-ingress", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return released(svc) && released(ing), nil
	})
	waitCondition(t, ogx, ns, "adopter", "NetworkingAdopted", "AdoptionAnnotationRemoved", "Adoption annotation removed")

	// The PVC outlives the OGXServer.
	if err := ogx.OgxV1beta1().OGXServers(ns).Delete(ctx, "adopter", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, 90*time.Second, "Deployment adopter", func(ctx context.Context) error {
		_, err := kube.AppsV1().Deployments(ns).Get(ctx, "adopter", metav1.GetOptions{})
		return err
	})
	if _, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "legacy-pvc", metav1.GetOptions{}); err != nil {
		t.Errorf("adopted PVC after the OGXServer was deleted: %v", err)
	}
}

// TestAdoptionRefusesForeignOwner: a PVC controlled by something other than
// the LlamaStackDistribution being adopted is a clear error, not a takeover.
func TestAdoptionRefusesForeignOwner(t *testing.T) {
	ns := cp.CreateNamespace(t, "foreign")
	kube, ogx := clients(t)
	ctx := t.Context()
	owner, err := kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "someone", Namespace: ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	size := resource.MustParse("1Gi")
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "other-pvc", Namespace: ns,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, Controller: ptr.To(true)}}},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}}}}
	if _, err := kube.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	startController(t, ns)
	s := newServer(ns, "grabber")
	s.Annotations = map[string]string{ogxv1beta1.AnnotationAdoptStorage: "other"}
	s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Storage: &ogxv1beta1.PVCStorageSpec{Size: &size}}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, ogx, ns, "grabber", "Ready", "ChildConflict", "failed to adopt other-pvc: unexpected controller owner ConfigMap/someone")
	got, _ := kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "other-pvc", metav1.GetOptions{})
	if got.ResourceVersion != pvc.ResourceVersion && (got.Labels["ogx.io/adopted-from"] != "" || metav1.GetControllerOf(got).Name != "someone") {
		t.Errorf("the foreign PVC was modified: labels %v owners %v", got.Labels, got.OwnerReferences)
	}
}

// TestAdoptionRefusesUnprovenObjects: a Deployment and a Service that only
// have a legacy install's names, neither owned by a LlamaStackDistribution
// nor labelled by the legacy operator, are neither scaled nor re-pointed;
// each refusal is a Warning.
func TestAdoptionRefusesUnprovenObjects(t *testing.T) {
	ns := cp.CreateNamespace(t, "unproven")
	kube, ogx := clients(t)
	ctx := t.Context()
	size := resource.MustParse("1Gi")
	// The PVC proves it is the legacy install's, so the adoption reaches the
	// Deployment.
	if _, err := kube.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
		Name: "payments-pvc", Namespace: ns, Labels: map[string]string{"app": "llama-stack", "app.kubernetes.io/instance": "payments"}},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}}}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	own := map[string]string{"team": "payments"}
	if _, err := kube.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "payments", Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: own},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: own}, Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "app", Image: "registry.example/payments:1"}}}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc, err := kube.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "payments-service", Namespace: ns},
		Spec: corev1.ServiceSpec{Selector: own, Ports: []corev1.ServicePort{{Name: "http", Port: 8080}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	startController(t, ns)
	s := newServer(ns, "grabber")
	s.Annotations = map[string]string{ogxv1beta1.AnnotationAdoptStorage: "payments", ogxv1beta1.AnnotationAdoptNetworking: "payments"}
	s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Storage: &ogxv1beta1.PVCStorageSpec{Size: &size}}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, kube, ns, "grabber", "ChildConflict", "failed to adopt Deployment payments: not part of the legacy install payments")
	waitEvent(t, kube, ns, "grabber", "ChildConflict", "failed to adopt Service payments-service: not part of the legacy install payments")
	for _, e := range eventsOf(t, kube, ns, "grabber", "ChildConflict") {
		if e.Type != corev1.EventTypeWarning {
			t.Errorf("ChildConflict Event of type %s, want Warning: %s", e.Type, e.Note)
		}
	}
	d, err := kube.AppsV1().Deployments(ns).Get(ctx, "payments", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
		t.Errorf("the unproven Deployment was scaled to %v", d.Spec.Replicas)
	}
	got, err := kube.CoreV1().Services(ns).Get(ctx, "payments-service", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != svc.ResourceVersion {
		t.Errorf("the unproven Service was modified: selector %v owners %v labels %v", got.Spec.Selector, got.OwnerReferences, got.Labels)
	}
}

// assertCondition checks one condition of an OGXServer.
func assertCondition(t *testing.T, s *ogxv1beta1.OGXServer, typ string, status metav1.ConditionStatus, reason, message string) {
	t.Helper()
	for _, c := range s.Status.Conditions {
		if c.Type == typ {
			if c.Status != status || c.Reason != reason || c.Message != message {
				t.Errorf("condition %s = %s %s %q, want %s %s %q", typ, c.Status, c.Reason, c.Message, status, reason, message)
			}
			return
		}
	}
	t.Errorf("condition %s missing", typ)
}
