package resolve

import (
	"errors"
	"fmt"
)

// The status reasons of resolution failures are the API's (ogxv1beta1.Reason*,
// docs/status.md, Terminal reasons); the controller records them with a
// user-error outcome.

// UserError is a failure only a change of the spec or of a referenced object
// can fix. Its Reason becomes the Ready/Stalled reason.
type UserError struct {
	Reason string
	// Event is the reason of the Warning Event when it is more specific
	// than the status reason (UnknownDistribution for an InvalidSpec,
	// AdoptionInvalid for an AdoptionConfigInvalid); empty means Reason.
	Event string
	Err   error
}

// EventReason is the reason of the Warning Event reporting e.
func (e *UserError) EventReason() string {
	if e.Event != "" {
		return e.Event
	}
	return e.Reason
}

func (e *UserError) Error() string { return e.Err.Error() }
func (e *UserError) Unwrap() error { return e.Err }

// NewUserError builds a UserError with a formatted message.
func NewUserError(reason, format string, args ...any) error {
	return &UserError{Reason: reason, Err: fmt.Errorf(format, args...)}
}

// IsUserError reports whether err is (or wraps) a UserError.
func IsUserError(err error) bool {
	var ue *UserError
	return errors.As(err, &ue)
}
