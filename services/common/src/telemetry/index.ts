/**
 * Telemetry shared by every process: the OpenTelemetry SDK started from the OTEL_* environment,
 * the Prometheus endpoint (METRICS_PORT), the platform's metric instruments, span helpers, and the
 * trace-context propagation of the gRPC clients and servers.
 */
export { loadTelemetryConfig, TRACE_EXPORTERS, type TelemetryConfig } from './config.js';
export { startTelemetry, telemetryStatus, type Telemetry, type TelemetryOptions, type TelemetryStatus } from './sdk.js';
export {
  DURATION_BUCKETS_SEC,
  instruments,
  METER_NAME,
  observeJobs,
  observeNodeLoad,
  observeWriteBehind,
  PLATFORM_METRICS,
  platformMeter,
  type NodeLoad,
  type PlatformInstruments,
  type StopObserving,
  type WriteBehindBacklog,
} from './instruments.js';
export { activeTraceIds, inSpan, recordFailure, tracer, TRACER_NAME } from './tracing.js';
export { clientTelemetryInterceptor, CORRELATION_ID_PATTERN, instrumentService, REQUEST_ID_METADATA, UNTRACED_METHODS } from './grpc.js';
