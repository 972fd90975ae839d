// Package pvc holds the controller that creates each OGXServer's
// PersistentVolumeClaim N-pvc and never changes or deletes it, and adopts
// a legacy install's storage for the adopt-storage annotation
// (adoption.go). Events of PVCs, adopted or not, start its passes.
package pvc

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// NewController builds the PVC controller on d: it creates the
// PersistentVolumeClaim N-pvc of every OGXServer with storage. It only ever
// creates: an existing claim is never modified, resized or deleted, and the
// claim carries no owner reference, so user data outlives the OGXServer.
func NewController(d *base.Deps) *base.Controller {
	c := base.NewController(base.ControllerPVC, d, reconcile)
	c.Watched = watched
	return c
}

// watched: the PVC's pass starts on events of the PVCs it creates and of
// those it adopts.
func watched(w *caches.Sources) []*caches.Source { return []*caches.Source{w.PVCs, w.AdoptedPVCs} }

func reconcile(ctx context.Context, d *base.Deps, s *ogxv1beta1.OGXServer) (worker.Result, error) {
	key := caches.Key(s.Namespace, s.Name)
	// The pvc controller runs for every server, so it reports unusable
	// adoption annotations (storage and networking) once while they last.
	problems := base.AdoptionAnnotationProblems(s)
	d.Events.WarnWhile(s, ogxv1beta1.EventAdoptionInvalid, strings.Join(problems, "; "), len(problems) > 0)
	legacy := resolve.AdoptionSource(s, ogxv1beta1.AnnotationAdoptStorage)
	if legacy != "" {
		facts, err := storageAdoption(ctx, d, s, legacy)
		d.Board.SetFacts(key, s.UID, base.ControllerPVC, facts)
		if err != nil {
			return worker.Result{}, err
		}
	} else {
		cached, err := base.CachedAdoptedPVCs(d.Caches, s.Namespace, s.Name)
		if err != nil {
			return worker.Result{}, err
		}
		d.Board.SetFacts(key, s.UID, base.ControllerPVC, keepStorageAdopted(cached))
	}
	adopted, err := adoptedPVCs(ctx, d, s)
	if err != nil {
		return worker.Result{}, err
	}
	if legacy == "" && len(adopted) > 1 {
		return worker.Result{}, resolve.MultipleAdopted(s, adopted)
	}
	if s.Spec.StorageSpec() == nil || legacy != "" || len(adopted) > 0 {
		return worker.Result{}, nil
	}
	name := render.PVCName(s.Name)
	if _, err := d.Caches.For(s.Namespace).PVCs.PersistentVolumeClaims(s.Namespace).Get(name); err == nil {
		return worker.Result{}, nil
	}
	pvc, err := apply.AsObject[corev1.PersistentVolumeClaim](render.PVC(s, &render.Inputs{}))
	if err != nil {
		return worker.Result{}, err
	}
	_, err = d.Kube.CoreV1().PersistentVolumeClaims(s.Namespace).Create(ctx, pvc, metav1.CreateOptions{FieldManager: render.FieldManager})
	switch {
	case err == nil:
		klog.FromContext(ctx).Info("Created PVC", "name", name)
		d.Events.Written(s, "PersistentVolumeClaim", name, events.Created)
		return worker.Result{}, nil
	case apierrors.IsAlreadyExists(err):
		// Not in our label-filtered cache: look at it live.
		live, gerr := d.Kube.CoreV1().PersistentVolumeClaims(s.Namespace).Get(ctx, name, metav1.GetOptions{})
		if gerr != nil {
			return worker.Result{}, fmt.Errorf("reading PVC %s: %w", name, gerr)
		}
		if live.Labels[render.LabelManagedBy] == render.ManagedByValue {
			return worker.Result{}, nil
		}
		return worker.Result{}, resolve.NewUserError(ogxv1beta1.ReasonChildConflict, "PersistentVolumeClaim %s exists and is not managed by this OGXServer", name)
	}
	return worker.Result{}, apply.ClassifyWriteError("PersistentVolumeClaim", name, err)
}

// keepStorageAdopted keeps showing a completed storage adoption after the
// annotation is removed, from the adopted PVCs cached for this instance, not
// from status, so a restart reaches the same answer; of several, the one
// adopted first is named (docs/controllers.md, Storage adoption).
func keepStorageAdopted(adopted []*corev1.PersistentVolumeClaim) []metav1.Condition {
	if len(adopted) == 0 {
		return nil
	}
	first := slices.MinFunc(adopted, func(a, b *corev1.PersistentVolumeClaim) int {
		return cmp.Or(cmp.Compare(a.Annotations[render.AnnotationAdoptedAt], b.Annotations[render.AnnotationAdoptedAt]),
			cmp.Compare(a.Name, b.Name))
	})
	return storageAdopted(first.Name)
}

// storageAdopted is the StorageAdopted condition of an adopted PVC.
func storageAdopted(pvc string) []metav1.Condition {
	return []metav1.Condition{{Type: ogxv1beta1.ConditionStorageAdopted, Status: metav1.ConditionTrue, Reason: ogxv1beta1.ReasonStorageAdopted,
		Message: fmt.Sprintf("PVC %s adopted", pvc)}}
}
