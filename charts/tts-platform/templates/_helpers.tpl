{{/* Name of the chart, or nameOverride. */}}
{{- define "tts.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Prefix of every object: the release name when it already holds the chart's name. */}}
{{- define "tts.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "tts.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Labels of every object; "component" is added per object. */}}
{{- define "tts.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "tts.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: tts-platform
{{- end -}}

{{/* Selector labels of one component: tts.selector (dict "root" $ "component" "facade"). */}}
{{- define "tts.selector" -}}
app.kubernetes.io/name: {{ include "tts.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* The label selector the scheduler's Kubernetes discovery watches node pods with. */}}
{{- define "tts.nodeSelectorString" -}}
app.kubernetes.io/name={{ include "tts.name" . }},app.kubernetes.io/instance={{ .Release.Name }},app.kubernetes.io/component=inference-node
{{- end -}}

{{/* Image reference: tts.image (dict "root" $ "name" "tts-facade"). */}}
{{- define "tts.image" -}}
{{- printf "%s%s:%s" .root.Values.image.registry .name (default .root.Chart.AppVersion .root.Values.image.tag) -}}
{{- end -}}

{{- define "tts.secretName" -}}
{{- default (printf "%s-secrets" (include "tts.fullname" .)) .Values.secrets.name -}}
{{- end -}}

{{- define "tts.schedulerAddress" -}}
{{- printf "%s-scheduler:%d" (include "tts.fullname" .) (int .Values.scheduler.port) -}}
{{- end -}}

{{/* One env entry from the Secret: tts.secretEnv (dict "root" $ "name" "DATABASE_URL" "key" "database-url" "optional" false). */}}
{{- define "tts.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ include "tts.secretName" .root }}
      key: {{ .key }}
      optional: {{ .optional }}
{{- end -}}

{{/* Volumes every pod has: DATA_DIR and /tmp on emptyDir (the root filesystem is read-only). */}}
{{- define "tts.scratchVolumes" -}}
- name: data
  emptyDir: {}
- name: tmp
  emptyDir: {}
{{- end -}}
{{- define "tts.scratchMounts" -}}
- name: data
  mountPath: /var/lib/tts
- name: tmp
  mountPath: /tmp
{{- end -}}

{{/* The shared artifacts volume (scheduler and facade). */}}
{{- define "tts.artifactsVolume" -}}
- name: artifacts
{{- if .Values.artifacts.persistence.enabled }}
  persistentVolumeClaim:
    claimName: {{ default (printf "%s-artifacts" (include "tts.fullname" .)) .Values.artifacts.persistence.existingClaim }}
{{- else }}
  emptyDir: {}
{{- end }}
{{- end -}}

{{/* TLS files of one component (tls.enabled): tts.tlsVolume (dict "root" $ "component" "facade"). */}}
{{- define "tts.tlsVolume" -}}
{{- if .root.Values.tls.enabled }}
- name: tls
  secret:
    secretName: {{ include "tts.fullname" .root }}-{{ .component }}-tls
    defaultMode: 0440
{{- end }}
{{- end -}}
{{- define "tts.tlsMount" -}}
{{- if .Values.tls.enabled }}
- name: tls
  mountPath: {{ .Values.tls.mountPath }}
  readOnly: true
{{- end }}
{{- end -}}

{{/*
The variables of gRPC security: with tls.enabled, TLS / mutual TLS on every hop from the mounted
files, re-read every tls.refreshMs, peers' certificates checked against tts.grpcServerName (a name
every component's certificate carries), since nodes are dialed by pod IP; without, the explicit
opt-out the processes need to serve plaintext beyond loopback.
*/}}
{{- define "tts.tlsEnv" -}}
{{- if not .Values.tls.enabled -}}
- name: TTS_GRPC_ALLOW_PLAINTEXT
  value: "true"
{{- else -}}
- name: TTS_GRPC_TLS_CERT
  value: {{ printf "%s/tls.crt" .Values.tls.mountPath | quote }}
- name: TTS_GRPC_TLS_KEY
  value: {{ printf "%s/tls.key" .Values.tls.mountPath | quote }}
- name: TTS_GRPC_TLS_CA
  value: {{ printf "%s/ca.crt" .Values.tls.mountPath | quote }}
- name: TTS_GRPC_TLS_CLIENT_AUTH
  value: {{ .Values.tls.clientAuth | quote }}
- name: TTS_GRPC_TLS_REFRESH_MS
  value: {{ .Values.tls.refreshMs | int | toString | quote }}
- name: TTS_GRPC_TLS_SERVER_NAME
  value: {{ include "tts.grpcServerName" . | quote }}
{{- end }}
{{- end -}}
{{- define "tts.grpcServerName" -}}
{{- printf "%s-grpc.%s.svc" (include "tts.fullname" .) .Release.Namespace -}}
{{- end -}}

{{/*
A probe of the gRPC health service: Kubernetes' own grpc probe on plaintext, the image's
healthcheck.mjs (which speaks TLS with the mounted files) when tls.enabled, since the kubelet's grpc
probe has no TLS. tts.grpcProbe (dict "root" $ "port" 50061 "timeout" 5); timeout optional.
*/}}
{{- define "tts.grpcProbe" -}}
{{- if .root.Values.tls.enabled -}}
exec:
  command: [node, deploy/docker/healthcheck.mjs, grpc, {{ .port | toString | quote }}]
timeoutSeconds: {{ max (.timeout | default 0) 5 }}
{{- else -}}
grpc: { port: {{ .port }} }
{{- with .timeout }}
timeoutSeconds: {{ . }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Extra variables from a map, in a stable order. */}}
{{- define "tts.envMap" -}}
{{- range $k, $v := . }}
- name: {{ $k }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- end -}}

{{/* Pod scheduling fields of one component's values. */}}
{{- define "tts.placement" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
