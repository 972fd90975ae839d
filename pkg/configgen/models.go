package configgen

import (
	"fmt"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// userModels builds registered_resources.models from spec.resources.models
// (docs/config-generation.md, Models). inference is the merged inference list
// (base entries included) and ids every provider ID of the merged config, for
// W3.
func userModels(specModels []v1beta1.ModelSpec, inference []any, ids map[string]bool) ([]any, []string, error) {
	var (
		out      = make([]any, 0, len(specModels))
		warnings []string
		fallback = smallestProviderID(inference)
	)
	for _, m := range specModels {
		provider := m.Provider
		if provider == "" {
			if fallback == "" {
				return nil, nil, fmt.Errorf("failed to assign provider for model %q: no explicit provider and no inference providers are configured", m.Name)
			}
			provider = fallback
		} else if !ids[provider] {
			warnings = append(warnings, fmt.Sprintf("model %s refers to provider %s, which is not in the merged config", m.Name, provider))
		}
		entry := map[string]any{"model_id": m.Name, "provider_id": provider, "model_type": "llm"}
		if m.ModelType != "" {
			entry["model_type"] = m.ModelType
		}
		if m.ContextLength != nil {
			entry["context_length"] = *m.ContextLength
		}
		if m.Quantization != "" {
			entry["quantization"] = m.Quantization
		}
		out = append(out, entry)
	}
	return out, warnings, nil
}

// smallestProviderID is the byte-wise smallest non-empty string provider_id
// of a provider list, or "".
func smallestProviderID(list []any) string {
	best := ""
	for _, e := range list {
		v, _ := mapGet(e, "provider_id")
		if id, ok := v.(string); ok && id != "" && (best == "" || id < best) {
			best = id
		}
	}
	return best
}
