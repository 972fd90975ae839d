package v1beta1

// The reasons of the Events ogx-controller records on an OGXServer (and, for
// InvalidImageOverrides, on the operator ConfigMap), documented in
// docs/status.md (Events). Like condition reasons they are matched on by
// people and alerts (`kubectl get events --field-selector reason=...`), so
// their values never change. Where an Event reports the same cause as a
// condition, it uses the condition's reason (ReasonStorageAdopted,
// ReasonNetworkingAdopted, ReasonHealthCheckPassed, ...).
const (
	// Writes of children, journaled and reported once per status pass.
	EventCreated   = "Created"
	EventUpdated   = "Updated"
	EventDeleted   = "Deleted"
	EventTakenOver = "TakenOver"

	EventPhaseChanged            = "PhaseChanged"
	EventConfigGenerated         = "ConfigGenerated"
	EventConfigGenerationWarning = "ConfigGenerationWarning"
	EventConfigGarbageCollected  = "ConfigGarbageCollected"
	EventEmptyCABundle           = "EmptyCABundle"
	EventServerTLSNotConfigured  = "ServerTLSNotConfigured"
	EventUnknownDistribution     = "UnknownDistribution"
	EventInvalidImageOverrides   = "InvalidImageOverrides"
	// A re-check found the server's image tag on another digest: the
	// server rolls out to it (docs/config-generation.md, Digest pinning).
	EventImageDigestChanged = "ImageDigestChanged"
	// A re-check of a pinned image's tag failed; the server keeps its
	// digest.
	EventImageRecheckFailed = "ImageRecheckFailed"

	// Legacy adoption.
	EventAdoptionSourceNotFound = "AdoptionSourceNotFound"
	EventAdoptionWaiting        = "AdoptionWaiting"
	EventAdoptionInvalid        = "AdoptionInvalid"
	EventLegacyScaledDown       = "LegacyScaledDown"
	EventNetworkingReleased     = "NetworkingReleased"
)
