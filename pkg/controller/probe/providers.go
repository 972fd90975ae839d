package probe

import (
	"cmp"
	"encoding/json"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// maxProvidersBytes bounds what status.providers holds of one server. The
// list mirrors what the server reports (up to maxProbeBody), and every
// OGXServer's status lives in etcd and in each replica's informer cache: a
// server reporting large configs must not grow either by a megabyte.
const maxProvidersBytes = 32 << 10

// omittedConfig stands in for the configs boundProviders drops.
var omittedConfig = json.RawMessage(`{"ogx.io/omitted":"the reported providers exceed 32 KiB; GET /v1/providers on the server shows them whole"}`)

// parseProviders turns the data of /v1/providers into status items: items
// without api, provider_id or provider_type are dropped, a missing config is
// {}, a missing health is "Not Implemented", sorted by api and provider_id,
// and the whole bounded (boundProviders).
func parseProviders(body []byte) []ogxv1beta1.ProviderInfo {
	var resp struct {
		Data []struct {
			API          string          `json:"api"`
			ProviderID   string          `json:"provider_id"`
			ProviderType string          `json:"provider_type"`
			Config       json.RawMessage `json:"config"`
			Health       *struct {
				Status  string `json:"status"`
				Message string `json:"message"`
			} `json:"health"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &resp) != nil {
		return nil
	}
	out := []ogxv1beta1.ProviderInfo{}
	for _, d := range resp.Data {
		if d.API == "" || d.ProviderID == "" || d.ProviderType == "" {
			continue
		}
		cfg := d.Config
		if len(cfg) == 0 || string(cfg) == "null" {
			cfg = json.RawMessage("{}")
		}
		h := ogxv1beta1.ProviderHealthStatus{Status: "Not Implemented", Message: "health not reported"}
		if d.Health != nil {
			h = ogxv1beta1.ProviderHealthStatus{Status: d.Health.Status, Message: d.Health.Message}
		}
		out = append(out, ogxv1beta1.ProviderInfo{API: d.API, ProviderID: d.ProviderID, ProviderType: d.ProviderType,
			Config: apiextensionsv1.JSON{Raw: cfg}, Health: h})
	}
	slices.SortStableFunc(out, func(a, b ogxv1beta1.ProviderInfo) int {
		return cmp.Or(cmp.Compare(a.API, b.API), cmp.Compare(a.ProviderID, b.ProviderID))
	})
	return boundProviders(out, maxProvidersBytes)
}

// boundProviders keeps items within limit bytes (their strings and configs
// counted): first every config is replaced by omittedConfig, then, if the
// items alone are still too many, the list is cut to the longest prefix that
// fits. Within the limit the items are returned unchanged.
func boundProviders(items []ogxv1beta1.ProviderInfo, limit int) []ogxv1beta1.ProviderInfo {
	size := func(p *ogxv1beta1.ProviderInfo) int {
		return len(p.API) + len(p.ProviderID) + len(p.ProviderType) + len(p.Config.Raw) + len(p.Health.Status) + len(p.Health.Message)
	}
	total := 0
	for i := range items {
		total += size(&items[i])
	}
	if total <= limit {
		return items
	}
	total = 0
	for i := range items {
		items[i].Config = apiextensionsv1.JSON{Raw: omittedConfig}
		if total += size(&items[i]); total > limit {
			return items[:i]
		}
	}
	return items
}
