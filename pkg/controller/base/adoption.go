package base

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// The legacy resource that adoption takes over.
const (
	legacyGroup = "llamastack.io"
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

// The labels the legacy llama-stack operator sets on what it creates for a
// LlamaStackDistribution L: app=llama-stack and app.kubernetes.io/instance=L.
const legacyAppLabel, legacyAppValue = "app", "llama-stack"

// LegacyOwnerCheck lets s take over obj, the kind object named like the
// legacy install's, only if it is s's already or proves it belongs to the
// LlamaStackDistribution legacy; anything else is a ChildConflict user
// error, so an annotation cannot take a foreign object (docs/controllers.md,
// Legacy adoption).
func LegacyOwnerCheck(kind string, obj metav1.Object, legacy string, s *ogxv1beta1.OGXServer) error {
	ref := metav1.GetControllerOfNoCopy(obj)
	switch {
	case ref != nil && ref.UID == s.UID:
		return nil
	case ref != nil:
		if gv, _ := schema.ParseGroupVersion(ref.APIVersion); gv.Group == legacyGroup && ref.Kind == LegacyKind && ref.Name == legacy {
			return nil
		}
		return resolve.NewUserError(ogxv1beta1.ReasonChildConflict, "failed to adopt %s: unexpected controller owner %s/%s", obj.GetName(), ref.Kind, ref.Name)
	case obj.GetLabels()[legacyAppLabel] == legacyAppValue && obj.GetLabels()[render.LabelInstance] == legacy:
		return nil
	}
	return resolve.NewUserError(ogxv1beta1.ReasonChildConflict,
		"failed to adopt %s %s: not part of the legacy install %s (neither controlled by %s %s nor labelled %s=%s, %s=%s)",
		kind, obj.GetName(), legacy, LegacyKind, legacy, legacyAppLabel, legacyAppValue, render.LabelInstance, legacy)
}

// WithoutControllerRefs keeps the owner references that are not
// controllers: a merge patch replaces the list whole.
func WithoutControllerRefs(refs []metav1.OwnerReference) []metav1.OwnerReference {
	return slices.DeleteFunc(append([]metav1.OwnerReference{}, refs...),
		func(r metav1.OwnerReference) bool { return ptr.Deref(r.Controller, false) })
}

// OwnerRefOf is the controller owner reference of an OGXServer.
func OwnerRefOf(s *ogxv1beta1.OGXServer) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: ogxv1beta1.SchemeGroupVersion.String(), Kind: "OGXServer",
		Name: s.Name, UID: s.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
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

// AdoptedAt is the value of the adopted-at annotation written at now.
func AdoptedAt(now time.Time) string { return now.UTC().Format(time.RFC3339) }

// CachedAdoptedPVCs are the PVCs of the adopted-PVC cache labelled as
// adopted for the instance.
func CachedAdoptedPVCs(c *caches.Caches, ns, instance string) ([]*corev1.PersistentVolumeClaim, error) {
	sc := c.For(ns)
	if sc == nil {
		return nil, fmt.Errorf("namespace %q is not watched", ns)
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
