package status

import (
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// TestStatusEquality: a computed status equals the stored one when they
// differ only in what storing loses (sub-second time, JSON spacing and key
// order, nil against empty), and differs for any other change.
func TestStatusEquality(t *testing.T) {
	at := time.Date(2026, 12, 8, 1, 2, 3, 0, time.UTC)
	stored := func(mutate func(*ogxv1beta1.OGXServerStatus)) ogxv1beta1.OGXServerStatus {
		s := ogxv1beta1.OGXServerStatus{
			Phase:      ogxv1beta1.PhaseReady,
			Conditions: []metav1.Condition{{Type: ogxv1beta1.ConditionReady, Status: metav1.ConditionTrue, Reason: "r", Message: "m", LastTransitionTime: metav1.NewTime(at)}},
			Version:    ogxv1beta1.VersionInfo{LastUpdated: metav1.NewTime(at)},
			DistributionConfig: ogxv1beta1.DistributionConfig{
				AvailableDistributions: map[string]string{"starter": "img"},
				Providers:              []ogxv1beta1.ProviderInfo{{API: "inference", ProviderID: "p", Config: apiextensionsv1.JSON{Raw: []byte(`{"a":1,"b":[true]}`)}}},
			},
			ConfigGeneration: &ogxv1beta1.ConfigGenerationStatus{GeneratedAt: metav1.NewTime(at)},
		}
		if mutate != nil {
			mutate(&s)
		}
		return s
	}
	later := metav1.NewTime(at.Add(400 * time.Millisecond))
	for _, tc := range []struct {
		name   string
		mutate func(*ogxv1beta1.OGXServerStatus)
		equal  bool
	}{
		{"identical", nil, true},
		{"condition time within the second", func(s *ogxv1beta1.OGXServerStatus) { s.Conditions[0].LastTransitionTime = later }, true},
		{"version time within the second", func(s *ogxv1beta1.OGXServerStatus) { s.Version.LastUpdated = later }, true},
		{"generation time within the second", func(s *ogxv1beta1.OGXServerStatus) { s.ConfigGeneration.GeneratedAt = later }, true},
		{"provider config spaced and reordered", func(s *ogxv1beta1.OGXServerStatus) {
			s.DistributionConfig.Providers[0].Config.Raw = []byte(`{ "b": [ true ], "a": 1 }`)
		}, true},
		{"distributions removed", func(s *ogxv1beta1.OGXServerStatus) { s.DistributionConfig.AvailableDistributions = nil }, false},
		{"condition time a second later", func(s *ogxv1beta1.OGXServerStatus) {
			s.Conditions[0].LastTransitionTime = metav1.NewTime(at.Add(time.Second))
		}, false},
		{"provider config value", func(s *ogxv1beta1.OGXServerStatus) {
			s.DistributionConfig.Providers[0].Config.Raw = []byte(`{"a":2,"b":[true]}`)
		}, false},
		{"provider config that does not parse", func(s *ogxv1beta1.OGXServerStatus) {
			s.DistributionConfig.Providers[0].Config.Raw = []byte(`{"a":1,"b":[true]`)
		}, false},
		{"no config generation", func(s *ogxv1beta1.OGXServerStatus) { s.ConfigGeneration = nil }, false},
		{"message", func(s *ogxv1beta1.OGXServerStatus) { s.Conditions[0].Message = "other" }, false},
		{"phase", func(s *ogxv1beta1.OGXServerStatus) { s.Phase = ogxv1beta1.PhaseFailed }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := stored(nil), stored(tc.mutate)
			if got := newStatusEquality().DeepEqual(&a, &b); got != tc.equal {
				t.Errorf("equal = %v, want %v", got, tc.equal)
			}
		})
	}
	nilAndEmpty := [2]ogxv1beta1.OGXServerStatus{{}, {Conditions: []metav1.Condition{}, DistributionConfig: ogxv1beta1.DistributionConfig{AvailableDistributions: map[string]string{}}}}
	if !newStatusEquality().DeepEqual(&nilAndEmpty[0], &nilAndEmpty[1]) {
		t.Error("nil and empty conditions and map differ, want equal")
	}
}
