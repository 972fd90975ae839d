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

{{/*
The namespace every namespaced object goes into: the release namespace
unless operatorNamespace names another.
*/}}
{{- define "ogx.namespace" -}}
{{- .Values.operatorNamespace | default .Release.Namespace -}}
{{- end }}

{{/*
The operator's pods: what the Deployment, the Services, the PDB, the
NetworkPolicy and the anti-affinity select. Only these two labels, so that
a selector never changes with the chart or app version (a Deployment's
selector is immutable) and never takes in another operator's pods.
*/}}
{{- define "ogx.selectorLabels" -}}
app.kubernetes.io/name: ogx-controller
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
The labels of every object the chart installs. release/ogx-controller.yaml
carries the same app.kubernetes.io labels (config/components/labels);
managed-by and helm.sh/chart are Helm's own, the only difference test/chart
allows.
*/}}
{{- define "ogx.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "ogx.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
The labels of the helm test Pod: ogx.labels but for app.kubernetes.io/name,
so that no selector of the operator's pods (the webhook and metrics
Services, the PodDisruptionBudget, the NetworkPolicy, anti-affinity) picks
the test Pod up: the webhook Service would otherwise route admission calls
to a pod where nothing listens while the test runs.
*/}}
{{- define "ogx.testLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: ogx-controller-test
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: test
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
{{- if and .Values.serverAnyUID .Values.rbac.aggregateToDefaultRoles -}}
{{- fail "serverAnyUID: with it, whoever creates an OGXServer runs its pods as any user (on OpenShift, under the anyuid SCC), and rbac.aggregateToDefaultRoles gives that to every user of the built-in edit and admin roles; set rbac.aggregateToDefaultRoles=false and grant OGXServer access to trusted users only (docs/security.md, Aggregated roles)" -}}
{{- end -}}
{{- if and .Values.namespace.create (eq (include "ogx.namespace" .) .Release.Namespace) -}}
{{- fail (printf "namespace.create: the operator namespace %q is the release namespace, which Helm (helm install --create-namespace) creates and the chart cannot own; set namespace.create only together with an operatorNamespace other than the release namespace" .Release.Namespace) -}}
{{- end -}}

{{- end }}

{{/*
ogx.affinity is the pod affinity: .Values.affinity, plus the anti-affinity
of podAntiAffinityPreset (spreading the replicas over nodes) unless
.Values.affinity has a podAntiAffinity of its own.
*/}}
{{- define "ogx.affinity" -}}
{{- $aff := deepCopy (.Values.affinity | default dict) -}}
{{- $preset := .Values.podAntiAffinityPreset -}}
{{- if and $preset (not (hasKey $aff "podAntiAffinity")) -}}
{{- $term := dict "topologyKey" "kubernetes.io/hostname" "labelSelector" (dict "matchLabels" (include "ogx.selectorLabels" . | fromYaml)) -}}
{{- if eq $preset "hard" -}}
{{- $_ := set $aff "podAntiAffinity" (dict "requiredDuringSchedulingIgnoredDuringExecution" (list $term)) -}}
{{- else -}}
{{- $_ := set $aff "podAntiAffinity" (dict "preferredDuringSchedulingIgnoredDuringExecution" (list (dict "weight" 100 "podAffinityTerm" $term))) -}}
{{- end -}}
{{- end -}}
{{- with $aff }}{{ toYaml . }}{{ end -}}
{{- end }}

{{/*
ogx.topologySpreadConstraints are .Values.topologySpreadConstraints, each
given the pods' selector when it names none.
*/}}
{{- define "ogx.topologySpreadConstraints" -}}
{{- $out := list -}}
{{- range .Values.topologySpreadConstraints -}}
{{- $c := deepCopy . -}}
{{- if not (hasKey $c "labelSelector") -}}
{{- $_ := set $c "labelSelector" (dict "matchLabels" (include "ogx.selectorLabels" $ | fromYaml)) -}}
{{- end -}}
{{- $out = append $out $c -}}
{{- end -}}
{{- with $out }}{{ toYaml . }}{{ end -}}
{{- end }}

{{/* The image of the helm test Pod: tests.image, else the controller's. */}}
{{- define "ogx.testImage" -}}
{{- .Values.tests.image | default (include "ogx.image" .) -}}
{{- end }}
