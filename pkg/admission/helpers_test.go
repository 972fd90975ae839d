package admission

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

func ptr[T any](v T) *T { return &v }

// server returns a valid OGXServer that each case mutates.
func server(mutate ...func(*ogxv1beta1.OGXServer)) *ogxv1beta1.OGXServer {
	s := &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{Name: "llm", Namespace: "ns"},
		Spec:       ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Name: ptr("starter")}},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}

func remoteInference(r ogxv1beta1.RemoteInferenceProviders) func(*ogxv1beta1.OGXServer) {
	return func(s *ogxv1beta1.OGXServer) {
		s.Spec.Providers = &ogxv1beta1.ProvidersSpec{Inference: &ogxv1beta1.InferenceProviders{Remote: &r}}
	}
}

func key(n, k string) ogxv1beta1.SecretKeyRef { return ogxv1beta1.SecretKeyRef{Name: n, Key: k} }
