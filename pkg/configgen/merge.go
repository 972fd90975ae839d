package configgen

import (
	"fmt"
	"slices"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// mergeResult is the merged tree and the figures derived while building it.
type mergeResult struct {
	out           map[string]any
	providerCount int
	configVersion int
	warnings      []string
}

// ownedKeys are the top-level keys the merge produces; every other base key is
// copied verbatim.
var ownedKeys = map[string]bool{
	"version": true, "distro_name": true, "apis": true, "providers": true,
	"registered_resources": true, "vector_stores": true, "server": true, "storage": true,
}

// merge builds the output tree key by key, as the table of
// docs/config-generation.md, Merge, lists.
func merge(spec *v1beta1.OGXServerSpec, p *plan, b *base) (*mergeResult, error) {
	r := &mergeResult{out: make(map[string]any, len(b.doc)+4)}
	for k, v := range b.doc {
		if !ownedKeys[k] {
			r.out[k] = v
		}
	}
	r.out["version"] = b.version
	var w string
	if r.configVersion, w = configVersion(b.version); w != "" {
		r.warnings = append(r.warnings, w)
	}
	r.out["distro_name"] = distroName(spec)
	if apis := filterAPIs(b.doc["apis"], spec.DisabledAPIs); len(apis) > 0 {
		r.out["apis"] = apis
	}
	providers := r.mergeProviders(p, b.doc)
	if len(providers) > 0 {
		r.out["providers"] = providers
	}
	rr, err := r.registeredResources(spec, providers, b.doc["registered_resources"])
	if err != nil {
		return nil, err
	}
	r.out["registered_resources"] = rr
	if v := b.doc["vector_stores"]; v != nil {
		r.out["vector_stores"] = v
	}
	r.out["server"] = server(spec, b.doc["server"])
	if p.storage != nil {
		r.out["storage"] = p.storage
	} else if v := b.doc["storage"]; v != nil {
		r.out["storage"] = v
	}
	return r, nil
}

// distroName is the distribution name, else the image as written.
func distroName(spec *v1beta1.OGXServerSpec) string {
	if n := spec.DistributionName(); n != "" {
		return n
	}
	return spec.DistributionImage()
}

// filterAPIs is the base apis list in base order without the disabled APIs.
// APIs are never added.
func filterAPIs(v any, disabled []v1beta1.DisabledAPI) []any {
	list, _ := v.([]any)
	out := make([]any, 0, len(list))
	for _, a := range list {
		if !slices.Contains(disabled, v1beta1.DisabledAPI(a.(string))) {
			out = append(out, a)
		}
	}
	return out
}

// mergeProviders starts from the base providers (entries normalized, other
// keys kept) and replaces the whole list of every API the spec expands to
// at least one provider. It also counts providers and adds W1 and W4.
func (r *mergeResult) mergeProviders(p *plan, doc map[string]any) map[string]any {
	merged := map[string]any{}
	if bp, ok := doc["providers"].(map[string]any); ok {
		for api, lv := range bp {
			merged[api] = normalizeBaseList(lv)
		}
	}
	baseAPIs, listsAPIs := doc["apis"].([]any)
	for _, api := range apiOrder {
		list := p.providers[api]
		if len(list) == 0 {
			continue
		}
		merged[api] = list
		if listsAPIs && !slices.Contains(baseAPIs, any(api)) {
			r.warnings = append(r.warnings, fmt.Sprintf("providers configured for API %s, which the base config does not list in apis", api))
		}
	}
	seen := map[string]int{}
	for _, e := range p.entries {
		if seen[e.ID]++; seen[e.ID] == 2 {
			r.warnings = append(r.warnings, "duplicate provider_id "+e.ID)
		}
	}
	for _, lv := range merged {
		if list, ok := lv.([]any); ok {
			r.providerCount += len(list)
		}
	}
	return merged
}

// normalizeBaseList keeps base entries verbatim (unknown keys included) but
// gives each a config mapping and string-valued provider_id and
// provider_type keys. A null list stays null.
func normalizeBaseList(lv any) any {
	list, ok := lv.([]any)
	if !ok {
		return lv
	}
	out := make([]any, len(list))
	for i, e := range list {
		m := mapCopy(e)
		if c, _ := mapGet(m, "config"); c == nil {
			mapSet(m, "config", map[string]any{})
		}
		for _, k := range []string{"provider_id", "provider_type"} {
			if v, _ := mapGet(m, k); v == nil {
				mapSet(m, k, "")
			}
		}
		out[i] = m
	}
	return out
}

// registeredResources keeps every base key, replaces models by the user
// models when there are any, and drops empty models and vector_stores lists.
func (r *mergeResult) registeredResources(spec *v1beta1.OGXServerSpec, providers map[string]any, baseRR any) (any, error) {
	rr := any(map[string]any{})
	if baseRR != nil {
		rr = mapCopy(baseRR)
	}
	if spec.Resources != nil && len(spec.Resources.Models) > 0 {
		inference, _ := providers[v1beta1.APIInference].([]any)
		models, warnings, err := userModels(spec.Resources.Models, inference, providerIDs(providers))
		if err != nil {
			return nil, err
		}
		r.warnings = append(r.warnings, warnings...)
		mapSet(rr, "models", models)
	}
	for _, k := range []string{"models", "vector_stores"} {
		if v, _ := mapGet(rr, k); v != nil {
			if list, _ := v.([]any); len(list) > 0 {
				continue
			}
		}
		mapDelete(rr, k)
	}
	return rr, nil
}

// providerIDs is the set of string provider IDs of the merged providers.
func providerIDs(providers map[string]any) map[string]bool {
	ids := map[string]bool{}
	for _, lv := range providers {
		list, _ := lv.([]any)
		for _, e := range list {
			if v, _ := mapGet(e, "provider_id"); v != nil {
				if id, ok := v.(string); ok && id != "" {
					ids[id] = true
				}
			}
		}
	}
	return ids
}

// server is a shallow copy of the base server with the effective port and,
// with spec.network.tls, the mounted serving certificate and key.
func server(spec *v1beta1.OGXServerSpec, baseServer any) any {
	s := any(map[string]any{})
	if baseServer != nil {
		s = mapCopy(baseServer)
	}
	port := int(v1beta1.DefaultServerPort)
	if spec.Network != nil && spec.Network.Port > 0 {
		port = int(spec.Network.Port)
	}
	mapSet(s, "port", port)
	if spec.ServerTLS() != nil {
		mapSet(s, "tls_certfile", serverCertFile)
		mapSet(s, "tls_keyfile", serverKeyFile)
	}
	return s
}
