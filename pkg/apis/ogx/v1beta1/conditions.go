package v1beta1

// These are the condition types and reasons of an OGXServer's
// status.conditions, documented in docs/status.md (Conditions, Terminal
// reasons). They are part of the wire format: clients such as
// `kubectl wait --for=condition=Ready` match on them, so their values never
// change. Event reasons are not condition reasons and are not listed here.
//
// Condition types, in the fixed order status lists them.
const (
	ConditionConfigGenerated       = "ConfigGenerated"
	ConditionDeploymentReady       = "DeploymentReady"
	ConditionStorageReady          = "StorageReady"
	ConditionServiceReady          = "ServiceReady"
	ConditionHealthCheck           = "HealthCheck"
	ConditionReady                 = "Ready"
	ConditionReconciling           = "Reconciling"
	ConditionStalled               = "Stalled"
	ConditionStorageAdopted        = "StorageAdopted"
	ConditionNetworkingAdopted     = "NetworkingAdopted"
	ConditionAdoptionConfigInvalid = "AdoptionConfigInvalid"
)

// Terminal reasons: a user error's reason, also that of Ready and Stalled.
const (
	ReasonInvalidSpec            = "InvalidSpec"
	ReasonReferenceNotFound      = "ReferenceNotFound"
	ReasonReferenceNotWatched    = "ReferenceNotWatched"
	ReasonBaseConfigUnavailable  = "BaseConfigUnavailable"
	ReasonConfigGenerationFailed = "ConfigGenerationFailed"
	ReasonInvalidCABundle        = "InvalidCABundle"
	ReasonChildConflict          = "ChildConflict"
	ReasonApplyFailed            = "ApplyFailed"
	ReasonAdoptionConfigInvalid  = "AdoptionConfigInvalid"
	ReasonDeploymentFailed       = "DeploymentFailed"
)

// Reasons of Ready (also terminal, DeploymentPending, DeploymentProgressing).
const (
	ReasonAvailable    = "Available"
	ReasonScaledToZero = "ScaledToZero"
	ReasonTerminating  = "Terminating"
	ReasonReconciling  = "Reconciling"
)

// Reasons of Reconciling (AdoptionInProgress also of Ready and StorageAdopted).
const (
	ReasonProgressing        = "Progressing"
	ReasonAdoptionInProgress = "AdoptionInProgress"
	ReasonRetryingAfterError = "RetryingAfterError"
)

// Reasons of ConfigGenerated besides the terminal ones.
const (
	ReasonConfigGenerationSucceeded = "ConfigGenerationSucceeded"
	ReasonConfigGenerationInactive  = "ConfigGenerationInactive"
)

// Reasons of DeploymentReady besides DeploymentFailed.
const (
	ReasonDeploymentReady       = "DeploymentReady"
	ReasonDeploymentPending     = "DeploymentPending"
	ReasonDeploymentProgressing = "DeploymentProgressing"
)

// Reasons of StorageReady.
const (
	ReasonStorageReady   = "StorageReady"
	ReasonStoragePending = "StoragePending"
	ReasonStorageFailed  = "StorageFailed"
)

// Reasons of ServiceReady.
const (
	ReasonServiceReady   = "ServiceReady"
	ReasonServicePending = "ServicePending"
	ReasonServiceFailed  = "ServiceFailed"
)

// Reasons of HealthCheck.
const (
	ReasonHealthCheckPassed   = "HealthCheckPassed"
	ReasonHealthCheckFailed   = "HealthCheckFailed"
	ReasonHealthCheckDisabled = "HealthCheckDisabled"
	ReasonDeploymentNotReady  = "DeploymentNotReady"
)

// Reasons of StorageAdopted and NetworkingAdopted besides AdoptionInProgress.
const (
	ReasonStorageAdopted            = "StorageAdopted"
	ReasonNetworkingAdopted         = "NetworkingAdopted"
	ReasonAdoptionAnnotationRemoved = "AdoptionAnnotationRemoved"
)

// Reasons of AdoptionConfigInvalid besides AdoptionConfigInvalid itself.
const (
	ReasonAnnotationsValid = "AnnotationsValid"
)

// TerminalReasons lists the reasons of user errors (docs/status.md,
// Terminal reasons), in the order of that table. Any of them can be the
// reason of Ready and Stalled.
func TerminalReasons() []string {
	return []string{ReasonInvalidSpec, ReasonReferenceNotFound, ReasonReferenceNotWatched,
		ReasonBaseConfigUnavailable, ReasonConfigGenerationFailed, ReasonInvalidCABundle, ReasonChildConflict,
		ReasonApplyFailed, ReasonAdoptionConfigInvalid, ReasonDeploymentFailed}
}

// ConditionReasons maps each condition type to every reason it can carry,
// whatever its status (docs/status.md, Reasons by condition). Clients
// switch on these values, so the status controller may set no other: its
// tests check every reason it emits against this map, and a test of this
// package checks the map against the documentation's table. A new reason
// therefore has to be added here and documented in the same change.
func ConditionReasons() map[string][]string {
	return map[string][]string{
		ConditionConfigGenerated: {ReasonConfigGenerationSucceeded, ReasonConfigGenerationInactive,
			ReasonConfigGenerationFailed, ReasonBaseConfigUnavailable},
		ConditionDeploymentReady: {ReasonDeploymentReady, ReasonDeploymentPending, ReasonDeploymentProgressing,
			ReasonDeploymentFailed},
		ConditionStorageReady: {ReasonStorageReady, ReasonStoragePending, ReasonStorageFailed},
		ConditionServiceReady: {ReasonServiceReady, ReasonServicePending, ReasonServiceFailed},
		ConditionHealthCheck: {ReasonHealthCheckPassed, ReasonHealthCheckFailed, ReasonDeploymentNotReady,
			ReasonHealthCheckDisabled},
		ConditionReady: append([]string{ReasonAvailable, ReasonScaledToZero, ReasonDeploymentPending,
			ReasonDeploymentProgressing, ReasonAdoptionInProgress, ReasonTerminating, ReasonReconciling},
			TerminalReasons()...),
		ConditionReconciling:           {ReasonProgressing, ReasonAdoptionInProgress, ReasonRetryingAfterError},
		ConditionStalled:               TerminalReasons(),
		ConditionStorageAdopted:        {ReasonStorageAdopted, ReasonAdoptionInProgress},
		ConditionNetworkingAdopted:     {ReasonNetworkingAdopted, ReasonAdoptionAnnotationRemoved},
		ConditionAdoptionConfigInvalid: {ReasonAdoptionConfigInvalid, ReasonAnnotationsValid},
	}
}
