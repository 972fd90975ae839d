package apply

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/worker"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// Guard applies the ownership rules to an existing object with the child's
// name: nil means ogx-controller may write it.
func Guard(owner *ogxv1beta1.OGXServer, kind string, obj metav1.Object) error {
	ref := metav1.GetControllerOfNoCopy(obj)
	switch {
	case ref != nil && ref.UID == owner.UID:
		return nil
	case ref == nil && obj.GetLabels()[render.LabelManagedBy] == render.ManagedByValue:
		// An orphan with our label, e.g. a Deployment whose owner reference
		// the upstream operator stripped: adopt it.
		return nil
	case ref != nil && ref.Kind == "OGXServer" && ref.Name == owner.Name && IsOGXGroup(ref.APIVersion):
		return &worker.WaitingError{Message: fmt.Sprintf(
			"waiting for garbage collection of %s %s owned by a previous OGXServer", kind, obj.GetName())}
	}
	return resolve.NewUserError(ogxv1beta1.ReasonChildConflict, "%s %s exists and is not managed by this OGXServer", kind, obj.GetName())
}

// IsOGXGroup reports whether apiVersion is of the ogx.io group.
func IsOGXGroup(apiVersion string) bool {
	gv, err := schema.ParseGroupVersion(apiVersion)
	return err == nil && gv.Group == ogxv1beta1.GroupName
}
