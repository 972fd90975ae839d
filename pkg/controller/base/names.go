package base

// The controllers' names. Each keys its controller's outcomes and facts on
// the OutcomeBoard, names its queue in logs and metrics, and is how the
// status controller finds the outcome a condition reports.
const (
	ControllerConfigMap  = "configmap"
	ControllerPVC        = "pvc"
	ControllerService    = "service"
	ControllerDeployment = "deployment"
	ControllerIngress    = "ingress"
	ControllerMonitoring = "monitoring"
	// ControllerStatus names the status controller's queue; it records no
	// outcome.
	ControllerStatus = "status"
)
