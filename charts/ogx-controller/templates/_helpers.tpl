{{/*
Object names are fixed, not derived from the release name: ogx-controller
looks them up by these names (--admission-service-name,
--admission-webhook-configuration and --admission-cert-secret default to
them, and RBAC names them in resourceNames), and they match
release/ogx-controller.yaml. One release per cluster therefore.
*/}}
{{- define "ogx.fullname" -}}ogx-k8s-operator-controller-manager{{- end }}
{{- define "ogx.webhookService" -}}ogx-k8s-operator-webhook-service{{- end }}
{{- define "ogx.webhookConfiguration" -}}ogx-controller-validating-webhook-configuration{{- end }}

{{/* The namespace every namespaced object goes into. */}}
{{- define "ogx.namespace" -}}
{{- .Values.operatorNamespace | default .Release.Namespace -}}
{{- end }}

{{/* The pod selector shared by the Deployment, Services and PDB. */}}
{{- define "ogx.selectorLabels" -}}
control-plane: controller-manager
{{- end }}

{{- define "ogx.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag }}
{{- end -}}
{{- end }}

{{/* The Secret holding the serving pair in the external certificate modes. */}}
{{- define "ogx.externalCertSecret" -}}
{{- if eq .Values.admission.certificate.mode "cert-manager" -}}
ogx-controller-webhook-cert-manager
{{- else -}}
ogx-controller-webhook-service-ca
{{- end -}}
{{- end }}

{{/*
ogx.validate fails the install on combinations that values.schema.json
cannot express with a readable message.
*/}}
{{- define "ogx.validate" -}}
{{- if not (or .Values.image.tag .Values.image.digest) -}}
{{- fail "image: set image.tag or image.digest (sha256:...) to choose the controller image" -}}
{{- end -}}
{{- with .Values.admission.certificate.certManager.issuerRef -}}
{{- if not .name -}}
{{- fail "admission.certificate.certManager.issuerRef.name: required when issuerRef is set (leave issuerRef empty for the chart's self-signed Issuer)" -}}
{{- end -}}
{{- end -}}
{{- if and (gt (int .Values.replicas) 1) (not .Values.leaderElection.enabled) -}}
{{- fail (printf "replicas: %d replicas need leaderElection.enabled=true, or they would all reconcile at once; set replicas=1 or enable leader election" (int .Values.replicas)) -}}
{{- end -}}
{{- if and .Values.podDisruptionBudget.enabled (gt (int .Values.replicas) 1) (ge (int .Values.podDisruptionBudget.minAvailable) (int .Values.replicas)) -}}
{{- fail (printf "podDisruptionBudget.minAvailable: %d with %d replicas would block every node drain; set it below replicas" (int .Values.podDisruptionBudget.minAvailable) (int .Values.replicas)) -}}
{{- end -}}
{{- if and .Values.metrics.serviceMonitor.enabled (not .Values.metrics.enabled) -}}
{{- fail "metrics.serviceMonitor.enabled: the ServiceMonitor needs metrics.enabled=true" -}}
{{- end -}}
{{- if and .Values.namespace.create (eq (include "ogx.namespace" .) .Release.Namespace) -}}
{{- fail (printf "namespace.create: the operator namespace %q is the release namespace, which must exist before Helm installs into it and cannot then be owned by the chart; set namespace.create=false (and label the namespace pod-security.kubernetes.io/enforce=restricted yourself), or install the release into another namespace" .Release.Namespace) -}}
{{- end -}}
{{- end }}
