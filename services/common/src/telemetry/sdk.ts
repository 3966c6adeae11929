/**
 * Starts and stops the OpenTelemetry SDK of one process (@opentelemetry/sdk-node), configured by
 * the standard OTEL_* variables plus METRICS_PORT (see config.ts):
 * - traces: W3C trace context propagation; spans exported by the exporters OTEL_TRACES_EXPORTER
 *   names (OTLP only when asked for), otherwise made but not exported, so trace ids still reach
 *   logs and error bodies;
 * - metrics: a Prometheus endpoint, `GET /metrics` on METRICS_PORT.
 * Telemetry never takes a process down: a bad setting, a port in use or an exporter that cannot
 * reach its collector is logged (once per distinct message a minute) and the process runs on.
 */
import { context, diag, DiagLogLevel, metrics, propagation, trace, type DiagLogger } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { core, NodeSDK } from '@opentelemetry/sdk-node';
import { AlwaysOffSampler, NoopSpanProcessor, ParentBasedSampler, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../logging/logger.js';
import { VERSION } from '../version.js';
import { loadTelemetryConfig, type TelemetryConfig } from './config.js';
import { startMetricsServer, type MetricsServer } from './metrics-server.js';

/** Options of startTelemetry. */
export interface TelemetryOptions {
  /** Name of the process, e.g. "facade"; OTEL_SERVICE_NAME overrides it. */
  readonly serviceName: string;
  /** Where telemetry problems are logged. */
  readonly logger: Logger;
  /** Settings overriding the environment's (tests: `metricsPort: 0`). */
  readonly config?: Partial<TelemetryConfig>;
  /** Span processors replacing the exporters of the environment (tests: an in-memory exporter). */
  readonly spanProcessors?: readonly SpanProcessor[];
}

/** What a process's telemetry is doing. */
export interface TelemetryStatus {
  readonly enabled: boolean;
  readonly serviceName: string;
  /** Port of GET /metrics, or null when there is no Prometheus endpoint. */
  readonly metricsPort: number | null;
  /** Span exporters in use (empty: spans are not exported). */
  readonly traceExporters: readonly string[];
}

/** The started telemetry of a process. */
export interface Telemetry {
  readonly status: TelemetryStatus;
  /** Flushes pending spans (bounded by `timeoutMs`) and stops the SDK and the metrics endpoint. */
  stop(timeoutMs?: number): Promise<void>;
}

const OFF: TelemetryStatus = Object.freeze({ enabled: false, serviceName: '', metricsPort: null, traceExporters: Object.freeze([]) });
let currentStatus: TelemetryStatus = OFF;

/** The status of this process's telemetry (disabled until startTelemetry ran). */
export function telemetryStatus(): TelemetryStatus {
  return currentStatus;
}

/** Routes the SDK's own diagnostics (exporter failures...) into the process log, deduplicated. */
function diagLogger(logger: Logger): DiagLogger {
  const lastSeen = new Map<string, number>();
  const write = (level: 'warn' | 'error' | 'info' | 'debug', message: string, args: unknown[]): void => {
    const key = `${level}:${message}`;
    const now = Date.now();
    if ((lastSeen.get(key) ?? -Infinity) > now - 60_000) return;
    if (lastSeen.size > 500) lastSeen.clear();
    lastSeen.set(key, now);
    const detail = args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
    logger[level]('telemetry: ' + message, detail === '' ? {} : { detail: detail.slice(0, 500) });
  };
  return {
    error: (m, ...a) => write('error', m, a),
    warn: (m, ...a) => write('warn', m, a),
    info: (m, ...a) => write('info', m, a),
    debug: (m, ...a) => write('debug', m, a),
    verbose: () => undefined,
  };
}

/**
 * Starts the SDK for this process. Call it once, first thing in the process's entry point;
 * never throws. A second call stops nothing and returns a disabled handle.
 */
export async function startTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  const { logger } = options;
  if (currentStatus.enabled) {
    logger.warn('telemetry already started in this process');
    return { status: currentStatus, stop: async () => undefined };
  }
  const config: TelemetryConfig = { ...loadTelemetryConfig(options.serviceName), ...options.config };
  for (const w of config.warnings) logger.warn('telemetry setting ignored', { problem: w });
  if (config.disabled) {
    logger.info('telemetry disabled', { reason: 'OTEL_SDK_DISABLED' });
    return { status: OFF, stop: async () => undefined };
  }
  diag.setLogger(diagLogger(logger), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  core.setGlobalErrorHandler((err) => diag.error('exporter or SDK failure', err instanceof Error ? err : String(err)));

  let metricsServer: MetricsServer | undefined;
  let exporter: PrometheusExporter | undefined;
  let sdk: NodeSDK | undefined;
  try {
    if (config.metricsEnabled) exporter = new PrometheusExporter({ preventServerStart: true });
    const spanProcessors: SpanProcessor[] | undefined = options.spanProcessors
      ? [...options.spanProcessors]
      : config.traceExporters.length === 0
        ? [new NoopSpanProcessor()]
        : undefined; // the SDK builds the exporters named by OTEL_TRACES_EXPORTER and OTEL_EXPORTER_OTLP_*
    // Spans nobody exports are not recorded: their ids are still made and propagated (logs, error
    // bodies, the next hop), and a caller's sampled trace is still followed (parent-based).
    const sampler = options.spanProcessors || config.recordSpans ? undefined : new ParentBasedSampler({ root: new AlwaysOffSampler() });
    sdk = new NodeSDK({
      serviceName: config.serviceName,
      ...(sampler ? { sampler } : {}),
      resource: resourceFromAttributes({ [ATTR_SERVICE_VERSION]: VERSION }),
      metricReaders: exporter ? [exporter] : [],
      ...(spanProcessors ? { spanProcessors } : {}),
      instrumentations: [],
    });
    sdk.start();
  } catch (err) {
    logger.warn('telemetry could not start; running without it', { err });
    await sdk?.shutdown().catch(() => undefined);
    return { status: OFF, stop: async () => undefined };
  }
  if (exporter) {
    try {
      metricsServer = await startMetricsServer(exporter, config.metricsHost, config.metricsPort);
    } catch (err) {
      logger.warn('metrics endpoint not started', { port: config.metricsPort, err });
    }
  }
  const status: TelemetryStatus = Object.freeze({
    enabled: true,
    serviceName: config.serviceName,
    metricsPort: metricsServer?.port ?? null,
    traceExporters: options.spanProcessors ? Object.freeze(['custom']) : config.traceExporters,
  });
  currentStatus = status;
  logger.info('telemetry started', { service_name: status.serviceName, metrics_port: status.metricsPort, trace_exporters: status.traceExporters });
  let stopping: Promise<void> | undefined;
  return {
    status,
    stop(timeoutMs = 5_000) {
      stopping ??= (async () => {
        await metricsServer?.close();
        const timer = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
        await Promise.race([sdk.shutdown().catch((err: unknown) => logger.warn('telemetry shutdown failed', { err })), timer]);
        // Unregister the global providers so a later start (tests) can register new ones.
        trace.disable();
        metrics.disable();
        propagation.disable();
        context.disable();
        diag.disable();
        if (currentStatus === status) currentStatus = OFF;
      })();
      return stopping;
    },
  };
}
