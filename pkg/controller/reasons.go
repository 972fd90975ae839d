package controller

// Status reasons a controller records with an outcome (docs/status.md,
// Terminal reasons); those of a failed resolution are pkg/resolve's.
const (
	ReasonChildConflict      = "ChildConflict"
	ReasonApplyFailed        = "ApplyFailed"
	ReasonDeploymentFailed   = "DeploymentFailed"
	ReasonAdoptionInProgress = "AdoptionInProgress"
	ReasonProgressing        = "Progressing"
)

// Event reasons more specific than the status reason of the same cause
// (docs/status.md, Events).
const (
	// EventAdoptionWaiting reports, once per wait, that storage adoption
	// waits for the legacy pods to terminate.
	EventAdoptionWaiting = "AdoptionWaiting"
	// EventTakenOver reports that the fields of upstream field managers were
	// merged into ours.
	EventTakenOver = "TakenOver"
)
