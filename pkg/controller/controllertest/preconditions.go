package controllertest

import (
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
)

// ApplyPreconditions makes a fake clientset honour the resourceVersion of a
// server-side apply as the API server does (the fake trackers ignore it): an
// existing object with another resourceVersion answers 409 Conflict; a
// missing object is created whatever the resourceVersion.
func ApplyPreconditions(tracker clienttesting.ObjectTracker) clienttesting.ReactionFunc {
	return func(action clienttesting.Action) (bool, runtime.Object, error) {
		p, ok := action.(clienttesting.PatchAction)
		if !ok || p.GetPatchType() != types.ApplyPatchType {
			return false, nil, nil
		}
		var body struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(p.GetPatch(), &body); err != nil || body.Metadata.ResourceVersion == "" {
			return false, nil, nil
		}
		existing, err := tracker.Get(p.GetResource(), p.GetNamespace(), p.GetName())
		if apierrors.IsNotFound(err) {
			return false, nil, nil
		}
		if err != nil {
			return true, nil, err
		}
		m, err := meta.Accessor(existing)
		if err != nil {
			return true, nil, err
		}
		if m.GetResourceVersion() != body.Metadata.ResourceVersion {
			return true, nil, apierrors.NewConflict(p.GetResource().GroupResource(), p.GetName(),
				errorString("the object has been modified; please apply your changes to the latest version and try again"))
		}
		return false, nil, nil
	}
}

// DryRunPatches makes a fake clientset answer a dry-run patch as the API
// server does, with the stored object unchanged (the fake trackers apply
// it). Register it first, so that a reactor a test adds later for dry runs
// (a refusal) runs before it.
func DryRunPatches(tracker clienttesting.ObjectTracker) clienttesting.ReactionFunc {
	return func(action clienttesting.Action) (bool, runtime.Object, error) {
		p, ok := action.(clienttesting.PatchActionImpl)
		if !ok || len(p.PatchOptions.DryRun) == 0 {
			return false, nil, nil
		}
		obj, err := tracker.Get(p.GetResource(), p.GetNamespace(), p.GetName())
		return true, obj, err
	}
}

// IsDryRun reports whether a is a dry-run patch, which changes nothing.
func IsDryRun(a clienttesting.Action) bool {
	p, ok := a.(clienttesting.PatchActionImpl)
	return ok && len(p.PatchOptions.DryRun) > 0
}

type errorString string

func (e errorString) Error() string { return string(e) }
