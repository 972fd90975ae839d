package base

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

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

// LegacyOwnerCheck decides whether obj, the kind object named like the
// legacy install L's, may be taken over by s: it is s's already, or it
// proves it belongs to L: a controller owner reference to the
// LlamaStackDistribution L, or no controller and the labels the legacy
// operator sets. Anything else is refused with a ChildConflict user error:
// an adoption annotation must not let an OGXServer's author scale, take or
// re-point an object nobody proved is legacy (docs/controllers.md, Legacy
// adoption).
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

// NetworkingAdopted is the NetworkingAdopted condition of a pass.
func NetworkingAdopted(legacy string) []metav1.Condition {
	return []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: metav1.ConditionTrue, Reason: ogxv1beta1.ReasonNetworkingAdopted,
		Message: fmt.Sprintf("Networking adopted from %s", legacy)}}
}

// adoptedBy: o carries the ogx.io/adopted-from label and s controls it.
func adoptedBy(o metav1.Object, s *ogxv1beta1.OGXServer) bool {
	if _, ok := o.GetLabels()[render.LabelAdoptedFrom]; !ok {
		return false
	}
	ref := metav1.GetControllerOfNoCopy(o)
	return ref != nil && ref.UID == s.UID
}

// NetworkingReleased is the NetworkingAdopted condition once the annotation
// is gone: reported by the pass that releases, and kept by status after
// that (adoptedConditions).
func NetworkingReleased() []metav1.Condition {
	return []metav1.Condition{{Type: ogxv1beta1.ConditionNetworkingAdopted, Status: metav1.ConditionFalse, Reason: ogxv1beta1.ReasonAdoptionAnnotationRemoved,
		Message: "Adoption annotation removed"}}
}
