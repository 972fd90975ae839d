package controllertest

// What the tests of the apply guard share: the owners and labels of an
// existing object, and the outcomes the guard records for it.

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/apply"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// OwnerRefs is a controller reference to the named owner.
func OwnerRefs(apiVersion, kind, name string, uid types.UID) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: ptr.To(true)}}
}

// ManagedLabels are the labels of an object the operator manages.
func ManagedLabels() map[string]string {
	return map[string]string{render.LabelManagedBy: render.ManagedByValue}
}

// Conflict is the outcome of a child that exists and is not this
// server's.
func Conflict(kind, name string) base.Outcome {
	return base.Outcome{Class: base.OutcomeUserError, Reason: ogxv1beta1.ReasonChildConflict,
		Message: kind + " " + name + " exists and is not managed by this OGXServer"}
}

// WaitingForGC is the outcome of a child a previous OGXServer of the same
// name still owns.
func WaitingForGC(kind, name string) base.Outcome {
	return base.Outcome{Class: base.OutcomeWaiting, Reason: ogxv1beta1.ReasonProgressing,
		Message: "waiting for garbage collection of " + kind + " " + name + " owned by a previous OGXServer"}
}

// GroupVersion is the OGXServer API's group and version.
const GroupVersion = "ogx.io/v1beta1"

// IsCreateOnly reports whether a is a create-only apply (resourceVersion
// apply.AbsentResourceVersion): against an existing object the API server refuses
// it, so it can never change what it guards.
func IsCreateOnly(a clienttesting.Action) bool {
	p, ok := a.(clienttesting.PatchAction)
	if !ok || p.GetPatchType() != types.ApplyPatchType {
		return false
	}
	var body struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	return json.Unmarshal(p.GetPatch(), &body) == nil && body.Metadata.ResourceVersion == apply.AbsentResourceVersion
}

// WithoutCreateOnly drops the create-only applies from actions.
func WithoutCreateOnly(actions []clienttesting.Action) []clienttesting.Action {
	var out []clienttesting.Action
	for _, a := range actions {
		if !IsCreateOnly(a) {
			out = append(out, a)
		}
	}
	return out
}
