package render

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

func TestDeploymentVolumesAndMounts(t *testing.T) {
	t.Run("all five managed volumes then user volumes", func(t *testing.T) {
		ps := mustDeployment(t, server(fullSpec), inputs(fullInputs))
		equalJSON(t, "volumes", ps.Volumes, `[
			{"name":"ogx-storage","persistentVolumeClaim":{"claimName":"demo-pvc"}},
			{"name":"ca-bundle","configMap":{"name":"demo-ca-bundle","items":[{"key":"ca-bundle.crt","path":"ca-bundle.crt"}]}},
			{"name":"user-config","configMap":{"name":"demo-config-d7fedf0dc718ab56","items":[{"key":"config.yaml","path":"config.yaml"}]}},
			{"name":"server-tls","secret":{"secretName":"demo-tls","items":[{"key":"tls.crt","path":"tls.crt"},{"key":"tls.key","path":"tls.key"}],"defaultMode":288}},
			{"name":"client-identity","projected":{"sources":[
				{"configMap":{"name":"client-cert","items":[{"key":"cert.pem","path":"tls.crt"}]}},
				{"secret":{"name":"client-key","items":[{"key":"key.pem","path":"tls.key"}]}}],"defaultMode":288}},
			{"name":"models","persistentVolumeClaim":{"claimName":"models","readOnly":true}},
			{"name":"scratch","emptyDir":{"medium":"Memory"}}
		]`)
		equalJSON(t, "mounts", ps.Containers[0].VolumeMounts, `[
			{"name":"ogx-storage","mountPath":"/data"},
			{"name":"user-config","mountPath":"/etc/ogx/","readOnly":true},
			{"name":"ca-bundle","mountPath":"/etc/ssl/certs/ca-bundle","readOnly":true},
			{"name":"server-tls","mountPath":"/etc/ogx-tls/server","readOnly":true},
			{"name":"client-identity","mountPath":"/etc/ogx-tls/client","readOnly":true},
			{"name":"models","mountPath":"/models","readOnly":true},
			{"name":"scratch","mountPath":"/scratch"}
		]`)
	})
	t.Run("no storage: emptyDir only", func(t *testing.T) {
		ps := mustDeployment(t, server(), inputs())
		equalJSON(t, "volumes", ps.Volumes, `[{"name":"ogx-storage","emptyDir":{}}]`)
		equalJSON(t, "mounts", ps.Containers[0].VolumeMounts, `[{"name":"ogx-storage","mountPath":"/.ogx"}]`)
	})
	t.Run("adopted PVC name and override key", func(t *testing.T) {
		s := server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).Storage = &ogxv1beta1.PVCStorageSpec{}
			s.OverrideConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "cfg", Key: "run.yaml"}
		})
		in := inputs(func(in *Inputs) {
			in.PVCName = "legacy-pvc"
			in.RuntimeConfig = RuntimeConfig{Mode: ogxv1beta1.ConfigModeOverride, ConfigMapName: "cfg", Key: "run.yaml", Hash: "h"}
		})
		ps := mustDeployment(t, s, in)
		equalJSON(t, "volumes", ps.Volumes, `[
			{"name":"ogx-storage","persistentVolumeClaim":{"claimName":"legacy-pvc"}},
			{"name":"user-config","configMap":{"name":"cfg","items":[{"key":"run.yaml","path":"config.yaml"}]}}
		]`)
	})
	t.Run("user volume defaults inside atomic lists", func(t *testing.T) {
		s := server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).Volumes = []corev1.Volume{{Name: "info", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{
					{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "name", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}},
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: "vault", Path: "token"}},
				},
			}}}}
		})
		ps := mustDeployment(t, s, inputs())
		equalJSON(t, "user volume", ps.Volumes[1], `{"name":"info","projected":{"sources":[
			{"downwardAPI":{"items":[{"path":"name","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}]}},
			{"serviceAccountToken":{"audience":"vault","expirationSeconds":3600,"path":"token"}}]}}`)
	})
}
