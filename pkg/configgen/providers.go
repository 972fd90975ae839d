package configgen

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// apiOrder is the canonical order of the seven provider APIs
// (docs/config-generation.md, Layout, IDs and order); it is also the order of
// the env collection and of warnings.
var apiOrder = []string{
	v1beta1.APIInference, v1beta1.APIVectorIO, v1beta1.APIToolRuntime, v1beta1.APIFiles,
	v1beta1.APIBatches, v1beta1.APIResponses, v1beta1.APIFileProcessors,
}

// Mount paths of the TLS material (docs/config-generation.md, TLS).
const (
	serverCertFile = "/etc/ogx-tls/server/tls.crt"
	serverKeyFile  = "/etc/ogx-tls/server/tls.key"
	clientCertFile = "/etc/ogx-tls/client/tls.crt"
	clientKeyFile  = "/etc/ogx-tls/client/tls.key"
)

// expandProviders turns spec.providers into config entries per API. The
// walk, the IDs and the Secret fields come from ProvidersSpec.Entries, the
// same walk admission and the env collection use, so the three can never
// disagree on order or names. Only the config keys are built here.
func expandProviders(spec *v1beta1.OGXServerSpec) (map[string][]any, []v1beta1.ProviderEntry, field.ErrorList) {
	entries := spec.Providers.Entries()
	identity := spec.TLS != nil && spec.TLS.Identity != nil
	lists := map[string][]any{}
	var errs field.ErrorList
	for _, e := range entries {
		cfg, es := providerConfig(e, identity)
		if len(es) > 0 {
			errs = append(errs, es...)
			continue
		}
		lists[e.API] = append(lists[e.API], map[string]any{
			"provider_id":   e.ID,
			"provider_type": e.Type,
			"config":        cfg,
		})
	}
	return lists, entries, errs
}

// envRef is the config value of a Secret field, ${env.OGX_<NORM(id)>_<FIELD>}
// (docs/config-generation.md, Secret env vars): the variable without a
// default, so a missing variable fails server startup loudly.
func envRef(providerID, suffix string) string {
	return "${env.OGX_" + v1beta1.NormEnvName(providerID) + "_" + suffix + "}"
}

// providerConfig builds one provider's config map, Secret references
// included, and reports missing required fields (E18).
func providerConfig(e v1beta1.ProviderEntry, identity bool) (map[string]any, field.ErrorList) {
	b := &configBuilder{entry: e, cfg: map[string]any{}}
	switch p := e.Provider.(type) {
	case *v1beta1.CustomProvider:
		b.custom(p)
	default:
		if !b.inference(identity) && !b.vectorIO() && !b.tools() {
			b.filesAndProcessors()
		}
	}
	if len(b.errs) > 0 {
		return nil, b.errs
	}
	for _, s := range e.Secrets {
		b.cfg[s.ConfigKey] = envRef(e.ID, s.EnvSuffix)
	}
	return b.cfg, nil
}

// configBuilder collects one provider's config keys and its errors.
type configBuilder struct {
	entry v1beta1.ProviderEntry
	cfg   map[string]any
	errs  field.ErrorList
}

// require records E18 for the spec field name when ok is false.
func (b *configBuilder) require(ok bool, name string) {
	if !ok {
		p := b.entry.Path.Child(name)
		b.errs = append(b.errs, problem(p, specPath(p)+" is required"))
	}
}

// refSet reports whether a required (non-pointer) Secret reference is given;
// the walker treats an all-empty reference as absent, and so does this.
func refSet(r v1beta1.SecretKeyRef) bool {
	return r.Name != "" || r.Key != ""
}

// Setters for "if set" (docs/config-generation.md, Typed kinds): strings when
// non-empty, optional numbers and booleans when present, lists when non-empty.

func setStr(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

func setInt(m map[string]any, k string, v *int) {
	if v != nil {
		m[k] = *v
	}
}

func setBool(m map[string]any, k string, v *bool) {
	if v != nil {
		m[k] = *v
	}
}

func setList(m map[string]any, k string, v []string) {
	if len(v) > 0 {
		l := make([]any, len(v))
		for i, s := range v {
			l[i] = s
		}
		m[k] = l
	}
}

// setMap sets m[k] = v when v has at least one key.
func setMap(m map[string]any, k string, v map[string]any) {
	if len(v) > 0 {
		m[k] = v
	}
}
