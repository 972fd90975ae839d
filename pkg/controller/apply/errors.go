package apply

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// isResourceVersionOnCreateRefused recognises the answer of API servers
// (kubernetes/kubernetes#106745, fixed since) that refuse an apply creating
// an object when it carries a resourceVersion.
func isResourceVersionOnCreateRefused(err error) bool {
	return apierrors.IsInternalError(err) && strings.Contains(err.Error(), "resourceVersion should not be set on objects to be created")
}

// isStaleTakeover reports whether a takeover patch failed its test of the
// cached resourceVersion: the API server answers a JSON patch it cannot
// apply with 422 Invalid without the field causes a validation failure
// carries. That is a race the next event resolves, not a user error.
func isStaleTakeover(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d == nil || len(d.Causes) == 0
}

// ClassifyWriteError turns a rejected write into a user error (a 4xx other
// than 409 and 429: retrying the same request cannot succeed) or leaves it
// transient.
func ClassifyWriteError(kind, name string, err error) error {
	if status, ok := err.(apierrors.APIStatus); ok {
		code := status.Status().Code
		if code >= 400 && code < 500 && code != 409 && code != 429 {
			return &resolve.UserError{Reason: ogxv1beta1.ReasonApplyFailed, Err: fmt.Errorf("%s/%s: %w", kind, name, err)}
		}
	}
	return fmt.Errorf("writing %s %s: %w", kind, name, err)
}
