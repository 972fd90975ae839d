package render

// Contract labels and annotations (docs/children.md, Labels). Values are kept
// from the upstream operator so its children are taken over in place.
const (
	LabelManagedBy       = "app.kubernetes.io/managed-by"
	LabelPartOf          = "app.kubernetes.io/part-of"
	LabelInstance        = "app.kubernetes.io/instance"
	LabelComponent       = "app.kubernetes.io/component"
	LabelApp             = "app"
	LabelGeneratedConfig = "ogx.io/generated-config"
	LabelAdoptedFrom     = "ogx.io/adopted-from"
	LabelScrape          = "monitoring.opendatahub.io/scrape"

	ManagedByValue = "ogx-operator"
	PartOfValue    = "ogx"
	AppValue       = "ogx"

	AnnotationAdoptedAt      = "ogx.io/adopted-at"
	AnnotationUserConfigHash = "configmap.hash/user-config"
	AnnotationCABundleHash   = "configmap.hash/ca-bundle"
	AnnotationSecretHash     = "secret.hash/referenced"
	AnnotationServerTLSHash  = "secret.hash/tls"
	AnnotationIdentityHash   = "secret.hash/identity"
	ContainerName            = "ogx"
	CABundleKey              = "ca-bundle.crt"
	GeneratedConfigKey       = "config.yaml"
	OperatorConfigMapName    = "ogx-operator-config"
	ImageOverridesKey        = "image-overrides"
	TrustedCABundleConfigMap = "odh-trusted-ca-bundle"
)

// HashKeySecretName is the Secret, in the operator's namespace, whose
// HashKeyDataKey keys the secret.hash/referenced HMAC (resolve.SecretHash).
// The leader creates it with a random key when it is missing; deleting it
// rotates the key, which changes every such annotation and so rolls each
// server with Secret-backed variables once (docs/security.md, Secret
// hashes).
const (
	HashKeySecretName = "ogx-controller-hash-key"
	HashKeyDataKey    = "key"
)

// Child names: always the OGXServer name plus a fixed suffix.
func DeploymentName(n string) string           { return n }
func ServiceName(n string) string              { return n + "-service" }
func ServiceAccountName(n string) string       { return n + "-sa" }
func RoleBindingName(n string) string          { return n + "-rb" }
func PVCName(n string) string                  { return n + "-pvc" }
func NetworkPolicyName(n string) string        { return n + "-network-policy" }
func HPAName(n string) string                  { return n + "-hpa" }
func PDBName(n string) string                  { return n + "-pdb" }
func IngressName(n string) string              { return n + "-ingress" }
func ServiceMonitorName(n string) string       { return n + "-service-monitor" }
func PrometheusRuleName(n string) string       { return n + "-prometheus-rules" }
func CABundleName(n string) string             { return n + "-ca-bundle" }
func GeneratedConfigName(n, h16 string) string { return n + "-config-" + h16 }
