{{- /*
The rules of the controller's ClusterRoles (rbac.yaml), in the order of
config/rbac/role.yaml: namespaced resources, then cluster-scoped ones.
*/ -}}
{{- define "ogx.namespacedRules" }}
  # Informer; patch only for the managedFields merge of the status takeover.
  - apiGroups: ["ogx.io"]
    resources: ["ogxservers"]
    verbs: ["list", "watch", "patch"]
  - apiGroups: ["ogx.io"]
    resources: ["ogxservers/status"]
    verbs: ["patch"]
  # Owner references with blockOwnerDeletion under
  # OwnerReferencesPermissionEnforcement.
  - apiGroups: ["ogx.io"]
    resources: ["ogxservers/finalizers"]
    verbs: ["update"]
  # delete: the code deletes only superseded generated ConfigMaps and
  # optional children switched off. On Services, ServiceAccounts and
  # Deployments it is held because an API server enforcing owner-reference
  # permissions (OpenShift's default) refuses a change of ownerReferences to
  # whoever may not delete the object: networking adoption and the takeover
  # of orphaned children change them (docs/security.md). PVCs get no delete:
  # storage adoption on such a server needs the opt-in
  # ogx-controller-storage-adoption ClusterRole.
  - apiGroups: [""]
    resources: ["configmaps", "services", "serviceaccounts"]
    verbs: ["get", "list", "watch", "create", "patch", "delete"]
  - apiGroups: [""]
    resources: ["persistentvolumeclaims"]
    verbs: ["get", "list", "watch", "create", "patch"]
  - apiGroups: [""]
    resources: ["secrets"]
    verbs: ["get", "list", "watch"]
  # Legacy pods during storage adoption (live list); the image digest of
  # our running pods (a label-filtered informer: list and watch).
  - apiGroups: [""]
    resources: ["pods"]
    verbs: ["list", "watch"]
  - apiGroups: ["apps"]
    resources: ["deployments"]
    verbs: ["get", "list", "watch", "create", "patch", "delete"]
  # Generated ConfigMap retention looks at every ReplicaSet's volumes.
  - apiGroups: ["apps"]
    resources: ["replicasets"]
    verbs: ["list"]
  - apiGroups: ["autoscaling"]
    resources: ["horizontalpodautoscalers"]
    verbs: ["get", "list", "watch", "create", "patch", "delete"]
  - apiGroups: ["policy"]
    resources: ["poddisruptionbudgets"]
    verbs: ["get", "list", "watch", "create", "patch", "delete"]
  - apiGroups: ["networking.k8s.io"]
    resources: ["networkpolicies", "ingresses"]
    verbs: ["get", "list", "watch", "create", "patch", "delete"]
  - apiGroups: ["monitoring.coreos.com"]
    resources: ["servicemonitors", "prometheusrules"]
    verbs: ["get", "list", "watch", "create", "patch", "delete"]
  - apiGroups: ["events.k8s.io"]
    resources: ["events"]
    verbs: ["create"]
{{- end }}
{{- define "ogx.clusterRules" }}
{{- $selfCerts := and .Values.admission.enabled (eq .Values.admission.certificate.mode "self") }}
  # The optional APIs are re-checked when their CRDs change: name-filtered
  # watches of exactly these three.
  - apiGroups: ["apiextensions.k8s.io"]
    resources: ["customresourcedefinitions"]
    resourceNames:
      - "servicemonitors.monitoring.coreos.com"
      - "prometheusrules.monitoring.coreos.com"
      - "securitycontextconstraints.security.openshift.io"
    verbs: ["list", "watch"]
  {{- if $selfCerts }}
  # Self-managed webhook certificates: the caBundle of the own webhook
  # configuration only.
  - apiGroups: ["admissionregistration.k8s.io"]
    resources: ["validatingwebhookconfigurations"]
    resourceNames: [{{ include "ogx.webhookConfiguration" . | quote }}]
    verbs: ["get", "patch"]
  {{- end }}
  {{- if .Values.metrics.enabled }}
  # Authentication and authorisation of /metrics requests.
  - apiGroups: ["authentication.k8s.io"]
    resources: ["tokenreviews"]
    verbs: ["create"]
  - apiGroups: ["authorization.k8s.io"]
    resources: ["subjectaccessreviews"]
    verbs: ["create"]
  {{- end }}
{{- end }}
