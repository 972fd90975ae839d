package render

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/utils/ptr"
)

// viaJSON converts v into a *T by a JSON round trip. It turns a user-supplied
// API value (a Volume, an EnvVar, a NetworkPolicy rule, ...) into the apply
// configuration of its type, whose JSON mirrors it, so exactly the fields the
// user set are kept where hand-written converters could get one wrong; and
// rendered metadata into the plain JSON values of an unstructured object.
// Only mismatched types can make it fail, a programming error any test of the
// call site catches, so it panics rather than widen every render signature.
func viaJSON[T any](v any) *T {
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

// The default* functions write, on deep copies of user input, the defaults
// the API server adds inside atomic structs and lists: Extract<Kind> returns
// those whole, so without them a converged object would never compare equal
// (docs/controllers.md, No-op skip and drift).

// defaultFieldRef sets the apiVersion an ObjectFieldSelector defaults to.
func defaultFieldRef(f *corev1.ObjectFieldSelector) {
	if f != nil && f.APIVersion == "" {
		f.APIVersion = "v1"
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
// items and the projected sources, including a token's one-hour expiry.
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
				t.ExpirationSeconds = ptr.To[int64](3600)
			}
		}
	}
}

// defaultPolicyPorts sets protocol TCP on NetworkPolicy ports that omit it;
// ingress and egress rules are atomic lists.
func defaultPolicyPorts(ports []networkingv1.NetworkPolicyPort) {
	for i := range ports {
		if ports[i].Protocol == nil {
			ports[i].Protocol = ptr.To(corev1.ProtocolTCP)
		}
	}
}
