// Package validationtest builds OGXServers for the tests of the validator
// and of the admission webhook that serves it, so both start from the same
// valid object.
package validationtest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// Server returns a valid OGXServer (distribution starter) with each mutation
// applied.
func Server(mutate ...func(*ogxv1beta1.OGXServer)) *ogxv1beta1.OGXServer {
	s := &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{Name: "llm", Namespace: "ns"},
		Spec:       ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Name: ptr.To("starter")}},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}

// RemoteInference sets the remote inference providers.
func RemoteInference(r ogxv1beta1.RemoteInferenceProviders) func(*ogxv1beta1.OGXServer) {
	return func(s *ogxv1beta1.OGXServer) {
		s.Spec.Providers = &ogxv1beta1.ProvidersSpec{Inference: &ogxv1beta1.InferenceProviders{Remote: &r}}
	}
}

// Key is a Secret key reference.
func Key(name, key string) ogxv1beta1.SecretKeyRef {
	return ogxv1beta1.SecretKeyRef{Name: name, Key: key}
}
