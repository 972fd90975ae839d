package probe

import (
	"encoding/json"
	"sort"
	"testing"
)

// FuzzParseProviders: whatever a server answers on /v1/providers, status
// gets only complete items, each config valid JSON, sorted by api and
// provider_id, within maxProvidersBytes, and never a panic.
func FuzzParseProviders(f *testing.F) {
	f.Add(`{"data":[{"api":"inference","provider_id":"vllm","provider_type":"remote::vllm","config":{"url":"x"},"health":{"status":"OK"}}]}`)
	f.Add(`{"data":[{"api":"b","provider_id":"2","provider_type":"t","config":null},{"api":"a","provider_id":"1","provider_type":"t"},{"api":""}]}`)
	f.Add(`{"data":null}`)
	f.Add(`[1,2]`)
	f.Fuzz(func(t *testing.T, body string) {
		out := parseProviders([]byte(body))
		if size := jsonSize(out); size > maxProvidersBytes {
			t.Fatalf("%d bytes of JSON kept, over %d", size, maxProvidersBytes)
		}
		for _, p := range out {
			if p.API == "" || p.ProviderID == "" || p.ProviderType == "" {
				t.Fatalf("incomplete item %+v", p)
			}
			if !json.Valid(p.Config.Raw) {
				t.Fatalf("config %q is not JSON", p.Config.Raw)
			}
		}
		if !sort.SliceIsSorted(out, func(i, j int) bool {
			if out[i].API != out[j].API {
				return out[i].API < out[j].API
			}
			return out[i].ProviderID < out[j].ProviderID
		}) {
			t.Fatalf("not sorted: %+v", out)
		}
	})
}
