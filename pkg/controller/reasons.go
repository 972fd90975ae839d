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
