package render

import (
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// Managed volumes of the pod (docs/children.md, Volumes and mounts). Their
// names are reserved: a user volume of the same name is an InvalidSpecError
// even when the managed volume is absent, so that switching a feature on never
// collides with a user volume.
const (
	VolumeStorage        = "ogx-storage"
	VolumeCABundle       = "ca-bundle"
	VolumeUserConfig     = "user-config"
	VolumeServerTLS      = "server-tls"
	VolumeClientIdentity = "client-identity"
)

// Mount paths and files in the server container; the managed env variables
// point at them, and override configs may reference them.
const (
	UserConfigMountPath     = "/etc/ogx/"
	UserConfigFile          = "config.yaml"
	ConfigFilePath          = UserConfigMountPath + UserConfigFile
	CABundleMountPath       = "/etc/ssl/certs/ca-bundle"
	CABundleFilePath        = CABundleMountPath + "/" + CABundleKey
	ServerTLSMountPath      = "/etc/ogx-tls/server"
	ClientIdentityMountPath = "/etc/ogx-tls/client"
	TLSCertFile             = "tls.crt"
	TLSKeyFile              = "tls.key"
	HealthPath              = "/v1/health"
)

// secretFileMode is 0440: the TLS key is readable by the pod's group
// (fsGroup) but not by others.
const secretFileMode int32 = 0o440

func managedVolumeNames() []string {
	return []string{VolumeStorage, VolumeCABundle, VolumeUserConfig, VolumeServerTLS, VolumeClientIdentity}
}

// volumes lists the pod volumes in the order of docs/children.md, Volumes
// and mounts.
func volumes(s *ogxv1beta1.OGXServer, in *Inputs) []*corev1ac.VolumeApplyConfiguration {
	spec := &s.Spec
	var out []*corev1ac.VolumeApplyConfiguration

	storage := corev1ac.Volume().WithName(VolumeStorage)
	if spec.StorageSpec() != nil {
		claim := in.PVCName
		if claim == "" {
			claim = PVCName(s.Name)
		}
		storage.WithPersistentVolumeClaim(corev1ac.PersistentVolumeClaimVolumeSource().WithClaimName(claim))
	} else {
		storage.WithEmptyDir(corev1ac.EmptyDirVolumeSource())
	}
	out = append(out, storage)

	if in.CABundleHash != "" {
		out = append(out, corev1ac.Volume().WithName(VolumeCABundle).
			WithConfigMap(corev1ac.ConfigMapVolumeSource().
				WithName(CABundleName(s.Name)).
				WithItems(corev1ac.KeyToPath().WithKey(CABundleKey).WithPath(CABundleKey))))
	}
	if configActive(in) {
		key := in.RuntimeConfig.Key
		if key == "" {
			key = GeneratedConfigKey
		}
		out = append(out, corev1ac.Volume().WithName(VolumeUserConfig).
			WithConfigMap(corev1ac.ConfigMapVolumeSource().
				WithName(in.RuntimeConfig.ConfigMapName).
				WithItems(corev1ac.KeyToPath().WithKey(key).WithPath(UserConfigFile))))
	}
	if t := spec.ServerTLS(); t != nil {
		out = append(out, corev1ac.Volume().WithName(VolumeServerTLS).
			WithSecret(corev1ac.SecretVolumeSource().
				WithSecretName(t.SecretName).
				WithItems(
					corev1ac.KeyToPath().WithKey(TLSCertFile).WithPath(TLSCertFile),
					corev1ac.KeyToPath().WithKey(TLSKeyFile).WithPath(TLSKeyFile)).
				WithDefaultMode(secretFileMode)))
	}
	if id := identity(spec); id != nil {
		out = append(out, corev1ac.Volume().WithName(VolumeClientIdentity).
			WithProjected(corev1ac.ProjectedVolumeSource().
				WithSources(
					corev1ac.VolumeProjection().WithConfigMap(corev1ac.ConfigMapProjection().
						WithName(id.Cert.Name).
						WithItems(corev1ac.KeyToPath().WithKey(id.Cert.Key).WithPath(TLSCertFile))),
					corev1ac.VolumeProjection().WithSecret(corev1ac.SecretProjection().
						WithName(id.Key.Name).
						WithItems(corev1ac.KeyToPath().WithKey(id.Key.Key).WithPath(TLSKeyFile)))).
				WithDefaultMode(secretFileMode)))
	}
	for _, v := range overrides(spec).Volumes {
		v := *v.DeepCopy()
		defaultVolume(&v)
		out = append(out, viaJSON[corev1ac.VolumeApplyConfiguration](&v))
	}
	return out
}

// managedMount is one managed volume's mount.
type managedMount struct {
	volume, path string
	readOnly     bool
}

// managedMounts lists the managed mounts present, in the documented order
// (which differs from the volume order: user-config comes before ca-bundle).
func managedMounts(spec *ogxv1beta1.OGXServerSpec, in *Inputs) []managedMount {
	out := []managedMount{{volume: VolumeStorage, path: spec.MountPath()}}
	if configActive(in) {
		out = append(out, managedMount{VolumeUserConfig, UserConfigMountPath, true})
	}
	if in.CABundleHash != "" {
		out = append(out, managedMount{VolumeCABundle, CABundleMountPath, true})
	}
	if spec.ServerTLS() != nil {
		out = append(out, managedMount{VolumeServerTLS, ServerTLSMountPath, true})
	}
	if identity(spec) != nil {
		out = append(out, managedMount{VolumeClientIdentity, ClientIdentityMountPath, true})
	}
	return out
}

func volumeMounts(spec *ogxv1beta1.OGXServerSpec, in *Inputs) []*corev1ac.VolumeMountApplyConfiguration {
	var out []*corev1ac.VolumeMountApplyConfiguration
	for _, m := range managedMounts(spec, in) {
		vm := corev1ac.VolumeMount().WithName(m.volume).WithMountPath(m.path)
		if m.readOnly {
			vm.WithReadOnly(true)
		}
		out = append(out, vm)
	}
	for i := range overrides(spec).VolumeMounts {
		out = append(out, viaJSON[corev1ac.VolumeMountApplyConfiguration](&overrides(spec).VolumeMounts[i]))
	}
	return out
}
