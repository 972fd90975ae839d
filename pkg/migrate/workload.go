package migrate

import (
	llsdv1alpha1 "github.com/ogx-k8s/ogx-controller/pkg/apis/llamastack/v1alpha1"
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// workload converts the legacy server's replicas, container, pod
// overrides, PDB, autoscaling, topology spread and storage; storage also
// asks for the legacy PVC's adoption.
func (c *converter) workload(s *ogxv1beta1.OGXServer, srv *llsdv1alpha1.ServerSpec) (*ogxv1beta1.WorkloadSpec, error) {
	l := c.l
	w := &ogxv1beta1.WorkloadSpec{}
	if l.Spec.Replicas != 1 {
		r := l.Spec.Replicas
		w.Replicas = &r
	}
	c.container(s, w, &srv.ContainerSpec)
	if srv.Workers != nil {
		w.Workers = srv.Workers
	}
	c.podOverrides(w, srv.PodOverrides)
	c.pdb(w, srv.PodDisruptionBudget)
	if err := c.autoscaling(w, srv.Autoscaling); err != nil {
		return nil, err
	}
	if len(srv.TopologySpreadConstraints) > 0 {
		w.TopologySpreadConstraints = srv.TopologySpreadConstraints
	}
	if st := srv.Storage; st != nil {
		mp := st.MountPath
		if mp == "" {
			mp = legacyMountPath
		}
		w.Storage = &ogxv1beta1.PVCStorageSpec{Size: st.Size, MountPath: mp}
		s.Annotations[ogxv1beta1.AnnotationAdoptStorage] = l.Name
	}
	return w, nil
}

func (c *converter) container(s *ogxv1beta1.OGXServer, w *ogxv1beta1.WorkloadSpec, cs *llsdv1alpha1.ContainerSpec) {
	if cs.Name != "" && cs.Name != "llama-stack" {
		c.warn("spec.server.containerSpec.name %q dropped: the container is always named ogx", cs.Name)
	}
	if cs.Port != 0 {
		s.Spec.Network = &ogxv1beta1.NetworkSpec{Port: cs.Port}
	}
	if len(cs.Resources.Limits) > 0 || len(cs.Resources.Requests) > 0 || len(cs.Resources.Claims) > 0 {
		r := cs.Resources
		w.Resources = &r
	}
	ov := overrides(w)
	if len(cs.Env) > 0 {
		ov.Env = cs.Env
	}
	if len(cs.Command) > 0 {
		ov.Command = cs.Command
	}
	if len(cs.Args) > 0 {
		ov.Args = cs.Args
	}
	dropEmptyOverrides(w)
}

func overrides(w *ogxv1beta1.WorkloadSpec) *ogxv1beta1.WorkloadOverrides {
	if w.Overrides == nil {
		w.Overrides = &ogxv1beta1.WorkloadOverrides{}
	}
	return w.Overrides
}

func dropEmptyOverrides(w *ogxv1beta1.WorkloadSpec) {
	o := w.Overrides
	if o != nil && o.ServiceAccountName == "" && len(o.Env) == 0 && len(o.Command) == 0 && len(o.Args) == 0 &&
		len(o.Volumes) == 0 && len(o.VolumeMounts) == 0 {
		w.Overrides = nil
	}
}

func (c *converter) podOverrides(w *ogxv1beta1.WorkloadSpec, p *llsdv1alpha1.PodOverrides) {
	if p == nil {
		return
	}
	ov := overrides(w)
	ov.ServiceAccountName = p.ServiceAccountName
	if len(p.Volumes) > 0 {
		ov.Volumes = p.Volumes
	}
	if len(p.VolumeMounts) > 0 {
		ov.VolumeMounts = p.VolumeMounts
	}
	if p.TerminationGracePeriodSeconds != nil {
		c.warn("spec.server.podOverrides.terminationGracePeriodSeconds (%d) dropped: OGXServer has no such field", *p.TerminationGracePeriodSeconds)
	}
	dropEmptyOverrides(w)
}

func (c *converter) pdb(w *ogxv1beta1.WorkloadSpec, p *llsdv1alpha1.PodDisruptionBudgetSpec) {
	if p == nil {
		return
	}
	switch {
	case p.MinAvailable != nil && p.MaxUnavailable != nil:
		c.warn("spec.server.podDisruptionBudget sets both minAvailable and maxUnavailable; kept minAvailable (OGXServer takes exactly one)")
		w.PodDisruptionBudget = &ogxv1beta1.PodDisruptionBudgetSpec{MinAvailable: p.MinAvailable}
	case p.MinAvailable != nil || p.MaxUnavailable != nil:
		w.PodDisruptionBudget = &ogxv1beta1.PodDisruptionBudgetSpec{MinAvailable: p.MinAvailable, MaxUnavailable: p.MaxUnavailable}
	default:
		c.warn("spec.server.podDisruptionBudget sets neither minAvailable nor maxUnavailable; dropped")
	}
}

func (c *converter) autoscaling(w *ogxv1beta1.WorkloadSpec, a *llsdv1alpha1.AutoscalingSpec) error {
	if a == nil {
		return nil
	}
	if a.MaxReplicas < 1 {
		return errorf("spec.server.autoscaling.maxReplicas is %d; an OGXServer needs at least 1", a.MaxReplicas)
	}
	out := &ogxv1beta1.AutoscalingSpec{MaxReplicas: a.MaxReplicas}
	if m := a.MinReplicas; m != nil {
		if *m < 1 || *m > a.MaxReplicas {
			c.warn("spec.server.autoscaling.minReplicas %d dropped: it must be between 1 and maxReplicas", *m)
		} else {
			out.MinReplicas = m
		}
	}
	pct := func(field string, v *int32) *int32 {
		if v != nil && (*v < 1 || *v > 100) {
			c.warn("spec.server.autoscaling.%s %d dropped: it must be between 1 and 100", field, *v)
			return nil
		}
		return v
	}
	out.TargetCPUUtilizationPercentage = pct("targetCPUUtilizationPercentage", a.TargetCPUUtilizationPercentage)
	out.TargetMemoryUtilizationPercentage = pct("targetMemoryUtilizationPercentage", a.TargetMemoryUtilizationPercentage)
	w.Autoscaling = out
	return nil
}
