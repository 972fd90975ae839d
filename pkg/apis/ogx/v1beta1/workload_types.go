package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// WorkloadSpec shapes the Deployment and its pods.
type WorkloadSpec struct {
	// Replicas is the Deployment's replica count. With autoscaling it is not
	// written to the Deployment (the HPA owns the count) but raises the HPA
	// minimum. It is the count the scale subresource reads and writes
	// (kubectl scale).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default:=1
	Replicas *int32 `json:"replicas,omitempty"`
	// Workers is the number of uvicorn workers (env OGX_WORKERS). It also sets
	// the default CPU request, in cores.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Workers *int32 `json:"workers,omitempty"`
	// Resources are the server container's resources; defaults are 1 CPU (or
	// workers cores) and 1Gi.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
	// ResourceClaims are the pod's dynamic resource allocation claims.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +listType=map
	// +listMapKey=name
	ResourceClaims []corev1.PodResourceClaim `json:"resourceClaims,omitempty"`
	// Autoscaling manages a HorizontalPodAutoscaler named <name>-hpa.
	// +optional
	Autoscaling *AutoscalingSpec `json:"autoscaling,omitempty"`
	// Storage gives the server a PersistentVolumeClaim <name>-pvc. The PVC is
	// kept when the OGXServer is deleted: ogx-controller never deletes user
	// data.
	// +optional
	Storage *PVCStorageSpec `json:"storage,omitempty"`
	// PodDisruptionBudget manages a PodDisruptionBudget named <name>-pdb.
	// +optional
	PodDisruptionBudget *PodDisruptionBudgetSpec `json:"podDisruptionBudget,omitempty"`
	// TopologySpreadConstraints replace the default spread of the pods.
	// +optional
	// +kubebuilder:validation:MinItems=1
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	// Overrides are pod-level knobs applied on top of what ogx-controller
	// renders.
	// +optional
	Overrides *WorkloadOverrides `json:"overrides,omitempty"`
}

// AutoscalingSpec configures the HorizontalPodAutoscaler.
//
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || self.maxReplicas >= self.minReplicas",message="maxReplicas must be greater than or equal to minReplicas"
type AutoscalingSpec struct {
	// MinReplicas is the lower bound; the effective minimum is at least
	// workload.replicas.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MinReplicas *int32 `json:"minReplicas,omitempty"`
	// MaxReplicas is the upper bound.
	// +required
	// +kubebuilder:validation:Minimum=1
	MaxReplicas int32 `json:"maxReplicas"`
	// TargetCPUUtilizationPercentage is the average CPU utilisation target; 80
	// when no target is given.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	TargetCPUUtilizationPercentage *int32 `json:"targetCPUUtilizationPercentage,omitempty"`
	// TargetMemoryUtilizationPercentage is the average memory utilisation
	// target.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	TargetMemoryUtilizationPercentage *int32 `json:"targetMemoryUtilizationPercentage,omitempty"`
}

// PVCStorageSpec configures the server's persistent volume.
//
// +kubebuilder:validation:XValidation:rule="!has(self.mountPath) || self.mountPath.size() > 0",message="mountPath must not be empty if specified"
// +kubebuilder:validation:XValidation:rule="!has(self.size) || quantity(self.size).isGreaterThan(quantity('0'))",message="size must be a positive quantity"
type PVCStorageSpec struct {
	// Size is the requested capacity, written as a string (for example
	// "20Gi"); 10Gi when unset. ogx-controller does not resize existing PVCs.
	// +optional
	Size *resource.Quantity `json:"size,omitempty"`
	// MountPath is where the volume is mounted in the server container.
	// +optional
	// +kubebuilder:default:="/.ogx"
	MountPath string `json:"mountPath,omitempty"`
}

// PodDisruptionBudgetSpec configures the PodDisruptionBudget; exactly one of
// the two fields is set (0 counts as set).
//
// +kubebuilder:validation:XValidation:rule="has(self.minAvailable) || has(self.maxUnavailable)",message="at least one of minAvailable or maxUnavailable must be specified"
// +kubebuilder:validation:XValidation:rule="!(has(self.minAvailable) && has(self.maxUnavailable))",message="minAvailable and maxUnavailable are mutually exclusive"
type PodDisruptionBudgetSpec struct {
	// MinAvailable is the number or percentage of pods that must stay
	// available.
	// +optional
	MinAvailable *intstr.IntOrString `json:"minAvailable,omitempty"`
	// MaxUnavailable is the number or percentage of pods that may be
	// unavailable.
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}

// WorkloadOverrides are pod-level knobs.
//
// +kubebuilder:validation:XValidation:rule="!has(self.serviceAccountName) || self.serviceAccountName.size() > 0",message="serviceAccountName must not be empty if specified"
type WorkloadOverrides struct {
	// ServiceAccountName runs the pods as this ServiceAccount instead of
	// <name>-sa.
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// Env entries replace same-named variables set by ogx-controller and are
	// otherwise appended, in order.
	// +optional
	// +kubebuilder:validation:MinItems=1
	Env []corev1.EnvVar `json:"env,omitempty"`
	// Command replaces the image's entrypoint.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:items:MinLength=1
	Command []string `json:"command,omitempty"`
	// Args replaces the image's arguments.
	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:items:MinLength=1
	Args []string `json:"args,omitempty"`
	// Volumes are appended after the volumes ogx-controller renders.
	// +optional
	// +kubebuilder:validation:MinItems=1
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// VolumeMounts are appended after the mounts ogx-controller renders.
	// +optional
	// +kubebuilder:validation:MinItems=1
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
}
