package render

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// toApply converts a user-supplied API value (a corev1.Volume, an EnvVar, a
// NetworkPolicy rule, ...) into the apply configuration of the same type by a
// JSON round trip. Apply configurations mirror the API types field by field
// with the same JSON names, so the round trip is lossless and keeps exactly
// the fields the user set; writing converters by hand for every volume source
// would only add places to get a field wrong.
//
// A failure can only come from pairing mismatched types, a programming error
// that every test exercising the call site would catch, so it panics instead
// of widening every render signature with an impossible error.
func toApply[T any](v any) *T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("render: marshal %T: %v", v, err))
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		panic(fmt.Sprintf("render: convert %T to %T: %v", v, out, err))
	}
	return out
}

// The functions below write, on deep copies of user input, the defaults the
// API server would add inside atomic structs and lists. Extract<Kind> returns
// an atomic value whole, defaults included, so without them a converged object
// would never compare equal to the desired one and every pass would send a
// no-op apply (docs/controllers.md, No-op skip and drift). Defaults of
// granular fields need no such treatment: they are not part of
// ogx-controller's field set.

// defaultFieldRef fills apiVersion of an ObjectFieldSelector (an atomic
// struct) as the API server does.
func defaultFieldRef(f *corev1.ObjectFieldSelector) {
	if f != nil && f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// defaultEnvVar defaults the atomic parts of a user env entry.
func defaultEnvVar(e *corev1.EnvVar) {
	if e.ValueFrom != nil {
		defaultFieldRef(e.ValueFrom.FieldRef)
	}
}

// defaultDownwardAPIItems defaults the items of a downward API volume or
// projection, an atomic list.
func defaultDownwardAPIItems(items []corev1.DownwardAPIVolumeFile) {
	for i := range items {
		defaultFieldRef(items[i].FieldRef)
	}
}

// defaultVolume defaults the atomic parts of a user volume: downward API
// items, and the projected sources list (atomic) including the token
// projection's expirationSeconds (one hour).
func defaultVolume(v *corev1.Volume) {
	if v.DownwardAPI != nil {
		defaultDownwardAPIItems(v.DownwardAPI.Items)
	}
	if v.Projected != nil {
		for i := range v.Projected.Sources {
			src := &v.Projected.Sources[i]
			if src.DownwardAPI != nil {
				defaultDownwardAPIItems(src.DownwardAPI.Items)
			}
			if t := src.ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
				hour := int64(3600)
				t.ExpirationSeconds = &hour
			}
		}
	}
}

// defaultPolicyPorts sets protocol TCP on NetworkPolicy ports that omit it;
// ingress and egress rules are atomic lists.
func defaultPolicyPorts(ports []networkingv1.NetworkPolicyPort) {
	for i := range ports {
		if ports[i].Protocol == nil {
			tcp := corev1.ProtocolTCP
			ports[i].Protocol = &tcp
		}
	}
}
