package pvc

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// storageAdoption runs the storage adoption of the pvc controller
// (docs/controllers.md, Storage adoption). It returns the conditions to show
// and an error (worker.WaitingError while legacy pods run).
func storageAdoption(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer, legacy string) ([]metav1.Condition, error) {
	pvcName := render.PVCName(legacy)
	pvcs := d.Kube.CoreV1().PersistentVolumeClaims(s.Namespace)
	pvc, err := pvcs.Get(ctx, pvcName, metav1.GetOptions{})
	notFound := fmt.Sprintf("PVC %s (%s) not found", pvcName, ogxv1beta1.AnnotationAdoptStorage)
	if err == nil || apierrors.IsNotFound(err) {
		d.Events.WarnWhile(s, ogxv1beta1.EventAdoptionSourceNotFound, notFound, apierrors.IsNotFound(err))
	}
	if apierrors.IsNotFound(err) {
		return []metav1.Condition{{Type: ogxv1beta1.ConditionStorageReady, Status: metav1.ConditionFalse, Reason: ogxv1beta1.ReasonStorageFailed,
			Message: notFound}}, nil
	}
	if err != nil {
		return nil, err
	}
	if pvc.Labels[render.LabelAdoptedFrom] == legacy {
		d.Events.While(s, corev1.EventTypeNormal, ogxv1beta1.EventAdoptionWaiting, legacy, "", false)
		return storageAdopted(pvcName), nil
	}
	if err := base.LegacyOwnerCheck("PersistentVolumeClaim", pvc, legacy, s); err != nil {
		return nil, err
	}
	// The API server may refuse the PVC's patch (adoptPVC): learn it
	// before the legacy workload is stopped, not after.
	if err := adoptPVC(ctx, d, s, pvc, legacy, true); err != nil {
		return nil, err
	}
	// Scale the legacy workload down and wait for its pods to be gone: our
	// pods never mount a volume legacy pods still use.
	if err := scaleDownLegacy(ctx, d, s, legacy); err != nil {
		return nil, err
	}
	if waiting, err := legacyPodsRunning(ctx, d, s, legacy); waiting != nil || err != nil {
		return waiting, err
	}
	if err := adoptPVC(ctx, d, s, pvc, legacy, false); err != nil {
		return nil, err
	}
	d.Events.Normal(s, ogxv1beta1.ReasonStorageAdopted, fmt.Sprintf("PVC %s adopted", pvcName))
	return storageAdopted(pvcName), nil
}

// adoptPVC sends the adopting merge patch of the legacy PVC (step 6 of
// docs/controllers.md, Storage adoption), or with dryRun only has the API
// server check it. Dropping the legacy controller owner changes the PVC's
// ownerReferences, which an API server enforcing owner-reference
// permissions (OpenShift's default) allows only to whoever may delete the
// PVC. The default RBAC holds no delete on PVCs, so that PVCs are never
// deleted is an RBAC fact; such a refusal becomes a user error that names
// the opt-in grant (docs/security.md, RBAC by install mode).
func adoptPVC(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer, pvc *corev1.PersistentVolumeClaim, legacy string, dryRun bool) error {
	patch, err := base.MergePatch(pvc.ResourceVersion, map[string]any{"metadata": map[string]any{
		"ownerReferences": base.WithoutControllerRefs(pvc.OwnerReferences),
		"labels": map[string]string{render.LabelAdoptedFrom: legacy, render.LabelInstance: s.Name,
			render.LabelManagedBy: render.ManagedByValue},
		"annotations": map[string]string{render.AnnotationAdoptedAt: base.AdoptedAt(time.Now())},
	}})
	if err != nil {
		return err
	}
	opts := metav1.PatchOptions{FieldManager: render.FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	_, err = d.Kube.CoreV1().PersistentVolumeClaims(s.Namespace).Patch(ctx, pvc.Name, types.MergePatchType, patch, opts)
	switch {
	case err == nil:
		return nil
	case apierrors.IsForbidden(err):
		klog.FromContext(ctx).V(2).Info("PVC adoption refused", "pvc", pvc.Name, "err", err)
		return resolve.NewUserError(ogxv1beta1.ReasonApplyFailed,
			"the API server lets only whoever may delete PVC %s change its owner references, and ogx-controller may not delete PVCs: "+
				"bind the ClusterRole %s to its ServiceAccount in namespace %s for the adoption, or remove the PVC's controller owner reference yourself (docs/migration.md)",
			pvc.Name, StorageAdoptionClusterRole, s.Namespace)
	}
	return apply.ClassifyWriteError("PersistentVolumeClaim", pvc.Name, err)
}

// StorageAdoptionClusterRole is the shipped, unbound ClusterRole that lets
// the operator change a PVC's owner references where the API server
// enforces owner-reference permissions (config/rbac/storage_adoption_role.yaml).
const StorageAdoptionClusterRole = "ogx-controller-storage-adoption"

// scaleDownLegacy scales the legacy Deployment to zero replicas, if it
// exists, proves it is the legacy install's (base.LegacyOwnerCheck) and is
// not there yet.
func scaleDownLegacy(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer, legacy string) error {
	dep, err := d.Kube.AppsV1().Deployments(s.Namespace).Get(ctx, legacy, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	case dep.Spec.Replicas != nil && *dep.Spec.Replicas == 0:
		return nil
	}
	// A Deployment that merely has the install's name stops the adoption.
	if err := base.LegacyOwnerCheck("Deployment", dep, legacy, s); err != nil {
		return err
	}
	patch, _ := base.MergePatch(dep.ResourceVersion, map[string]any{"spec": map[string]any{"replicas": 0}})
	if _, err := d.Kube.AppsV1().Deployments(s.Namespace).Patch(ctx, legacy, types.MergePatchType, patch,
		metav1.PatchOptions{FieldManager: render.FieldManager}); err != nil {
		return apply.ClassifyWriteError("Deployment", legacy, err)
	}
	d.Events.Normal(s, ogxv1beta1.EventLegacyScaledDown, fmt.Sprintf("Scaled legacy Deployment %s to 0 replicas", legacy))
	return nil
}

// legacyPodsRunning returns, while pods of the legacy instance still run,
// the StorageAdopted condition in progress and a worker.WaitingError; nil, nil
// once they are gone.
func legacyPodsRunning(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer, legacy string) ([]metav1.Condition, error) {
	pods, err := d.Kube.CoreV1().Pods(s.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{render.LabelInstance: legacy}).String()})
	if err != nil {
		return nil, err
	}
	n := len(pods.Items)
	msg := fmt.Sprintf("waiting for %d legacy pods of %s to terminate", n, legacy)
	// One Event per wait, not one per pass or per change of the count.
	d.Events.While(s, corev1.EventTypeNormal, ogxv1beta1.EventAdoptionWaiting, legacy, msg, n > 0)
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
func adoptedPVCs(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer) ([]string, error) {
	list, err := base.CachedAdoptedPVCs(d.Caches, s.Namespace, s.Name)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range list {
		names = append(names, p.Name)
		if p.Labels[render.LabelManagedBy] == render.ManagedByValue {
			continue
		}
		patch, _ := base.MergePatch(p.ResourceVersion, map[string]any{"metadata": map[string]any{
			"labels": map[string]string{render.LabelManagedBy: render.ManagedByValue}}})
		if _, err := d.Kube.CoreV1().PersistentVolumeClaims(s.Namespace).Patch(ctx, p.Name, types.MergePatchType, patch,
			metav1.PatchOptions{FieldManager: render.FieldManager}); err != nil {
			return nil, apply.ClassifyWriteError("PersistentVolumeClaim", p.Name, err)
		}
	}
	sort.Strings(names)
	return names, nil
}
