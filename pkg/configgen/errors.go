package configgen

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// SpecError is every problem ValidateSpec found in the spec alone (pipeline
// step 2 of docs/config-generation.md). Errs keeps the field paths for
// admission; Error joins the messages, which carry the texts listed in
// docs/config-generation.md, Errors and warnings.
type SpecError struct {
	Errs field.ErrorList
}

func (e *SpecError) Error() string {
	msgs := make([]string, 0, len(e.Errs))
	for _, fe := range e.Errs {
		msgs = append(msgs, fe.Detail)
	}
	return strings.Join(msgs, "; ")
}

// problem records a spec error whose Detail is the user-facing message.
func problem(path *field.Path, msg string) *field.Error {
	return &field.Error{Type: field.ErrorTypeInvalid, Field: path.String(), Detail: msg}
}

// specPath is a field path as the generator's messages spell it: without the
// leading "spec.".
func specPath(p *field.Path) string {
	return strings.TrimPrefix(p.String(), "spec.")
}
