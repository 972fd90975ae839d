package v1beta1

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Fixed names of the storage secret variables (docs/config-generation.md,
// Secret env vars).
const (
	EnvStorageKVPassword          = "OGX_STORAGE_KV_PASSWORD"
	EnvStorageSQLConnectionString = "OGX_STORAGE_SQL_CONNECTION_STRING"
)

// ReservedEnvNames are the variables ogx-controller sets on the server
// container itself; no Secret reference may produce one of them. It is a
// function rather than a variable so that no caller can change the list.
func ReservedEnvNames() []string {
	return []string{
		"OGX_WORKERS", "OGX_PORT", "OGX_CONFIG", "OGX_REGISTRY_REFRESH_INTERVAL_SECONDS",
		"OGX_METRICS_ENDPOINT_ENABLED", "OGX_METRICS_HOST", "OGX_METRICS_PORT",
		"OGX_TLS_CERTFILE", "OGX_TLS_KEYFILE", "OGX_TLS_CLIENT_CERT", "OGX_TLS_CLIENT_KEY",
	}
}

// IsReservedEnvName reports whether name is one of ReservedEnvNames.
func IsReservedEnvName(name string) bool {
	for _, r := range ReservedEnvNames() {
		if r == name {
			return true
		}
	}
	return false
}

var envNameRE = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// NormEnvName turns s into an environment variable name fragment: upper case,
// every run of characters outside [A-Z0-9] replaced by one "_", "_" trimmed at
// both ends, "_" for an empty result and a "_" prefix before a leading digit.
func NormEnvName(s string) string {
	var b strings.Builder
	pendingSep := false
	for _, r := range strings.ToUpper(s) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			if pendingSep && b.Len() > 0 {
				b.WriteByte('_')
			}
			pendingSep = false
			b.WriteRune(r)
			continue
		}
		pendingSep = true
	}
	out := b.String()
	switch {
	case out == "":
		return "_"
	case out[0] >= '0' && out[0] <= '9':
		return "_" + out
	}
	return out
}

// SecretEnvVar is one environment variable that carries a Secret value into
// the server container through valueFrom.secretKeyRef.
// +k8s:deepcopy-gen=false
type SecretEnvVar struct {
	// Name is the variable's name.
	Name string
	// Ref is the Secret key it comes from.
	Ref SecretKeyRef
	// Path is the field path of the first reference that produced it.
	Path *field.Path
}

// SecretEnv collects the Secret-backed variables of spec.providers and
// spec.storage (docs/config-generation.md, Secret env vars): providers in
// canonical order, then the storage kv and sql references. Two references with
// the same name and the same Secret key are one variable. The result is sorted
// by name. Errors name the later of two colliding references, and any
// reference whose name is reserved or not a valid variable name. Admission
// (check A8) and config generation both call this, so they can never disagree.
func SecretEnv(spec *OGXServerSpec) ([]SecretEnvVar, field.ErrorList) {
	var (
		vars []SecretEnvVar
		errs field.ErrorList
		seen = map[string]int{}
	)
	add := func(name string, ref SecretKeyRef, path *field.Path) {
		if !envNameRE.MatchString(name) {
			errs = append(errs, field.Invalid(path, ref.Name+"/"+ref.Key, fmt.Sprintf("invalid env var name %s", name)))
			return
		}
		if IsReservedEnvName(name) {
			errs = append(errs, field.Invalid(path, ref.Name+"/"+ref.Key, fmt.Sprintf("env var name %s is reserved by ogx-controller", name)))
			return
		}
		if i, ok := seen[name]; ok {
			if first := vars[i].Ref; first != ref {
				errs = append(errs, field.Invalid(path, ref.Name+"/"+ref.Key, fmt.Sprintf(
					"env var name collision for %s: %s/%s conflicts with %s/%s", name, first.Name, first.Key, ref.Name, ref.Key)))
			}
			return
		}
		seen[name] = len(vars)
		vars = append(vars, SecretEnvVar{Name: name, Ref: ref, Path: path})
	}
	for _, e := range spec.Providers.Entries() {
		for _, s := range e.Secrets {
			add("OGX_"+NormEnvName(e.ID)+"_"+s.EnvSuffix, s.Ref, s.Path)
		}
	}
	if st := spec.Storage; st != nil {
		if st.KV != nil && st.KV.Password != nil {
			add(EnvStorageKVPassword, *st.KV.Password, field.NewPath("spec", "storage", "kv", "password"))
		}
		if st.SQL != nil && st.SQL.ConnectionString != nil {
			add(EnvStorageSQLConnectionString, *st.SQL.ConnectionString, field.NewPath("spec", "storage", "sql", "connectionString"))
		}
	}
	sort.SliceStable(vars, func(i, j int) bool { return vars[i].Name < vars[j].Name })
	return vars, errs
}
