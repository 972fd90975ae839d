package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

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

// Mount paths and files inside the server container. The env variables of the
// Environment section of docs/children.md point at these paths, and override
// configs may reference them.
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

// Environment variable names set by ogx-controller (docs/children.md,
// Environment).
const (
	EnvHFHome                  = "HF_HOME"
	EnvSSLCertFile             = "SSL_CERT_FILE"
	EnvWorkers                 = "OGX_WORKERS"
	EnvPort                    = "OGX_PORT"
	EnvRunConfigPath           = "RUN_CONFIG_PATH"
	EnvConfig                  = "OGX_CONFIG"
	EnvRegistryRefreshInterval = "OGX_REGISTRY_REFRESH_INTERVAL_SECONDS"
	EnvMetricsEndpointEnabled  = "OGX_METRICS_ENDPOINT_ENABLED"
	EnvMetricsHost             = "OGX_METRICS_HOST"
	EnvMetricsPort             = "OGX_METRICS_PORT"
	EnvTLSCertFile             = "OGX_TLS_CERTFILE"
	EnvTLSKeyFile              = "OGX_TLS_KEYFILE"
	EnvTLSClientCert           = "OGX_TLS_CLIENT_CERT"
	EnvTLSClientKey            = "OGX_TLS_CLIENT_KEY"
	EnvSQLiteStoreDir          = "SQLITE_STORE_DIR"
)

const (
	// metricsHostAll makes the metrics endpoint listen on every interface,
	// so that the Service and the monitoring stack can reach it.
	metricsHostAll = "0.0.0.0"
	// podFSGroup makes mounted volumes (PVC, Secrets) group-accessible to
	// the image's user, whatever UID it runs as.
	podFSGroup int64 = 1001
	// secretFileMode is 0440: the TLS key is readable by the pod's group
	// (fsGroup) but not by others.
	secretFileMode int32 = 0o440
)

// Topology keys of the default spread and anti-affinity.
const (
	TopologyKeyRegion   = "topology.kubernetes.io/region"
	TopologyKeyZone     = "topology.kubernetes.io/zone"
	TopologyKeyHostname = "kubernetes.io/hostname"
)

func managedVolumeNames() []string {
	return []string{VolumeStorage, VolumeCABundle, VolumeUserConfig, VolumeServerTLS, VolumeClientIdentity}
}

func orZero(in *Inputs) *Inputs {
	if in == nil {
		return &Inputs{}
	}
	return in
}

// workers is W: workload.workers when > 0, else 1. workersSet reports whether
// the user gave it, which also turns on the default limits.
func workers(spec *ogxv1beta1.OGXServerSpec) (w int32, workersSet bool) {
	if spec.Workload != nil && spec.Workload.Workers != nil && *spec.Workload.Workers > 0 {
		return *spec.Workload.Workers, true
	}
	return 1, false
}

func overrides(spec *ogxv1beta1.OGXServerSpec) *ogxv1beta1.WorkloadOverrides {
	if spec.Workload == nil || spec.Workload.Overrides == nil {
		return &ogxv1beta1.WorkloadOverrides{}
	}
	return spec.Workload.Overrides
}

func configActive(in *Inputs) bool {
	return in.RuntimeConfig.Mode != "" && in.RuntimeConfig.Mode != ogxv1beta1.ConfigModeInactive
}

func identity(spec *ogxv1beta1.OGXServerSpec) *ogxv1beta1.ClientIdentitySpec {
	if spec.TLS == nil {
		return nil
	}
	return spec.TLS.Identity
}

// Deployment renders the Deployment N (docs/children.md, Deployment). It
// returns an *InvalidSpecError for the render-time user errors (reserved or
// duplicate volume names, duplicate mount paths, duplicate spread-constraint
// keys): the API server would answer such an apply with HTTP 500, which the
// controller would retry forever as a transient error.
//
// Config-dependent parts (user-config volume, config env, SQLITE_STORE_DIR,
// Secret env) follow in.RuntimeConfig.Mode, the mode actually resolved, so a
// Deployment is never pointed at a config that does not exist. A rollout
// annotation is written only when its condition holds and its hash is known;
// `render` leaves a hash empty when the objects it covers are not in its
// input.
func Deployment(s *ogxv1beta1.OGXServer, in *Inputs) (*appsv1ac.DeploymentApplyConfiguration, error) {
	in = orZero(in)
	spec := &s.Spec
	if err := checkPodLists(spec, in); err != nil {
		return nil, err
	}

	ds := appsv1ac.DeploymentSpec().
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(SelectorLabels(s.Name)))
	// With autoscaling the HPA owns the count; writing replicas would fight it.
	if spec.Autoscaling() == nil {
		ds.WithReplicas(spec.Replicas())
	}
	// A ReadWriteOnce volume cannot be mounted by an old and a new pod on
	// different nodes at once, so storage means stop-then-start rollouts.
	if spec.StorageSpec() != nil {
		ds.WithStrategy(appsv1ac.DeploymentStrategy().WithType(appsv1.RecreateDeploymentStrategyType))
	}

	tmpl := corev1ac.PodTemplateSpec().WithLabels(SelectorLabels(s.Name))
	if ann := templateAnnotations(spec, in); len(ann) > 0 {
		tmpl.WithAnnotations(ann)
	}
	tmpl.WithSpec(podSpec(s, in))
	ds.WithTemplate(tmpl)

	return appsv1ac.Deployment(DeploymentName(s.Name), s.Namespace).
		WithLabels(ChildLabels()).
		WithOwnerReferences(ownerRefs(s)...).
		WithSpec(ds), nil
}

// templateAnnotations are the rollout annotations that apply
// (docs/children.md, Rollout annotations).
func templateAnnotations(spec *ogxv1beta1.OGXServerSpec, in *Inputs) map[string]string {
	ann := map[string]string{}
	set := func(cond bool, key, value string) {
		if cond && value != "" {
			ann[key] = value
		}
	}
	set(configActive(in), AnnotationUserConfigHash, in.RuntimeConfig.Hash)
	set(true, AnnotationCABundleHash, in.CABundleHash)
	set(in.RuntimeConfig.Mode == ogxv1beta1.ConfigModeGenerated && len(in.SecretEnv) > 0, AnnotationSecretHash, in.SecretHash)
	set(spec.ServerTLS() != nil, AnnotationServerTLSHash, in.ServerTLSHash)
	set(identity(spec) != nil, AnnotationIdentityHash, in.IdentityHash)
	return ann
}

func podSpec(s *ogxv1beta1.OGXServer, in *Inputs) *corev1ac.PodSpecApplyConfiguration {
	spec := &s.Spec
	ov := overrides(spec)

	sa := ServiceAccountName(s.Name)
	if ov.ServiceAccountName != "" {
		sa = ov.ServiceAccountName
	}
	ps := corev1ac.PodSpec().
		WithServiceAccountName(sa).
		WithSecurityContext(corev1ac.PodSecurityContext().
			WithFSGroup(podFSGroup).
			WithSeccompProfile(corev1ac.SeccompProfile().WithType(corev1.SeccompProfileTypeRuntimeDefault))).
		WithVolumes(volumes(s, in)...).
		WithContainers(container(s, in))

	if w := spec.Workload; w != nil && len(w.TopologySpreadConstraints) > 0 {
		for i := range w.TopologySpreadConstraints {
			ps.WithTopologySpreadConstraints(toApply[corev1ac.TopologySpreadConstraintApplyConfiguration](&w.TopologySpreadConstraints[i]))
		}
	} else if spec.MultiPod() {
		for _, key := range []string{TopologyKeyRegion, TopologyKeyZone, TopologyKeyHostname} {
			ps.WithTopologySpreadConstraints(corev1ac.TopologySpreadConstraint().
				WithMaxSkew(1).
				WithTopologyKey(key).
				WithWhenUnsatisfiable(corev1.ScheduleAnyway).
				WithLabelSelector(metav1ac.LabelSelector().WithMatchLabels(instanceOnly(s.Name))))
		}
	}
	if spec.MultiPod() {
		ps.WithAffinity(corev1ac.Affinity().WithPodAntiAffinity(corev1ac.PodAntiAffinity().
			WithPreferredDuringSchedulingIgnoredDuringExecution(corev1ac.WeightedPodAffinityTerm().
				WithWeight(100).
				WithPodAffinityTerm(corev1ac.PodAffinityTerm().
					WithTopologyKey(TopologyKeyHostname).
					WithLabelSelector(metav1ac.LabelSelector().WithMatchLabels(instanceOnly(s.Name)))))))
	}
	if w := spec.Workload; w != nil {
		for i := range w.ResourceClaims {
			ps.WithResourceClaims(toApply[corev1ac.PodResourceClaimApplyConfiguration](&w.ResourceClaims[i]))
		}
	}
	return ps
}

func container(s *ogxv1beta1.OGXServer, in *Inputs) *corev1ac.ContainerApplyConfiguration {
	spec := &s.Spec
	ov := overrides(spec)
	p := spec.Port()

	c := corev1ac.Container().WithName(ContainerName).WithImage(in.Image)
	if len(ov.Command) > 0 {
		c.WithCommand(ov.Command...)
	}
	if len(ov.Args) > 0 {
		c.WithArgs(ov.Args...)
	}
	c.WithPorts(corev1ac.ContainerPort().WithContainerPort(p).WithProtocol(corev1.ProtocolTCP))
	if separateMetricsPort(spec) {
		c.WithPorts(corev1ac.ContainerPort().WithName(PortNameMetrics).
			WithContainerPort(spec.MetricsPort()).WithProtocol(corev1.ProtocolTCP))
	}

	scheme := corev1.URISchemeHTTP
	if spec.ServerTLS() != nil {
		scheme = corev1.URISchemeHTTPS
	}
	health := func() *corev1ac.HTTPGetActionApplyConfiguration {
		return corev1ac.HTTPGetAction().WithPath(HealthPath).WithPort(intstr.FromInt32(p)).WithScheme(scheme)
	}
	// The startup probe tolerates slow starts (model registration); the
	// readiness probe then takes the pod out of the Service while it cannot
	// answer. There is deliberately no liveness probe: a busy server must not
	// be restarted.
	c.WithStartupProbe(corev1ac.Probe().WithHTTPGet(health()).
		WithInitialDelaySeconds(15).WithPeriodSeconds(10).WithTimeoutSeconds(30).
		WithFailureThreshold(3).WithSuccessThreshold(1))
	c.WithReadinessProbe(corev1ac.Probe().WithHTTPGet(health()).
		WithPeriodSeconds(10).WithTimeoutSeconds(5).
		WithFailureThreshold(3).WithSuccessThreshold(1))

	c.WithSecurityContext(corev1ac.SecurityContext().
		WithAllowPrivilegeEscalation(false).
		WithCapabilities(corev1ac.Capabilities().WithDrop("ALL")))

	res := containerResources(spec)
	c.WithResources(toApply[corev1ac.ResourceRequirementsApplyConfiguration](&res))
	c.WithEnv(env(spec, in)...)
	c.WithVolumeMounts(volumeMounts(spec, in)...)
	return c
}

// containerResources applies the resource defaults (docs/children.md,
// Container) to a deep copy of workload.resources (claims kept): requests of W
// cores and 1Gi where missing or zero, and, only when workers is given, limits
// equal to the requests where missing or zero.
func containerResources(spec *ogxv1beta1.OGXServerSpec) corev1.ResourceRequirements {
	var r corev1.ResourceRequirements
	if spec.Workload != nil && spec.Workload.Resources != nil {
		r = *spec.Workload.Resources.DeepCopy()
	}
	w, workersSet := workers(spec)
	if r.Requests == nil {
		r.Requests = corev1.ResourceList{}
	}
	fill := func(list corev1.ResourceList, name corev1.ResourceName, q resource.Quantity) {
		if cur, ok := list[name]; !ok || cur.IsZero() {
			list[name] = q
		}
	}
	fill(r.Requests, corev1.ResourceCPU, *resource.NewQuantity(int64(w), resource.DecimalSI))
	fill(r.Requests, corev1.ResourceMemory, resource.MustParse("1Gi"))
	if workersSet {
		if r.Limits == nil {
			r.Limits = corev1.ResourceList{}
		}
		fill(r.Limits, corev1.ResourceCPU, r.Requests[corev1.ResourceCPU])
		fill(r.Limits, corev1.ResourceMemory, r.Requests[corev1.ResourceMemory])
	}
	return r
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
		out = append(out, toApply[corev1ac.VolumeApplyConfiguration](&v))
	}
	return out
}

// managedMount is one managed mount with the condition that makes it
// present.
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
		out = append(out, toApply[corev1ac.VolumeMountApplyConfiguration](&overrides(spec).VolumeMounts[i]))
	}
	return out
}

// env builds the container environment in the exact order of docs/children.md,
// Environment, and applies the override rule: a user entry replaces every
// managed entry of the same name and moves to the end, and of repeated user
// names only the last occurrence is kept (env is a keyed list for apply, so a
// repeated name would be rejected).
func env(spec *ogxv1beta1.OGXServerSpec, in *Inputs) []*corev1ac.EnvVarApplyConfiguration {
	type kv struct{ name, value string }
	mp := spec.MountPath()
	w, _ := workers(spec)
	generated := in.RuntimeConfig.Mode == ogxv1beta1.ConfigModeGenerated

	var managed []kv
	add := func(cond bool, vars ...kv) {
		if cond {
			managed = append(managed, vars...)
		}
	}
	add(true, kv{EnvHFHome, mp})
	add(in.CABundleHash != "", kv{EnvSSLCertFile, CABundleFilePath})
	add(true, kv{EnvWorkers, strconv.Itoa(int(w))})
	add(true, kv{EnvPort, strconv.Itoa(int(spec.Port()))})
	add(configActive(in), kv{EnvRunConfigPath, ConfigFilePath}, kv{EnvConfig, ConfigFilePath})
	if r := spec.RegistryRefreshIntervalSeconds; r != nil {
		add(true, kv{EnvRegistryRefreshInterval, strconv.Itoa(int(*r))})
	}
	add(spec.MonitoringEnabled(),
		kv{EnvMetricsEndpointEnabled, "1"},
		kv{EnvMetricsHost, metricsHostAll},
		kv{EnvMetricsPort, strconv.Itoa(int(spec.MetricsPort()))})
	add(spec.ServerTLS() != nil,
		kv{EnvTLSCertFile, ServerTLSMountPath + "/" + TLSCertFile},
		kv{EnvTLSKeyFile, ServerTLSMountPath + "/" + TLSKeyFile})
	add(identity(spec) != nil,
		kv{EnvTLSClientCert, ClientIdentityMountPath + "/" + TLSCertFile},
		kv{EnvTLSClientKey, ClientIdentityMountPath + "/" + TLSKeyFile})
	add(generated && in.RuntimeConfig.SQLiteBackend, kv{EnvSQLiteStoreDir, mp})

	user := overrides(spec).Env
	userNames := make(map[string]bool, len(user))
	for _, e := range user {
		userNames[e.Name] = true
	}
	seen := map[string]bool{}
	keep := func(name string) bool {
		if userNames[name] || seen[name] {
			return false
		}
		seen[name] = true
		return true
	}

	var out []*corev1ac.EnvVarApplyConfiguration
	for _, e := range managed {
		if keep(e.name) {
			out = append(out, corev1ac.EnvVar().WithName(e.name).WithValue(e.value))
		}
	}
	if generated {
		secrets := slices.Clone(in.SecretEnv)
		slices.SortStableFunc(secrets, func(a, b ogxv1beta1.SecretEnvVar) int { return strings.Compare(a.Name, b.Name) })
		for _, v := range secrets {
			if keep(v.Name) {
				out = append(out, corev1ac.EnvVar().WithName(v.Name).WithValueFrom(corev1ac.EnvVarSource().
					WithSecretKeyRef(corev1ac.SecretKeySelector().WithName(v.Ref.Name).WithKey(v.Ref.Key))))
			}
		}
	}
	for i, e := range user {
		if slices.ContainsFunc(user[i+1:], func(later corev1.EnvVar) bool { return later.Name == e.Name }) {
			continue
		}
		e := *e.DeepCopy()
		defaultEnvVar(&e)
		out = append(out, toApply[corev1ac.EnvVarApplyConfiguration](&e))
	}
	return out
}

// checkPodLists finds the render-time user errors (docs/children.md,
// Render-time errors): duplicate keys in the keyed lists of the pod template
// that come from the user, and user volumes that take a managed volume's name.
func checkPodLists(spec *ogxv1beta1.OGXServerSpec, in *Inputs) error {
	ov := overrides(spec)
	reserved := managedVolumeNames()
	seenVol := map[string]int{}
	for i, v := range ov.Volumes {
		field := fmt.Sprintf("workload.overrides.volumes[%d]", i)
		if slices.Contains(reserved, v.Name) {
			return &InvalidSpecError{Field: field, Message: fmt.Sprintf("name %q is reserved by ogx-controller", v.Name)}
		}
		if j, dup := seenVol[v.Name]; dup {
			return &InvalidSpecError{Field: field, Message: fmt.Sprintf("duplicate volume name %q (also workload.overrides.volumes[%d])", v.Name, j)}
		}
		seenVol[v.Name] = i
	}

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
	seenPath := map[string]int{}
	for i, m := range ov.VolumeMounts {
		field := fmt.Sprintf("workload.overrides.volumeMounts[%d]", i)
		if vol, ok := managedPaths[m.MountPath]; ok {
			return &InvalidSpecError{Field: field, Message: fmt.Sprintf("duplicate mountPath %q (used by the %s volume of ogx-controller)", m.MountPath, vol)}
		}
		if j, dup := seenPath[m.MountPath]; dup {
			return &InvalidSpecError{Field: field, Message: fmt.Sprintf("duplicate mountPath %q (also workload.overrides.volumeMounts[%d])", m.MountPath, j)}
		}
		seenPath[m.MountPath] = i
	}

	if spec.Workload != nil {
		type tsKey struct {
			topologyKey string
			when        corev1.UnsatisfiableConstraintAction
		}
		seenTS := map[tsKey]int{}
		for i, c := range spec.Workload.TopologySpreadConstraints {
			k := tsKey{c.TopologyKey, c.WhenUnsatisfiable}
			if j, dup := seenTS[k]; dup {
				return &InvalidSpecError{
					Field: fmt.Sprintf("workload.topologySpreadConstraints[%d]", i),
					Message: fmt.Sprintf("duplicate key (topologyKey %q, whenUnsatisfiable %q) (also workload.topologySpreadConstraints[%d])",
						c.TopologyKey, c.WhenUnsatisfiable, j),
				}
			}
			seenTS[k] = i
		}
	}
	return nil
}
