package render

import (
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// FieldManager is the server-side apply field manager of every write.
const FieldManager = "ogx-controller"

// Field managers of the two targeted writes that precede the main apply of a
// Deployment: the strategy switch and the replica hand-over to the HPA
// (docs/children.md, Before the apply). The caches keep their managedFields
// entries beside FieldManager's.
const (
	StrategyFieldManager = "ogx-controller-strategy"
	HandoverFieldManager = "ogx-controller-hpa-handover"
)

// OwnFieldManagers are all the field managers ogx-controller writes with.
func OwnFieldManagers() []string {
	return []string{FieldManager, StrategyFieldManager, HandoverFieldManager}
}

// RuntimeConfig says which config.yaml the server runs with.
type RuntimeConfig struct {
	// Mode is inactive, override or generated.
	Mode ogxv1beta1.ConfigMode
	// ConfigMapName is the ConfigMap mounted as user-config: the override
	// ConfigMap, or the generated <name>-config-<h16>. Empty when inactive.
	ConfigMapName string
	// Key is the ConfigMap key holding config.yaml (config.yaml when
	// generated).
	Key string
	// Hash is h16 of the config text; it becomes the
	// configmap.hash/user-config annotation.
	Hash string
	// SQLiteBackend reports that the generated config has a sqlite storage
	// backend, which makes the Deployment set SQLITE_STORE_DIR.
	SQLiteBackend bool
}

// Inputs are the resolved, read-only inputs of the render functions. The
// controllers resolve them from their caches; `render` resolves them from
// files and flags.
type Inputs struct {
	// Image is the resolved server image, used verbatim.
	Image string
	// RuntimeConfig is the mounted config.
	RuntimeConfig RuntimeConfig
	// CABundleHash is h16 of ca-bundle.crt when a CA bundle is present, else
	// empty (no bundle).
	CABundleHash string
	// SecretEnv are the Secret-backed variables (generated mode only).
	SecretEnv []ogxv1beta1.SecretEnvVar
	// SecretHash is the secret.hash/referenced annotation value, empty when
	// there are no secret variables.
	SecretHash string
	// ServerTLSHash is the secret.hash/tls annotation value (server TLS on).
	ServerTLSHash string
	// IdentityHash is the secret.hash/identity annotation value (identity
	// on).
	IdentityHash string
	// PVCName is the claim the storage volume mounts (N-pvc or an adopted
	// PVC).
	PVCName string
	// OperatorNamespace is the controller's own namespace; the NetworkPolicy
	// admits it.
	OperatorNamespace string
	// ClusterDomain is the cluster DNS suffix, for service URLs.
	ClusterDomain string
	// MonitoringServed reports that the cluster serves the
	// monitoring.coreos.com kinds.
	MonitoringServed bool
	// OpenShiftSecurityServed reports that the cluster serves
	// security.openshift.io (gates the RoleBinding).
	OpenShiftSecurityServed bool
}
