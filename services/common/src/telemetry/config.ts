/**
 * Telemetry configuration of one process, read once from the environment. The OpenTelemetry SDK
 * itself reads the standard OTEL_* variables (exporter endpoints and protocols, propagators,
 * sampler, resource attributes, batch sizes); this adds what it does not cover: the Prometheus
 * endpoint, and whether spans are exported at all. Telemetry never stops a process from starting:
 * a bad value is reported in `warnings` and replaced by its default.
 */
import { envBool, envInt, envList, envOptional, envString } from '../config/env.js';

/** Trace exporters the SDK can build from OTEL_TRACES_EXPORTER. */
export const TRACE_EXPORTERS = ['otlp', 'zipkin', 'console'] as const;

/** Telemetry settings of a process. */
export interface TelemetryConfig {
  /** `service.name` of the process's telemetry. @default the process's own name (OTEL_SERVICE_NAME overrides) */
  readonly serviceName: string;
  /** No SDK at all: no spans, no trace ids, no metrics. @default false (OTEL_SDK_DISABLED) */
  readonly disabled: boolean;
  /** Serve GET /metrics (Prometheus text format) on `metricsPort`. False when METRICS_PORT is 0. */
  readonly metricsEnabled: boolean;
  /** Port of the Prometheus endpoint (0 = any free port, when set programmatically). @default 9464 (METRICS_PORT; 0 = off) */
  readonly metricsPort: number;
  /** Interface the Prometheus endpoint listens on: loopback unless configured (the chart sets "0.0.0.0"). @default "127.0.0.1" (METRICS_HOST) */
  readonly metricsHost: string;
  /**
   * Span exporters named by OTEL_TRACES_EXPORTER (otlp, zipkin, console), or `["otlp"]` when only
   * an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).
   * Empty: spans are not recorded, but each request still gets trace and span ids (they reach
   * logs, error bodies and the next hop) unless OTEL_TRACES_SAMPLER asks for recording.
   * @default []
   */
  readonly traceExporters: readonly string[];
  /**
   * Whether spans are recorded: when something exports them, or when OTEL_TRACES_SAMPLER names a
   * sampler (the SDK then applies it). Recording spans nothing reads cost the serving path CPU
   * (`bench serving`).
   */
  readonly recordSpans: boolean;
  /** Problems found in the environment; each was replaced by its default. */
  readonly warnings: readonly string[];
}

/** Reads the telemetry configuration of `serviceName`'s process; never throws. */
export function loadTelemetryConfig(serviceName: string, env: NodeJS.ProcessEnv = process.env): TelemetryConfig {
  const warnings: string[] = [];
  const lenient = <T>(read: () => T, fallback: T): T => {
    try {
      return read();
    } catch (err) {
      warnings.push(err instanceof Error ? err.message : String(err));
      return fallback;
    }
  };
  const listed = envList(env, 'OTEL_TRACES_EXPORTER', []);
  const named = listed.filter((e) => e !== 'none' && e !== 'null');
  for (const e of named) {
    if (!(TRACE_EXPORTERS as readonly string[]).includes(e)) warnings.push(`OTEL_TRACES_EXPORTER: unknown exporter "${e}" ignored (use ${TRACE_EXPORTERS.join(', ')} or none)`);
  }
  const endpoint = envOptional(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? envOptional(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const traceExporters = listed.includes('none')
    ? []
    : named.length > 0
      ? named.filter((e) => (TRACE_EXPORTERS as readonly string[]).includes(e))
      : endpoint !== undefined
        ? ['otlp']
        : [];
  const metricsPort = lenient(() => envInt(env, 'METRICS_PORT', 9464, { min: 0, max: 65535 }), 9464);
  return Object.freeze({
    serviceName: envString(env, 'OTEL_SERVICE_NAME', serviceName),
    disabled: lenient(() => envBool(env, 'OTEL_SDK_DISABLED', false), false),
    metricsEnabled: metricsPort !== 0,
    metricsPort,
    metricsHost: envString(env, 'METRICS_HOST', '127.0.0.1'),
    traceExporters: Object.freeze([...new Set(traceExporters)]),
    recordSpans: traceExporters.length > 0 || envOptional(env, 'OTEL_TRACES_SAMPLER') !== undefined,
    warnings: Object.freeze(warnings),
  });
}
