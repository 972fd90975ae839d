package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// The legacy resource that adoption takes over.
const (
	LegacyGroup = "llamastack.io"
	LegacyKind  = "LlamaStackDistribution"
)

// AdoptionAnnotationProblems words each A4/A5 failure of the adoption
// annotations for the AdoptionConfigInvalid condition and the
// AdoptionInvalid Event: "<annotation>: value "<v>" ..."
// (docs/controllers.md, Annotation validation).
func AdoptionAnnotationProblems(s *ogxv1beta1.OGXServer) []string {
	var problems []string
	for _, e := range validation.ValidateAdoption(s) {
		annotation := strings.TrimSuffix(strings.TrimPrefix(e.Field, "metadata.annotations["), "]")
		detail := e.Detail
		if strings.HasPrefix(detail, "adoption annotation value must not equal the CR name") {
			detail = fmt.Sprintf("value %q must not equal the CR name; same-name adoption causes resource conflicts", fmt.Sprint(e.BadValue))
		}
		problems = append(problems, annotation+": "+detail)
	}
	return problems
}

// LegacyOwnerCheck reports whether obj has no controller owner, or only the
// LlamaStackDistribution being adopted, or this OGXServer; anything else is
// a clear error rather than a takeover.
func LegacyOwnerCheck(obj metav1.Object, legacy string, s *ogxv1beta1.OGXServer) error {
	ref := metav1.GetControllerOfNoCopy(obj)
	if ref == nil || ref.UID == s.UID {
		return nil
	}
	gv, _ := schema.ParseGroupVersion(ref.APIVersion)
	if gv.Group == LegacyGroup && ref.Kind == LegacyKind && ref.Name == legacy {
		return nil
	}
	return resolve.NewUserError(ogxv1beta1.ReasonChildConflict, "failed to adopt %s: unexpected controller owner %s/%s", obj.GetName(), ref.Kind, ref.Name)
}

// WithoutControllerRefs keeps the owner references that are not
// controllers: a merge patch replaces the list whole.
func WithoutControllerRefs(refs []metav1.OwnerReference) []metav1.OwnerReference {
	out := []metav1.OwnerReference{}
	for _, r := range refs {
		if r.Controller == nil || !*r.Controller {
			out = append(out, r)
		}
	}
	return out
}

// OwnerRefOf is the controller owner reference of an OGXServer.
func OwnerRefOf(s *ogxv1beta1.OGXServer) metav1.OwnerReference {
	t := true
	return metav1.OwnerReference{APIVersion: ogxv1beta1.SchemeGroupVersion.String(), Kind: "OGXServer",
		Name: s.Name, UID: s.UID, Controller: &t, BlockOwnerDeletion: &t}
}

// MergePatch marshals a merge patch with a resourceVersion precondition.
func MergePatch(resourceVersion string, body map[string]any) ([]byte, error) {
	md, _ := body["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		body["metadata"] = md
	}
	md["resourceVersion"] = resourceVersion
	return json.Marshal(body)
}

func AdoptedAt(now time.Time) string { return now.UTC().Format(time.RFC3339) }

// storageAdoption runs the storage adoption of the pvc controller
// (docs/controllers.md, Storage adoption). It returns the conditions to show
// and an error (worker.WaitingError while legacy pods run).
func (c *PVCController) storageAdoption(ctx context.Context, s *ogxv1beta1.OGXServer, legacy string) ([]metav1.Condition, error) {
	pvcName := render.PVCName(legacy)
	pvcs := c.kube.CoreV1().PersistentVolumeClaims(s.Namespace)
	pvc, err := pvcs.Get(ctx, pvcName, metav1.GetOptions{})
	if err == nil || apierrors.IsNotFound(err) {
		c.events.WarnWhile(s, "AdoptionSourceNotFound", fmt.Sprintf("PVC %s (%s) not found", pvcName, ogxv1beta1.AnnotationAdoptStorage),
			apierrors.IsNotFound(err))
	}
	if apierrors.IsNotFound(err) {
		return []metav1.Condition{{Type: ogxv1beta1.ConditionStorageReady, Status: metav1.ConditionFalse, Reason: ogxv1beta1.ReasonStorageFailed,
			Message: fmt.Sprintf("PVC %s (%s) not found", pvcName, ogxv1beta1.AnnotationAdoptStorage)}}, nil
	}
	if err != nil {
		return nil, err
	}
	adopted := []metav1.Condition{{Type: ogxv1beta1.ConditionStorageAdopted, Status: metav1.ConditionTrue, Reason: ogxv1beta1.ReasonStorageAdopted,
		Message: fmt.Sprintf("PVC %s adopted", pvcName)}}
	if pvc.Labels[render.LabelAdoptedFrom] == legacy {
		c.events.While(s, corev1.EventTypeNormal, EventAdoptionWaiting, legacy, "", false)
		return adopted, nil
	}
	if err := LegacyOwnerCheck(pvc, legacy, s); err != nil {
		return nil, err
	}
	// Scale the legacy workload down and wait for its pods to be gone: our
	// pods never mount a volume legacy pods still use.
	if err := c.scaleDownLegacy(ctx, s, legacy); err != nil {
		return nil, err
	}
	if waiting, err := c.legacyPodsRunning(ctx, s, legacy); waiting != nil || err != nil {
		return waiting, err
	}
	patch, err := MergePatch(pvc.ResourceVersion, map[string]any{"metadata": map[string]any{
		"ownerReferences": WithoutControllerRefs(pvc.OwnerReferences),
		"labels": map[string]string{render.LabelAdoptedFrom: legacy, render.LabelInstance: s.Name,
			render.LabelManagedBy: render.ManagedByValue},
		"annotations": map[string]string{render.AnnotationAdoptedAt: AdoptedAt(time.Now())},
	}})
	if err != nil {
		return nil, err
	}
	if _, err := pvcs.Patch(ctx, pvcName, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: render.FieldManager}); err != nil {
		return nil, apply.ClassifyWriteError("PersistentVolumeClaim", pvcName, err)
	}
	c.events.Normal(s, "StorageAdopted", fmt.Sprintf("PVC %s adopted", pvcName))
	return adopted, nil
}

// scaleDownLegacy scales the legacy Deployment to zero replicas, if it
// exists and is not there yet.
func (c *PVCController) scaleDownLegacy(ctx context.Context, s *ogxv1beta1.OGXServer, legacy string) error {
	d, err := c.kube.AppsV1().Deployments(s.Namespace).Get(ctx, legacy, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	case d.Spec.Replicas != nil && *d.Spec.Replicas == 0:
		return nil
	}
	patch, _ := MergePatch(d.ResourceVersion, map[string]any{"spec": map[string]any{"replicas": 0}})
	if _, err := c.kube.AppsV1().Deployments(s.Namespace).Patch(ctx, legacy, types.MergePatchType, patch,
		metav1.PatchOptions{FieldManager: render.FieldManager}); err != nil {
		return apply.ClassifyWriteError("Deployment", legacy, err)
	}
	c.events.Normal(s, "LegacyScaledDown", fmt.Sprintf("Scaled legacy Deployment %s to 0 replicas", legacy))
	return nil
}

// legacyPodsRunning returns, while pods of the legacy instance still run,
// the StorageAdopted condition in progress and a worker.WaitingError; nil, nil
// once they are gone.
func (c *PVCController) legacyPodsRunning(ctx context.Context, s *ogxv1beta1.OGXServer, legacy string) ([]metav1.Condition, error) {
	pods, err := c.kube.CoreV1().Pods(s.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{render.LabelInstance: legacy}).String()})
	if err != nil {
		return nil, err
	}
	n := len(pods.Items)
	msg := fmt.Sprintf("waiting for %d legacy pods of %s to terminate", n, legacy)
	// One Event per wait, not one per pass or per change of the count.
	c.events.While(s, corev1.EventTypeNormal, EventAdoptionWaiting, legacy, msg, n > 0)
	if n == 0 {
		return nil, nil
	}
	return []metav1.Condition{{Type: ogxv1beta1.ConditionStorageAdopted, Status: metav1.ConditionFalse,
			Reason: ogxv1beta1.ReasonAdoptionInProgress, Message: msg}},
		&worker.WaitingError{Reason: ogxv1beta1.ReasonAdoptionInProgress, Message: msg}
}

// adoptedPVCs lists, from the adopted-PVC cache, the PVCs labelled as
// adopted for this instance and adds the managed-by label to any that lack
// it (adopted by the upstream operator), so the child cache sees them too.
func (c *PVCController) adoptedPVCs(ctx context.Context, s *ogxv1beta1.OGXServer) ([]string, error) {
	list, err := CachedAdoptedPVCs(c.caches, s.Namespace, s.Name)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range list {
		names = append(names, p.Name)
		if p.Labels[render.LabelManagedBy] == render.ManagedByValue {
			continue
		}
		patch, _ := MergePatch(p.ResourceVersion, map[string]any{"metadata": map[string]any{
			"labels": map[string]string{render.LabelManagedBy: render.ManagedByValue}}})
		if _, err := c.kube.CoreV1().PersistentVolumeClaims(s.Namespace).Patch(ctx, p.Name, types.MergePatchType, patch,
			metav1.PatchOptions{FieldManager: render.FieldManager}); err != nil {
			return nil, apply.ClassifyWriteError("PersistentVolumeClaim", p.Name, err)
		}
	}
	sort.Strings(names)
	return names, nil
}

// CachedAdoptedPVCs are the PVCs of the adopted-PVC cache labelled as
// adopted for the instance.
func CachedAdoptedPVCs(caches *caches.Caches, ns, instance string) ([]*corev1.PersistentVolumeClaim, error) {
	sc, err := AdoptedScope(caches, ns)
	if err != nil {
		return nil, err
	}
	// The cache holds only PVCs with the adopted-from label, a handful per
	// namespace at most: filtering them here is cheaper than parsing a
	// selector on every status pass.
	all, err := sc.AdoptedPVCs.PersistentVolumeClaims(ns).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var out []*corev1.PersistentVolumeClaim
	for _, p := range all {
		if _, adopted := p.Labels[render.LabelAdoptedFrom]; adopted && p.Labels[render.LabelInstance] == instance {
			out = append(out, p)
		}
	}
	return out, nil
}

// StorageAdoptionGate keeps the Deployment untouched while a valid
// adopt-storage names a PVC that is not adopted yet (legacy pods may still
// use it).
func StorageAdoptionGate(ctx context.Context, r *Resolver, s *ogxv1beta1.OGXServer) error {
	name, err := r.PendingStorageAdoption(ctx, s)
	if err != nil || name == "" {
		return err
	}
	return &worker.WaitingError{Reason: ogxv1beta1.ReasonAdoptionInProgress, Message: fmt.Sprintf("waiting for storage adoption of PVC %s", name)}
}
