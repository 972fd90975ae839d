package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget is the root kind.
//
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is what is wanted.
	// +required
	Spec WidgetSpec `json:"spec"`
}

// WidgetSpec holds the fields.
//
// Second paragraph with <name>-suffix and `a|b` code.
//
// +kubebuilder:validation:XValidation:rule="has(self.size) || has(self.color)",message="size or color is required"
// +kubebuilder:validation:XValidation:rule="self.size != 3"
type WidgetSpec struct {
	Common `json:",inline"`

	// Size counts things.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=9
	// +kubebuilder:default:=2
	Size *int32 `json:"size,omitempty"`

	// Color picks one.
	// +optional
	Color Color `json:"color,omitempty"`

	// Tags label it.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:items:MinLength=2
	Tags []string `json:"tags,omitempty"`

	// Parts by name.
	Parts map[string]Part `json:"parts,omitempty"`

	// Resources are the container's.
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// Internal is never on the wire.
	Internal string `json:"-"`

	hidden string
}

// Common fields shared by specs.
type Common struct {
	// Label names it.
	Label string `json:"label"`
}

// Color is a paint.
//
// +kubebuilder:validation:Enum=red;"blue"
type Color string

// Part is one part.
type Part struct {
	// Weight in grams.
	Weight int `json:"weight"`
}

// Unused is reached from no kind.
type Unused struct {
	X string `json:"x"`
}
