package resolve

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// AdoptionSource returns the legacy name of a valid adoption annotation, or
// "" when it is absent, empty or invalid (checks A4/A5; an invalid value
// only disables that adoption).
func AdoptionSource(s *ogxv1beta1.OGXServer, annotation string) string {
	v := s.Annotations[annotation]
	if v == "" {
		return ""
	}
	for _, e := range validation.ValidateAdoption(s) {
		if strings.Contains(e.Field, annotation) {
			return ""
		}
	}
	return v
}

// MultipleAdopted is the error for several adopted PVCs of one instance.
func MultipleAdopted(s *ogxv1beta1.OGXServer, names []string) error {
	return &UserError{Reason: ogxv1beta1.ReasonAdoptionConfigInvalid, Event: ogxv1beta1.EventAdoptionInvalid,
		Err: fmt.Errorf("multiple adopted PVCs found for instance %q: [%s]; remove the %s label from all but one",
			s.Name, strings.Join(names, " "), render.LabelAdoptedFrom)}
}

// EffectivePVCName resolves the claim the server mounts: the adopted source
// while adopt-storage is valid, else the one adopted PVC of the instance,
// else N-pvc (docs/controllers.md, Storage adoption). A Deployment taken
// over from the upstream operator is so never switched to a fresh N-pvc.
func (r *Resolver) EffectivePVCName(s *ogxv1beta1.OGXServer) (string, error) {
	if l := AdoptionSource(s, ogxv1beta1.AnnotationAdoptStorage); l != "" {
		return render.PVCName(l), nil
	}
	names, err := r.Source.AdoptedPVCs(s.Namespace, s.Name)
	if err != nil {
		return "", err
	}
	names = append([]string(nil), names...)
	sort.Strings(names)
	switch len(names) {
	case 0:
		return render.PVCName(s.Name), nil
	case 1:
		return names[0], nil
	}
	return "", MultipleAdopted(s, names)
}

// PendingStorageAdoption names the PVC a valid adopt-storage points at
// while it is not adopted yet (legacy pods may still use it, so no pod of
// ours may mount it); "" when nothing waits.
func (r *Resolver) PendingStorageAdoption(ctx context.Context, s *ogxv1beta1.OGXServer) (string, error) {
	l := AdoptionSource(s, ogxv1beta1.AnnotationAdoptStorage)
	if l == "" || s.Spec.StorageSpec() == nil {
		return "", nil
	}
	pvc, err := r.Source.PVC(ctx, s.Namespace, render.PVCName(l))
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if pvc.Labels[render.LabelAdoptedFrom] != l {
		return pvc.Name, nil
	}
	return "", nil
}
