package render

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
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

// metricsHostAll makes the metrics endpoint listen on every interface, so
// that the Service and the monitoring stack can reach it.
const metricsHostAll = "0.0.0.0"

// env builds the container environment in the exact order of docs/children.md,
// Environment, and applies the override rule: a user entry replaces every
// managed entry of the same name and moves to the end, and of repeated user
// names only the last occurrence is kept (env is a keyed list for apply, so a
// repeated name would be rejected).
func env(spec *ogxv1beta1.OGXServerSpec, in *Inputs) []*corev1ac.EnvVarApplyConfiguration {
	user := overrides(spec).Env
	keep := envKeeper(user)
	var out []*corev1ac.EnvVarApplyConfiguration
	for _, e := range managedEnv(spec, in) {
		if keep(e.name) {
			out = append(out, corev1ac.EnvVar().WithName(e.name).WithValue(e.value))
		}
	}
	if in.RuntimeConfig.Mode == ogxv1beta1.ConfigModeGenerated {
		out = append(out, secretEnv(in.SecretEnv, keep)...)
	}
	return append(out, userEnv(user)...)
}

// envVar is one managed variable with a literal value.
type envVar struct{ name, value string }

// managedEnv lists the variables ogx-controller sets with a literal value,
// in the documented order, each only when its condition holds.
func managedEnv(spec *ogxv1beta1.OGXServerSpec, in *Inputs) []envVar {
	mp := spec.MountPath()
	w, _ := workers(spec)
	generated := in.RuntimeConfig.Mode == ogxv1beta1.ConfigModeGenerated

	var managed []envVar
	add := func(cond bool, vars ...envVar) {
		if cond {
			managed = append(managed, vars...)
		}
	}
	add(true, envVar{EnvHFHome, mp})
	add(in.CABundleHash != "", envVar{EnvSSLCertFile, CABundleFilePath})
	add(true, envVar{EnvWorkers, strconv.Itoa(int(w))})
	add(true, envVar{EnvPort, strconv.Itoa(int(spec.Port()))})
	add(configActive(in), envVar{EnvRunConfigPath, ConfigFilePath}, envVar{EnvConfig, ConfigFilePath})
	if r := spec.RegistryRefreshIntervalSeconds; r != nil {
		add(true, envVar{EnvRegistryRefreshInterval, strconv.Itoa(int(*r))})
	}
	add(spec.MonitoringEnabled(),
		envVar{EnvMetricsEndpointEnabled, "1"},
		envVar{EnvMetricsHost, metricsHostAll},
		envVar{EnvMetricsPort, strconv.Itoa(int(spec.MetricsPort()))})
	add(spec.ServerTLS() != nil,
		envVar{EnvTLSCertFile, ServerTLSMountPath + "/" + TLSCertFile},
		envVar{EnvTLSKeyFile, ServerTLSMountPath + "/" + TLSKeyFile})
	add(identity(spec) != nil,
		envVar{EnvTLSClientCert, ClientIdentityMountPath + "/" + TLSCertFile},
		envVar{EnvTLSClientKey, ClientIdentityMountPath + "/" + TLSKeyFile})
	add(generated && in.RuntimeConfig.SQLiteBackend, envVar{EnvSQLiteStoreDir, mp})
	return managed
}

// envKeeper returns the filter of managed and Secret variables: a name the
// user sets is dropped (the user's entry wins), and so is a name already
// kept.
func envKeeper(user []corev1.EnvVar) func(name string) bool {
	userNames := make(map[string]bool, len(user))
	for _, e := range user {
		userNames[e.Name] = true
	}
	seen := map[string]bool{}
	return func(name string) bool {
		if userNames[name] || seen[name] {
			return false
		}
		seen[name] = true
		return true
	}
}

// secretEnv is the generated config's Secret references, sorted by name.
func secretEnv(vars []ogxv1beta1.SecretEnvVar, keep func(string) bool) []*corev1ac.EnvVarApplyConfiguration {
	secrets := slices.Clone(vars)
	slices.SortStableFunc(secrets, func(a, b ogxv1beta1.SecretEnvVar) int { return strings.Compare(a.Name, b.Name) })
	var out []*corev1ac.EnvVarApplyConfiguration
	for _, v := range secrets {
		if keep(v.Name) {
			out = append(out, corev1ac.EnvVar().WithName(v.Name).WithValueFrom(corev1ac.EnvVarSource().
				WithSecretKeyRef(corev1ac.SecretKeySelector().WithName(v.Ref.Name).WithKey(v.Ref.Key))))
		}
	}
	return out
}

// userEnv is workload.overrides.env, of a repeated name only the last
// entry, its atomic parts defaulted (as the API server stores them).
func userEnv(user []corev1.EnvVar) []*corev1ac.EnvVarApplyConfiguration {
	var out []*corev1ac.EnvVarApplyConfiguration
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
