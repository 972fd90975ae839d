package probe

import (
	"cmp"
	"encoding/json"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
)

// maxProvidersBytes bounds what status.providers holds of one server. The
// list mirrors what the server reports (up to maxProbeBody), and every
// OGXServer's status lives in etcd and in each replica's informer cache: a
// server reporting large configs must not grow either by a megabyte.
const maxProvidersBytes = 32 << 10

// omittedConfig stands in for the configs boundProviders drops.
// docs/status.md says where to see them whole (the server's /v1/providers).
var omittedConfig = json.RawMessage(`{"ogx.io/omitted":true}`)

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

// boundProviders keeps items within limit bytes of JSON, as status
// stores them: every health message is cut to maxHealthMessage bytes; then,
// if still over, every config is replaced by omittedConfig, and if the
// items alone are still too many, the list is cut to the longest prefix
// that fits. Within the limit the items are returned unchanged.
func boundProviders(items []ogxv1beta1.ProviderInfo, limit int) []ogxv1beta1.ProviderInfo {
	for i := range items {
		items[i].Health.Message = events.TruncateUTF8(items[i].Health.Message, maxHealthMessage)
	}
	if jsonSize(items) <= limit {
		return items
	}
	total := 2 // the brackets
	for i := range items {
		items[i].Config = apiextensionsv1.JSON{Raw: omittedConfig}
		b, _ := json.Marshal(&items[i])
		if total += len(b) + 1; total > limit {
			return items[:i]
		}
	}
	return items
}

// maxHealthMessage bounds one provider's health message in status.
const maxHealthMessage = 1 << 10

// jsonSize is the length of items as JSON.
func jsonSize(items []ogxv1beta1.ProviderInfo) int {
	b, _ := json.Marshal(items)
	return len(b)
}
