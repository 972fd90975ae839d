package render

import (
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// FieldManager is the server-side apply field manager of every write.
const FieldManager = "ogx-controller"

// Field managers of the two targeted writes before a Deployment's main apply
// (docs/children.md, Before the apply); the caches keep their managedFields
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
	// ConfigMapName is the ConfigMap mounted as user-config, the override
	// one or the generated <name>-config-<h16>; empty when inactive.
	ConfigMapName string
	// Key is the ConfigMap key holding config.yaml (config.yaml if empty).
	Key string
	// Hash is h16 of the config text, for configmap.hash/user-config.
	Hash string
	// SQLiteBackend reports a sqlite storage backend in the generated
	// config, which makes the Deployment set SQLITE_STORE_DIR.
	SQLiteBackend bool
}

// Inputs are the resolved, read-only inputs of the render functions
// (docs/controllers.md, Inputs), from the caches in the controllers and from
// files and flags in `render`.
type Inputs struct {
	// Image is the resolved server image, used verbatim.
	Image string
	// RuntimeConfig is the mounted config.
	RuntimeConfig RuntimeConfig
	// CABundleHash is h16 of ca-bundle.crt; empty means no bundle.
	CABundleHash string
	// SecretEnv are the Secret-backed variables (generated mode only).
	SecretEnv []ogxv1beta1.SecretEnvVar
	// SecretHash is the secret.hash/referenced value, empty without them.
	SecretHash string
	// ServerTLSHash is the secret.hash/tls value (server TLS on).
	ServerTLSHash string
	// IdentityHash is the secret.hash/identity value (client identity on).
	IdentityHash string
	// PVCName is the claim the storage volume mounts: N-pvc or an adopted PVC.
	PVCName string
	// OperatorNamespace is the controller's namespace; the NetworkPolicy
	// admits it.
	OperatorNamespace string
	// MonitoringServed reports that monitoring.coreos.com is served.
	MonitoringServed bool
	// OpenShiftSecurityServed reports that security.openshift.io is served.
	OpenShiftSecurityServed bool
	// ServerAnyUID is the operator's --server-any-uid: the cluster
	// administrator lets server pods run as whatever user their image names,
	// root included. Off, pods must run as non-root (runAsNonRoot), which a
	// namespace enforcing the restricted Pod Security Standard requires; on,
	// that check is left to the image, and where the OpenShift security API
	// is served each N-sa is bound to the anyuid SCC (docs/security.md).
	ServerAnyUID bool
}
