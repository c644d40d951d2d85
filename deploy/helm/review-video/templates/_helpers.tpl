{{/* Names, labels, and the pieces of pod specs the worker, the receiver, the codec server and the Job share. */}}

{{- define "rv.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 40 | trimSuffix "-" }}
{{- end }}

{{/* At most 40 characters: "<fullname>-search-attributes" stays within 63. */}}
{{- define "rv.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else if contains (include "rv.name" .) .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name (include "rv.name" .) | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{- define "rv.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "rv.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: temporal-review-video
{{- end }}

{{/* (list $ "worker") */}}
{{- define "rv.selectorLabels" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/name: {{ include "rv.name" $root }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{/* Object labels: the common ones and the component. */}}
{{- define "rv.componentLabels" -}}
{{ include "rv.labels" (index . 0) }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{/*
Pod labels: the selector labels and the app version, not the chart's version. With the Worker Controller
any change of the pod template is a new Worker Deployment Version: a chart-only release must not make one.
*/}}
{{- define "rv.podLabels" -}}
{{- $root := index . 0 -}}
{{ include "rv.selectorLabels" . }}
app.kubernetes.io/version: {{ $root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: temporal-review-video
{{- end }}

{{- define "rv.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{- define "rv.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "rv.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* One variable, rendered only when its value is not empty: (list "NAME" value) */}}
{{- define "rv.env" -}}
{{- $value := toString (index . 1) }}
{{- if ne $value "" -}}
- name: {{ index . 0 }}
  value: {{ $value | quote }}
{{- end }}
{{- end }}

{{/* A secret variable from a Kubernetes Secret: (list $ "VIDEO_API_KEY") */}}
{{- define "rv.secretEnv" -}}
{{- $root := index . 0 }}
{{- $var := index . 1 }}
{{- $ref := index $root.Values.secrets.keys $var | default dict }}
{{- $name := $ref.name | default $root.Values.secrets.existingSecret }}
{{- if not $name }}
{{- fail (printf "%s comes from a Secret: set secrets.existingSecret or secrets.keys.%s.name" $var $var) }}
{{- end -}}
- name: {{ $var }}
  valueFrom:
    secretKeyRef:
      name: {{ $name | quote }}
      key: {{ $ref.key | default $var | quote }}
{{- end }}

{{/* The receiver's public base address: CALLBACK_PUBLIC_URL, else https://<ingress host>, else empty. */}}
{{- define "rv.callbackPublicUrl" -}}
{{- $ingress := .Values.callbacks.ingress }}
{{- if .Values.config.CALLBACK_PUBLIC_URL }}
{{- .Values.config.CALLBACK_PUBLIC_URL }}
{{- else if and .Values.callbacks.enabled $ingress.enabled }}
{{- if not $ingress.tls.secretName }}
{{- fail "callbacks.ingress without tls.secretName: the services would send signed callback URLs in plain HTTP. Set callbacks.ingress.tls.secretName, or config.CALLBACK_PUBLIC_URL to the https address that terminates TLS in front of it" }}
{{- end }}
{{- printf "https://%s" $ingress.host }}
{{- end }}
{{- end }}

{{/* MiB of a memory quantity written in Mi or Gi. */}}
{{- define "rv.memoryMiB" -}}
{{- $q := toString . }}
{{- if hasSuffix "Gi" $q }}
{{- mulf (float64 (trimSuffix "Gi" $q)) 1024 | int }}
{{- else if hasSuffix "Mi" $q }}
{{- trimSuffix "Mi" $q | int }}
{{- else }}
{{- fail (printf "worker.resources.limits.memory must be written in Mi or Gi (e.g. 512Mi), not %q: WORKER_MEMORY_BUDGET_MIB is derived from it" $q) }}
{{- end }}
{{- end }}

{{/*
WORKER_MEMORY_BUDGET_MIB: the memory limit less the headroom. The idle worker holds about 300 MiB
(src/config/worker-cache.ts refuses a budget under 332).
*/}}
{{- define "rv.workerMemoryBudgetMiB" -}}
{{- $limit := (.Values.worker.resources.limits | default dict).memory }}
{{- if not $limit }}
{{- fail "worker.resources.limits.memory is required: WORKER_MEMORY_BUDGET_MIB is derived from it" }}
{{- end }}
{{- $budget := sub (include "rv.memoryMiB" $limit | int) (int .Values.worker.memoryHeadroomMiB) }}
{{- if lt $budget 332 }}
{{- fail (printf "worker.resources.limits.memory %s less memoryHeadroomMiB %d leaves a WORKER_MEMORY_BUDGET_MIB of %d, under the 332 MiB the worker needs (idle it holds about 300 MiB): raise the limit" $limit (int .Values.worker.memoryHeadroomMiB) $budget) }}
{{- end }}
{{- $budget }}
{{- end }}

{{- define "rv.temporalPort" -}}
{{- $port := regexFind "[0-9]+$" .Values.temporal.address }}
{{- if not $port }}
{{- fail (printf "temporal.address must be host:port, not %q" .Values.temporal.address) }}
{{- end }}
{{- $port }}
{{- end }}

{{- define "rv.checkTemporalAuth" -}}
{{- if and .Values.temporal.tls.clientCertSecret .Values.temporal.apiKey.enabled }}
{{- fail "temporal: a client certificate (tls.clientCertSecret) or an API key (apiKey.enabled), not both" }}
{{- end }}
{{- end }}

{{/* TEMPORAL_* connection variables (envconfig: the SDK and the Temporal CLI read the same ones). */}}
{{- define "rv.temporalEnv" -}}
{{- include "rv.checkTemporalAuth" . }}
{{- $t := .Values.temporal -}}
- name: TEMPORAL_ADDRESS
  value: {{ $t.address | quote }}
- name: TEMPORAL_NAMESPACE
  value: {{ $t.namespace | quote }}
{{- if or $t.tls.enabled $t.tls.clientCertSecret }}
- name: TEMPORAL_TLS
  value: "true"
{{- end }}
{{- with include "rv.env" (list "TEMPORAL_TLS_SERVER_NAME" $t.tls.serverName) | trim }}{{ . | nindent 0 }}{{- end }}
{{- if $t.tls.clientCertSecret }}
- name: TEMPORAL_TLS_CLIENT_CERT_PATH
  value: /etc/temporal/tls/tls.crt
- name: TEMPORAL_TLS_CLIENT_KEY_PATH
  value: /etc/temporal/tls/tls.key
{{- end }}
{{- with include "rv.temporalCAEnv" . | trim }}{{ . | nindent 0 }}{{- end }}
{{- if $t.apiKey.enabled }}
{{- with include "rv.secretEnv" (list . "TEMPORAL_API_KEY") | trim }}{{ . | nindent 0 }}{{- end }}
{{- end }}
{{- end }}

{{/*
The worker's TEMPORAL_* variables under the Worker Controller, which injects TEMPORAL_ADDRESS,
TEMPORAL_NAMESPACE, TEMPORAL_DEPLOYMENT_NAME, TEMPORAL_WORKER_BUILD_ID, and from the Connection
TEMPORAL_TLS_SERVER_NAME (1.7 and later), the client certificate (TEMPORAL_TLS and the two paths, with
the volume `temporal-tls`) or TEMPORAL_API_KEY: only what it does not set is left here.
*/}}
{{- define "rv.controllerTemporalEnv" -}}
{{- include "rv.checkTemporalAuth" . }}
{{- $t := .Values.temporal }}
{{- if and $t.tls.enabled (not $t.tls.clientCertSecret) }}
- name: TEMPORAL_TLS
  value: "true"
{{- end }}
{{- if eq .Values.workerController.kind "TemporalWorkerDeployment" }}
{{- with include "rv.env" (list "TEMPORAL_TLS_SERVER_NAME" $t.tls.serverName) | trim }}{{ . | nindent 0 }}{{- end }}
{{- end }}
{{- with include "rv.temporalCAEnv" . | trim }}{{ . | nindent 0 }}{{- end }}
{{- end }}

{{- define "rv.temporalCAEnv" -}}
{{- if .Values.temporal.tls.serverCASecret.name -}}
- name: TEMPORAL_TLS_SERVER_CA_CERT_PATH
  value: /etc/temporal/ca/ca.crt
{{- end }}
{{- end }}

{{/* Volumes and mounts of the TEMPORAL_TLS_* files: (list $ controller) */}}
{{- define "rv.temporalVolumeMounts" -}}
{{- $root := index . 0 }}
{{- if and $root.Values.temporal.tls.clientCertSecret (not (index . 1)) }}
- name: temporal-tls
  mountPath: /etc/temporal/tls
  readOnly: true
{{- end }}
{{- if $root.Values.temporal.tls.serverCASecret.name }}
- name: temporal-server-ca
  mountPath: /etc/temporal/ca
  readOnly: true
{{- end }}
{{- end }}

{{- define "rv.temporalVolumes" -}}
{{- $root := index . 0 }}
{{- if and $root.Values.temporal.tls.clientCertSecret (not (index . 1)) }}
- name: temporal-tls
  secret:
    secretName: {{ $root.Values.temporal.tls.clientCertSecret | quote }}
{{- end }}
{{- with $root.Values.temporal.tls.serverCASecret }}
{{- if .name }}
- name: temporal-server-ca
  secret:
    secretName: {{ .name | quote }}
    items:
      - key: {{ .key | quote }}
        path: ca.crt
{{- end }}
{{- end }}
{{- end }}

{{/* PAYLOAD_ENCRYPTION_KEYS or PAYLOAD_ENCRYPTION_KEYS_FILE, the same for every process. */}}
{{- define "rv.encryptionEnv" -}}
{{- if .Values.encryption.enabled }}
{{- if eq .Values.encryption.source "file" }}
- name: PAYLOAD_ENCRYPTION_KEYS_FILE
  value: /etc/review-video/encryption/keys
{{- else }}
{{- include "rv.secretEnv" (list . "PAYLOAD_ENCRYPTION_KEYS") }}
{{- end }}
{{- end }}
{{- end }}

{{- define "rv.encryptionVolumeMounts" -}}
{{- if and .Values.encryption.enabled (eq .Values.encryption.source "file") }}
- name: encryption-keys
  mountPath: /etc/review-video/encryption
  readOnly: true
{{- end }}
{{- end }}

{{- define "rv.encryptionVolumes" -}}
{{- if and .Values.encryption.enabled (eq .Values.encryption.source "file") }}
{{- $ref := .Values.secrets.keys.PAYLOAD_ENCRYPTION_KEYS | default dict }}
- name: encryption-keys
  secret:
    secretName: {{ $ref.name | default .Values.secrets.existingSecret | quote }}
    items:
      - key: {{ $ref.key | default "PAYLOAD_ENCRYPTION_KEYS" | quote }}
        path: keys
{{- end }}
{{- end }}

{{/* What every pod of the chart shares. */}}
{{- define "rv.podCommon" -}}
serviceAccountName: {{ include "rv.serviceAccountName" . }}
automountServiceAccountToken: false
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* Scheduling of one component: (list $ .Values.worker) */}}
{{- define "rv.scheduling" -}}
{{- $c := index . 1 }}
{{- with $c.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $c.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $c.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $c.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
The worker's pod template: (list $ controller). Under the Worker Controller it is the WorkerDeployment's
template, and the controller adds the connection (see rv.controllerTemporalEnv).
*/}}
{{- define "rv.worker.podTemplate" -}}
{{- $root := index . 0 }}
{{- $controller := index . 1 }}
{{- $v := $root.Values }}
{{- $w := $v.worker }}
{{- if lt (int $w.terminationGracePeriodSeconds) 20 }}
{{- fail "worker.terminationGracePeriodSeconds must be at least 20: the worker's shutdownGraceTime (10 s) and closing its clients" }}
{{- end }}
{{- if and $v.config.NOTIFY_URL (not $v.notify.enabled) }}
{{- fail "config.NOTIFY_URL needs notify.enabled: NOTIFY_SECRET (from secrets.keys.NOTIFY_SECRET) signs the notifications" }}
{{- end }}
{{- if and $v.config.TEMPORAL_VERSIONING_BEHAVIOR (not $controller) }}
{{- fail "config.TEMPORAL_VERSIONING_BEHAVIOR needs versioned workers: set workerController.enabled" }}
{{- end -}}
metadata:
  labels:
    {{- include "rv.podLabels" (list $root "worker") | nindent 4 }}
    {{- with $w.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $w.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with include "rv.podCommon" $root | trim }}{{ . | nindent 2 }}{{- end }}
  terminationGracePeriodSeconds: {{ $w.terminationGracePeriodSeconds }}
  {{- with include "rv.scheduling" (list $root $w) | trim }}{{ . | nindent 2 }}{{- end }}
  containers:
    - name: worker
      image: {{ include "rv.image" $root }}
      imagePullPolicy: {{ $v.image.pullPolicy }}
      command: ["node", "--max-old-space-size={{ $w.nodeMaxOldSpaceSizeMiB }}", "dist/worker.js"]
      ports:
        - name: metrics
          containerPort: {{ $w.metricsPort }}
          protocol: TCP
      env:
        {{- if $controller }}
        {{- with include "rv.controllerTemporalEnv" $root | trim }}{{ . | nindent 8 }}{{- end }}
        - name: TEMPORAL_VERSIONING_BEHAVIOR
          value: {{ $v.config.TEMPORAL_VERSIONING_BEHAVIOR | default "PINNED" | quote }}
        {{- else }}
        {{- with include "rv.temporalEnv" $root | trim }}{{ . | nindent 8 }}{{- end }}
        {{- end }}
        - name: TEMPORAL_TASK_QUEUE
          value: {{ $v.temporal.taskQueue | quote }}
        {{- range $name := list "VIDEO_API_BASE_URL" "REVIEW_API_BASE_URL" "VIDEO_CANCEL_METHOD" "VIDEO_CANCEL_PATH" "HTTP_TIMEOUT_MS" "HTTP_MAX_CONNECTIONS" "WORKER_MAX_CACHED_WORKFLOWS" "WORKER_MAX_CONCURRENT_WORKFLOW_TASKS" "WORKER_MAX_CONCURRENT_ACTIVITIES" "VIDEO_STORE" "ALLOW_PRIVATE_URLS" "NOTIFY_URL" "NOTIFY_WINDOW_MS" "VIDEO_MAX_TASKS_IN_FLIGHT" "VIDEO_MAX_TASKS_IN_FLIGHT_BY_MODEL" "VIDEO_MAX_CREATES_PER_MINUTE" "VIDEO_QUOTA_ACCOUNT" "REVIEW_MAX_TASKS_IN_FLIGHT" "REVIEW_MAX_SUBMITS_PER_MINUTE" "REVIEW_QUOTA_ACCOUNT" "ADMISSION_TENANT_WEIGHTS" "VIDEO_DAILY_TASKS_BY_TENANT" "VIDEO_DAILY_SECONDS_BY_TENANT" "ADMISSION_LEASE_MS" }}
        {{- with include "rv.env" (list $name (index $v.config $name)) | trim }}{{ . | nindent 8 }}{{- end }}
        {{- end }}
        {{- with include "rv.secretEnv" (list $root "VIDEO_API_KEY") | trim }}{{ . | nindent 8 }}{{- end }}
        {{- with include "rv.secretEnv" (list $root "REVIEW_ACCESS_TOKEN") | trim }}{{ . | nindent 8 }}{{- end }}
        - name: WORKER_MEMORY_BUDGET_MIB
          value: {{ include "rv.workerMemoryBudgetMiB" $root | quote }}
        {{- if $v.callbacks.enabled }}
        {{- with include "rv.env" (list "CALLBACK_PUBLIC_URL" (include "rv.callbackPublicUrl" $root)) | trim }}{{ . | nindent 8 }}{{- end }}
        {{- with include "rv.secretEnv" (list $root "CALLBACK_SECRET") | trim }}{{ . | nindent 8 }}{{- end }}
        {{- end }}
        {{- with include "rv.encryptionEnv" $root | trim }}{{ . | nindent 8 }}{{- end }}
        {{- if $v.notify.enabled }}
        {{- with include "rv.secretEnv" (list $root "NOTIFY_SECRET") | trim }}{{ . | nindent 8 }}{{- end }}
        {{- end }}
        - name: PROMETHEUS_BIND_ADDRESS
          value: "0.0.0.0:{{ $w.metricsPort }}"
        - name: LOG_FORMAT
          value: json
        - name: LOG_LEVEL
          value: {{ $v.logLevel | quote }}
        {{- with $w.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      startupProbe:
        httpGet:
          path: /healthz
          port: metrics
        periodSeconds: 2
        failureThreshold: 60
      livenessProbe:
        httpGet:
          path: /healthz
          port: metrics
        periodSeconds: 10
        timeoutSeconds: 5
        failureThreshold: 3
      readinessProbe:
        httpGet:
          path: /readyz
          port: metrics
        periodSeconds: 10
        timeoutSeconds: 5
        failureThreshold: 3
      resources:
        {{- toYaml $w.resources | nindent 8 }}
      securityContext:
        {{- toYaml $v.securityContext | nindent 8 }}
      volumeMounts:
        - name: tmp
          mountPath: /tmp
        {{- with include "rv.temporalVolumeMounts" (list $root $controller) | trim }}{{ . | nindent 8 }}{{- end }}
        {{- with include "rv.encryptionVolumeMounts" $root | trim }}{{ . | nindent 8 }}{{- end }}
        {{- with $w.extraVolumeMounts }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
  volumes:
    - name: tmp
      emptyDir: {}
    {{- with include "rv.temporalVolumes" (list $root $controller) | trim }}{{ . | nindent 4 }}{{- end }}
    {{- with include "rv.encryptionVolumes" $root | trim }}{{ . | nindent 4 }}{{- end }}
    {{- with $w.extraVolumes }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}

{{/* Egress to DNS and to the Temporal frontend, for every NetworkPolicy that needs them. */}}
{{- define "rv.egressDnsAndTemporal" -}}
{{- $np := .Values.networkPolicy -}}
- ports:
    {{- range $np.dns.ports }}
    - protocol: UDP
      port: {{ . }}
    - protocol: TCP
      port: {{ . }}
    {{- end }}
  {{- with $np.dns.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
- ports:
    - protocol: TCP
      port: {{ include "rv.temporalPort" . }}
  {{- with $np.temporal.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
