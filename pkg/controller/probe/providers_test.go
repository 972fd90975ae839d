package probe

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestParseProvidersBound: a report within maxProvidersBytes is kept whole;
// one with large configs keeps every item with its config replaced by the
// omitted marker; one with too many items even so keeps the longest prefix
// that fits.
func TestParseProvidersBound(t *testing.T) {
	report := func(n, configBytes int) []byte {
		var items []string
		for i := range n {
			items = append(items, fmt.Sprintf(`{"api":"inference","provider_id":"p%05d","provider_type":"remote::vllm","config":{"k":%q},"health":{"status":"OK"}}`,
				i, strings.Repeat("x", configBytes)))
		}
		return []byte(`{"data":[` + strings.Join(items, ",") + `]}`)
	}
	cases := []struct {
		name       string
		body       []byte
		wantN      int
		wantMarker bool
	}{
		{"small: whole", report(3, 100), 3, false},
		{"large configs: every item, configs omitted", report(10, 8<<10), 10, true},
		{"too many items: a prefix", report(2000, 0), 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := parseProviders(c.body)
			size := jsonSize(got)
			for _, p := range got {
				if marked := string(p.Config.Raw) == string(omittedConfig); marked != c.wantMarker {
					t.Errorf("%s config %s: omitted marker %v, want %v", p.ProviderID, p.Config.Raw, marked, c.wantMarker)
				}
			}
			if size > maxProvidersBytes {
				t.Errorf("%d bytes kept, over %d", size, maxProvidersBytes)
			}
			if c.wantN > 0 && len(got) != c.wantN {
				t.Errorf("%d items kept, want %d", len(got), c.wantN)
			}
			if c.wantN == 0 {
				// The prefix: as many as fit, in order, and not one more.
				if len(got) == 0 || len(got) >= 2000 || got[len(got)-1].ProviderID != fmt.Sprintf("p%05d", len(got)-1) {
					t.Errorf("kept %d items, want a proper prefix", len(got))
				}
			}
		})
	}
	// Escaping counts: a message of control characters is six bytes of JSON
	// per byte, and is cut to maxHealthMessage bytes first.
	esc := []byte(`{"data":[{"api":"a","provider_id":"p","provider_type":"t","health":{"status":"Error","message":"` +
		strings.Repeat(`\u0001`, 20000) + `"}}]}`)
	if got := parseProviders(esc); jsonSize(got) > maxProvidersBytes || len(got) != 1 || len(got[0].Health.Message) != maxHealthMessage {
		t.Errorf("escaped message: %d bytes of JSON, %d items", jsonSize(got), len(got))
	}
	if !json.Valid(omittedConfig) {
		t.Fatal("the omitted marker is not JSON")
	}
}
