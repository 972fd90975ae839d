package main

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// olmCertDir is where OLM mounts the serving certificate (tls.crt, tls.key)
// it issues for a CSV's webhook definitions into the named Deployment.
const olmCertDir = "/tmp/k8s-webhook-server/serving-certs"

// adminTLSVolume is the in-memory volume of config/manager that the
// self-managed certificates are written into; OLM's mount replaces it.
const adminTLSVolume = "admission-tls"

// forOLM turns the install's Deployment into the one OLM runs:
//   - the webhook certificate is OLM's: --admission-cert-management=external
//     and --admission-cert-dir pointing at OLM's mount, the emptyDir dropped;
//   - the namespaces to watch are the OperatorGroup's: OLM writes them,
//     comma-separated and empty for all namespaces, into the pod annotation
//     olm.targetNamespaces, which becomes WATCH_NAMESPACES, the environment
//     default of --watch-namespaces.
func forOLM(d *appsv1.Deployment) error {
	spec := &d.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		return fmt.Errorf("Deployment %s: %d containers, want the one manager container", d.Name, len(spec.Containers))
	}
	c := &spec.Containers[0]
	found := false
	for i, a := range c.Args {
		if strings.HasPrefix(a, "--admission-cert-dir=") {
			c.Args[i] = "--admission-cert-dir=" + olmCertDir
			found = true
		}
		if strings.HasPrefix(a, "--admission-cert-management=") || strings.HasPrefix(a, "--watch-namespaces=") {
			return fmt.Errorf("Deployment %s: argument %s is set by the bundle; remove it from config/manager", d.Name, a)
		}
	}
	if !found {
		return fmt.Errorf("Deployment %s: no --admission-cert-dir argument to point at OLM's certificate mount", d.Name)
	}
	c.Args = append(c.Args, "--admission-cert-management=external")
	c.Env = append(c.Env, corev1.EnvVar{Name: "WATCH_NAMESPACES", ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['olm.targetNamespaces']"},
	}})
	var mounts []corev1.VolumeMount
	for _, m := range c.VolumeMounts {
		if m.Name != adminTLSVolume {
			mounts = append(mounts, m)
		}
	}
	var vols []corev1.Volume
	for _, v := range spec.Volumes {
		if v.Name != adminTLSVolume {
			vols = append(vols, v)
		}
	}
	if len(mounts) == len(c.VolumeMounts) || len(vols) == len(spec.Volumes) {
		return fmt.Errorf("Deployment %s: no volume %s to replace with OLM's certificate mount", d.Name, adminTLSVolume)
	}
	c.VolumeMounts, spec.Volumes = mounts, vols
	return nil
}

// webhooks turns the install's ValidatingWebhookConfiguration into OLM
// webhook definitions served by deployment through the port the install's
// webhook Service maps.
func webhooks(cfg *admissionregistrationv1.ValidatingWebhookConfiguration, svc *corev1.Service, deployment string) ([]webhookDefinition, error) {
	if len(svc.Spec.Ports) != 1 {
		return nil, fmt.Errorf("Service %s: %d ports, want 1", svc.Name, len(svc.Spec.Ports))
	}
	port := svc.Spec.Ports[0]
	var out []webhookDefinition
	for _, w := range cfg.Webhooks {
		ref := w.ClientConfig.Service
		if ref == nil || ref.Name != svc.Name || ref.Path == nil {
			return nil, fmt.Errorf("webhook %s: clientConfig.service must name Service %s with a path", w.Name, svc.Name)
		}
		out = append(out, webhookDefinition{
			Type:                    "ValidatingAdmissionWebhook",
			GenerateName:            w.Name,
			DeploymentName:          deployment,
			ContainerPort:           port.Port,
			TargetPort:              port.TargetPort.IntVal,
			WebhookPath:             *ref.Path,
			AdmissionReviewVersions: w.AdmissionReviewVersions,
			SideEffects:             w.SideEffects,
			FailurePolicy:           w.FailurePolicy,
			MatchPolicy:             w.MatchPolicy,
			TimeoutSeconds:          w.TimeoutSeconds,
			Rules:                   w.Rules,
		})
	}
	return out, nil
}
