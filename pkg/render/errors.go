package render

// InvalidSpecError is a user error found while rendering: the spec passed
// admission but would make the API server reject the apply (for example a
// duplicate key in a keyed list, which the API server answers with HTTP 500
// and the controller would otherwise retry forever as transient). Controllers
// classify it as a user error with reason InvalidSpec (docs/children.md,
// Render-time errors).
type InvalidSpecError struct {
	// Field is the path of the offending spec field, relative to spec, for
	// example "workload.overrides.volumes[2]".
	Field string
	// Message says what is wrong with it.
	Message string
}

func (e *InvalidSpecError) Error() string {
	return e.Field + ": " + e.Message
}
