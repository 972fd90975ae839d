package controller

// Status reasons a controller records with an outcome (docs/status.md,
// Terminal reasons).
const (
	ReasonInvalidSpec           = "InvalidSpec"
	ReasonReferenceNotFound     = "ReferenceNotFound"
	ReasonReferenceNotWatched   = "ReferenceNotWatched"
	ReasonBaseConfigUnavailable = "BaseConfigUnavailable"
	ReasonConfigGenFailed       = "ConfigGenerationFailed"
	ReasonInvalidCABundle       = "InvalidCABundle"
	ReasonChildConflict         = "ChildConflict"
	ReasonApplyFailed           = "ApplyFailed"
	ReasonAdoptionConfigInvalid = "AdoptionConfigInvalid"
	ReasonDeploymentFailed      = "DeploymentFailed"
	ReasonAdoptionInProgress    = "AdoptionInProgress"
	ReasonProgressing           = "Progressing"
)

// Event reasons more specific than the status reason of the same cause
// (docs/status.md, Events).
const (
	// EventUnknownDistribution reports spec.distribution naming no known
	// distribution (status reason InvalidSpec).
	EventUnknownDistribution = "UnknownDistribution"
	// EventAdoptionInvalid reports an adoption annotation that cannot be
	// used, or several adopted PVCs of one instance (status condition
	// AdoptionConfigInvalid).
	EventAdoptionInvalid = "AdoptionInvalid"
	// EventAdoptionWaiting reports, once per wait, that storage adoption
	// waits for the legacy pods to terminate.
	EventAdoptionWaiting = "AdoptionWaiting"
	// EventTakenOver reports that the fields of upstream field managers were
	// merged into ours.
	EventTakenOver = "TakenOver"
)
