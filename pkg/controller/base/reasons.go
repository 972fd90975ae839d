package base

// The status reasons a controller records with an outcome are the API's
// (ogxv1beta1.Reason*, docs/status.md, Terminal reasons).

// Event reasons more specific than the status reason of the same cause
// (docs/status.md, Events).
const (
	// EventAdoptionWaiting reports, once per wait, that storage adoption
	// waits for the legacy pods to terminate.
	EventAdoptionWaiting = "AdoptionWaiting"
)
