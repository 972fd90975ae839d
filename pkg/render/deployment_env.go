package render

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// EnvTLSClientKey holds the client identity key's path; pkg/resolve's errors
// about that key name it.
const EnvTLSClientKey = "OGX_TLS_CLIENT_KEY"

// metricsHostAll makes the metrics endpoint listen on every interface, so
// that the Service and the monitoring stack can reach it.
const metricsHostAll = "0.0.0.0"

// env builds the container environment in the order of docs/children.md,
// Environment: a user entry replaces every managed one of its name and comes
// last, and of a repeated user name only the last entry is kept (env is a
// keyed list for apply).
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
	add(true, envVar{"HF_HOME", mp})
	add(in.CABundleHash != "", envVar{"SSL_CERT_FILE", CABundleFilePath})
	add(true, envVar{"OGX_WORKERS", strconv.Itoa(int(w))})
	add(true, envVar{"OGX_PORT", strconv.Itoa(int(spec.Port()))})
	add(configActive(in), envVar{"RUN_CONFIG_PATH", ConfigFilePath}, envVar{"OGX_CONFIG", ConfigFilePath})
	if r := spec.RegistryRefreshIntervalSeconds; r != nil {
		add(true, envVar{"OGX_REGISTRY_REFRESH_INTERVAL_SECONDS", strconv.Itoa(int(*r))})
	}
	add(spec.MonitoringEnabled(),
		envVar{"OGX_METRICS_ENDPOINT_ENABLED", "1"},
		envVar{"OGX_METRICS_HOST", metricsHostAll},
		envVar{"OGX_METRICS_PORT", strconv.Itoa(int(spec.MetricsPort()))})
	add(spec.ServerTLS() != nil,
		envVar{"OGX_TLS_CERTFILE", ServerTLSMountPath + "/" + TLSCertFile},
		envVar{"OGX_TLS_KEYFILE", ServerTLSMountPath + "/" + TLSKeyFile})
	add(identity(spec) != nil,
		envVar{"OGX_TLS_CLIENT_CERT", ClientIdentityMountPath + "/" + TLSCertFile},
		envVar{EnvTLSClientKey, ClientIdentityMountPath + "/" + TLSKeyFile})
	add(generated && in.RuntimeConfig.SQLiteBackend, envVar{"SQLITE_STORE_DIR", mp})
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
		if e.ValueFrom != nil {
			defaultFieldRef(e.ValueFrom.FieldRef)
		}
		out = append(out, viaJSON[corev1ac.EnvVarApplyConfiguration](&e))
	}
	return out
}
