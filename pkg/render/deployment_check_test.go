package render

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

func TestDeploymentErrors(t *testing.T) {
	vol := func(name string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	}
	cases := []struct {
		name  string
		s     *ogxv1beta1.OGXServer
		field string
		msg   string
	}{
		{"reserved name of an absent managed volume", server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).Volumes = []corev1.Volume{vol("data"), vol("server-tls")}
		}), "workload.overrides.volumes[1]", `name "server-tls" is reserved by ogx-controller`},
		{"reserved storage name", server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).Volumes = []corev1.Volume{vol("ogx-storage")}
		}), "workload.overrides.volumes[0]", `name "ogx-storage" is reserved by ogx-controller`},
		{"duplicate user volume", server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).Volumes = []corev1.Volume{vol("a"), vol("b"), vol("a")}
		}), "workload.overrides.volumes[2]", `duplicate volume name "a" (also workload.overrides.volumes[0])`},
		{"duplicate user mountPath", server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).VolumeMounts = []corev1.VolumeMount{{Name: "a", MountPath: "/x"}, {Name: "b", MountPath: "/x"}}
		}), "workload.overrides.volumeMounts[1]", `duplicate mountPath "/x" (also workload.overrides.volumeMounts[0])`},
		{"mountPath of the storage mount", server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).VolumeMounts = []corev1.VolumeMount{{Name: "a", MountPath: "/.ogx"}}
		}), "workload.overrides.volumeMounts[0]", `duplicate mountPath "/.ogx" (used by the ogx-storage volume of ogx-controller)`},
		{"mountPath of a present managed mount", server(func(s *ogxv1beta1.OGXServerSpec) {
			network(s).TLS = &ogxv1beta1.ServerTLSSpec{SecretName: "t"}
			overridesOf(s).VolumeMounts = []corev1.VolumeMount{{Name: "a", MountPath: "/etc/ogx-tls/server"}}
		}), "workload.overrides.volumeMounts[0]", `duplicate mountPath "/etc/ogx-tls/server" (used by the server-tls volume of ogx-controller)`},
		{"duplicate spread key", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).TopologySpreadConstraints = []corev1.TopologySpreadConstraint{
				{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule},
				{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway},
				{MaxSkew: 2, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule},
			}
		}), "workload.topologySpreadConstraints[2]",
			`duplicate key (topologyKey "zone", whenUnsatisfiable "DoNotSchedule") (also workload.topologySpreadConstraints[0])`},
		{"storage mountPath on a managed path", server(func(s *ogxv1beta1.OGXServerSpec) {
			workload(s).Storage = &ogxv1beta1.PVCStorageSpec{MountPath: "/etc/ogx/"}
			s.Providers = &ogxv1beta1.ProvidersSpec{}
		}), "workload.storage.mountPath", `mountPath "/etc/ogx/" is used by the user-config volume of ogx-controller`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := inputs(func(in *Inputs) {
				if c.s.Spec.Providers != nil {
					in.RuntimeConfig = RuntimeConfig{Mode: ogxv1beta1.ConfigModeGenerated, ConfigMapName: "c", Key: "config.yaml", Hash: "h"}
				}
			})
			d, err := Deployment(c.s, in)
			if d != nil {
				t.Error("no object must be returned with an error")
			}
			var ise *InvalidSpecError
			if !errors.As(err, &ise) {
				t.Fatalf("err = %v, want *InvalidSpecError", err)
			}
			if ise.Field != c.field || ise.Message != c.msg {
				t.Errorf("got %q / %q\nwant %q / %q", ise.Field, ise.Message, c.field, c.msg)
			}
			if want := c.field + ": " + c.msg; err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
	t.Run("mountPath of an absent managed mount is allowed", func(t *testing.T) {
		s := server(func(s *ogxv1beta1.OGXServerSpec) {
			overridesOf(s).Volumes = []corev1.Volume{vol("certs")}
			overridesOf(s).VolumeMounts = []corev1.VolumeMount{{Name: "certs", MountPath: "/etc/ogx-tls/server"}}
		})
		if _, err := Deployment(s, inputs()); err != nil {
			t.Fatal(err)
		}
	})
}
