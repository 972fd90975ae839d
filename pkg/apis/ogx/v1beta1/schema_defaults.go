package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
)

// Values of the `default:` entries the CRD schema carries for fields of
// embedded core types (Kubernetes' own +default markers).
const (
	schemaDefaultAzureDiskFSType    = "ext4"
	schemaDefaultISCSIInterface     = "default"
	schemaDefaultRBDKeyring         = "/etc/ceph/keyring"
	schemaDefaultRBDPool            = "rbd"
	schemaDefaultRBDUser            = "admin"
	schemaDefaultScaleIOFSType      = "xfs"
	schemaDefaultScaleIOStorageMode = "ThinProvisioned"
	schemaDefaultStorageType        = "sqlite"
)

// ApplySchemaDefaults writes into s the values the API server's structural
// defaulting would write from the CRD schema (every `default:` of
// config/crd/bases/ogx.io_ogxservers.yaml), so that an object read from a file
// equals the one the controller reads from the cluster. As in the API
// server, a default applies only where its parent object exists: network.port
// becomes 8321 only when spec.network is present, and so on.
//
// Defaults whose value is the zero value of a non-pointer Go field (the
// `name: ""` of the core LocalObjectReference types, externalAccess.enabled
// false) cannot be told apart from absence in the typed object and need no
// write; they are listed below anyway so that every schema default has a
// visible counterpart.
//
// The function is pure and idempotent; it does not touch metadata or status.
func ApplySchemaDefaults(s *OGXServer) {
	if s == nil {
		return
	}
	spec := &s.Spec

	if m := spec.Monitoring; m != nil && m.Enabled == nil {
		m.Enabled = schemaPtr(true)
	}

	if n := spec.Network; n != nil {
		if n.Port == 0 {
			n.Port = DefaultServerPort
		}
		// externalAccess.enabled: default false, the zero value of a bool.
		if p := n.Policy; p != nil && p.Enabled == nil {
			p.Enabled = schemaPtr(true)
		}
	}

	if st := spec.Storage; st != nil {
		if st.KV != nil && st.KV.Type == "" {
			st.KV.Type = schemaDefaultStorageType
		}
		if st.SQL != nil && st.SQL.Type == "" {
			st.SQL.Type = schemaDefaultStorageType
		}
	}

	if w := spec.Workload; w != nil {
		if w.Replicas == nil {
			w.Replicas = schemaPtr(DefaultReplicas)
		}
		if w.Storage != nil && w.Storage.MountPath == "" {
			w.Storage.MountPath = DefaultMountPath
		}
		if o := w.Overrides; o != nil {
			for i := range o.Env {
				schemaDefaultEnvVar(&o.Env[i])
			}
			for i := range o.Volumes {
				schemaDefaultVolume(&o.Volumes[i])
			}
		}
	}
}

// schemaDefaultEnvVar applies the schema defaults of a core EnvVar.
// valueFrom.configMapKeyRef.name and valueFrom.secretKeyRef.name default to
// "", the zero value.
func schemaDefaultEnvVar(e *corev1.EnvVar) {
	if e.ValueFrom == nil {
		return
	}
	if f := e.ValueFrom.FileKeyRef; f != nil && f.Optional == nil {
		f.Optional = schemaPtr(false)
	}
}

// schemaDefaultVolume applies the schema defaults of a core Volume. The `name: ""`
// defaults of cephfs, cinder, configMap, csi, flexVolume, iscsi, projected,
// rbd, scaleIO and storageos secret and config references are the zero
// value.
func schemaDefaultVolume(v *corev1.Volume) {
	if a := v.AzureDisk; a != nil {
		if a.FSType == nil {
			a.FSType = schemaPtr(schemaDefaultAzureDiskFSType)
		}
		if a.ReadOnly == nil {
			a.ReadOnly = schemaPtr(false)
		}
	}
	if i := v.ISCSI; i != nil && i.ISCSIInterface == "" {
		i.ISCSIInterface = schemaDefaultISCSIInterface
	}
	if r := v.RBD; r != nil {
		if r.Keyring == "" {
			r.Keyring = schemaDefaultRBDKeyring
		}
		if r.RBDPool == "" {
			r.RBDPool = schemaDefaultRBDPool
		}
		if r.RadosUser == "" {
			r.RadosUser = schemaDefaultRBDUser
		}
	}
	if sc := v.ScaleIO; sc != nil {
		if sc.FSType == "" {
			sc.FSType = schemaDefaultScaleIOFSType
		}
		if sc.StorageMode == "" {
			sc.StorageMode = schemaDefaultScaleIOStorageMode
		}
	}
}

func schemaPtr[T any](v T) *T { return &v }
