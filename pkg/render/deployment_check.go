package render

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// InvalidSpecError is a user error found while rendering: the spec passed
// admission but the API server would answer the apply with HTTP 500 (for
// example for a duplicate key in a keyed list), which the controller would
// retry forever as transient. Controllers report it with reason InvalidSpec
// (docs/children.md, Render-time errors).
type InvalidSpecError struct {
	// Field is the offending field's path relative to spec, for example
	// "workload.overrides.volumes[2]".
	Field string
	// Message says what is wrong with it.
	Message string
}

func (e *InvalidSpecError) Error() string {
	return e.Field + ": " + e.Message
}

// checkPodLists finds the render-time user errors (docs/children.md,
// Render-time errors) in the pod template's lists.
func checkPodLists(spec *ogxv1beta1.OGXServerSpec, in *Inputs) error {
	if err := checkUserVolumes(overrides(spec).Volumes); err != nil {
		return err
	}
	if err := checkMountPaths(spec, in); err != nil {
		return err
	}
	if spec.Workload != nil {
		return checkSpreadKeys(spec.Workload.TopologySpreadConstraints)
	}
	return nil
}

// checkUserVolumes: a user volume may neither take a managed volume's name
// (present or not) nor repeat another's.
func checkUserVolumes(vols []corev1.Volume) error {
	reserved := managedVolumeNames()
	seen := map[string]int{}
	for i, v := range vols {
		field := fmt.Sprintf("workload.overrides.volumes[%d]", i)
		if slices.Contains(reserved, v.Name) {
			return &InvalidSpecError{Field: field, Message: fmt.Sprintf("name %q is reserved by ogx-controller", v.Name)}
		}
		if j, dup := seen[v.Name]; dup {
			return &InvalidSpecError{Field: field, Message: fmt.Sprintf("duplicate volume name %q (also workload.overrides.volumes[%d])", v.Name, j)}
		}
		seen[v.Name] = i
	}
	return nil
}

// checkMountPaths: the managed mounts must not share a path, and a user
// mount may neither take a managed mount's path nor repeat another's.
func checkMountPaths(spec *ogxv1beta1.OGXServerSpec, in *Inputs) error {
	managedPaths := map[string]string{}
	for _, m := range managedMounts(spec, in) {
		if _, dup := managedPaths[m.path]; dup {
			// Only the storage mount path (always first) is user-chosen, so
			// the collision is between it and m.
			return &InvalidSpecError{Field: "workload.storage.mountPath", Message: fmt.Sprintf(
				"mountPath %q is used by the %s volume of ogx-controller", m.path, m.volume)}
		}
		managedPaths[m.path] = m.volume
	}
	seen := map[string]int{}
	for i, m := range overrides(spec).VolumeMounts {
		field := fmt.Sprintf("workload.overrides.volumeMounts[%d]", i)
		if vol, ok := managedPaths[m.MountPath]; ok {
			return &InvalidSpecError{Field: field, Message: fmt.Sprintf("duplicate mountPath %q (used by the %s volume of ogx-controller)", m.MountPath, vol)}
		}
		if j, dup := seen[m.MountPath]; dup {
			return &InvalidSpecError{Field: field, Message: fmt.Sprintf("duplicate mountPath %q (also workload.overrides.volumeMounts[%d])", m.MountPath, j)}
		}
		seen[m.MountPath] = i
	}
	return nil
}

// checkSpreadKeys: topology spread constraints are keyed by topologyKey and
// whenUnsatisfiable, so a repeated pair would be rejected by the apply.
func checkSpreadKeys(constraints []corev1.TopologySpreadConstraint) error {
	type key struct {
		topologyKey string
		when        corev1.UnsatisfiableConstraintAction
	}
	seen := map[key]int{}
	for i, c := range constraints {
		k := key{c.TopologyKey, c.WhenUnsatisfiable}
		if j, dup := seen[k]; dup {
			return &InvalidSpecError{
				Field: fmt.Sprintf("workload.topologySpreadConstraints[%d]", i),
				Message: fmt.Sprintf("duplicate key (topologyKey %q, whenUnsatisfiable %q) (also workload.topologySpreadConstraints[%d])",
					c.TopologyKey, c.WhenUnsatisfiable, j),
			}
		}
		seen[k] = i
	}
	return nil
}
