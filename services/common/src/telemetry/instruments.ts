/**
 * The platform's metric instruments. Names follow the OpenTelemetry semantic conventions where
 * one exists (`http.server.request.duration`, `rpc.server.call.duration`, `rpc.client.call.duration`,
 * in seconds); the platform's own live under `tts.*`. The Prometheus exporter turns dots into
 * underscores (`http_server_request_duration`, unit in its `# UNIT` line) and adds `_total` to
 * counters; `prometheus` below is the exported name, which the deployment's rules and dashboard use.
 *
 * Instruments come from the global meter provider, which the SDK installs at start-up; they are
 * created on first use and again if the provider changes, so code that records before (or
 * without) the SDK costs nothing and records nothing.
 */
import { metrics, type Counter, type Histogram, type Meter, type Observable, type UpDownCounter } from '@opentelemetry/api';
import { METRIC_HTTP_SERVER_REQUEST_DURATION, METRIC_RPC_CLIENT_CALL_DURATION, METRIC_RPC_SERVER_CALL_DURATION } from '@opentelemetry/semantic-conventions';
import { VERSION } from '../version.js';

/** Name of the meter (instrumentation scope) of every platform instrument. */
export const METER_NAME = 'tts-platform';

/** Bucket bounds, seconds, of request and call durations (the semantic conventions' advice, plus long syntheses). */
export const DURATION_BUCKETS_SEC: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 120];

/** Metric names and units of the platform's own instruments, as recorded (before Prometheus naming). */
export const PLATFORM_METRICS = {
  httpServerDuration: { name: METRIC_HTTP_SERVER_REQUEST_DURATION, unit: 's', prometheus: 'http_server_request_duration' },
  httpServerActiveRequests: { name: 'http.server.active_requests', unit: '{request}', prometheus: 'http_server_active_requests' },
  rpcServerDuration: { name: METRIC_RPC_SERVER_CALL_DURATION, unit: 's', prometheus: 'rpc_server_call_duration' },
  rpcClientDuration: { name: METRIC_RPC_CLIENT_CALL_DURATION, unit: 's', prometheus: 'rpc_client_call_duration' },
  queueTime: { name: 'tts.queue.time', unit: 's', prometheus: 'tts_queue_time' },
  batchSize: { name: 'tts.batch.size', unit: '{request}', prometheus: 'tts_batch_size' },
  timeToFirstAudio: { name: 'tts.time_to_first_audio', unit: 's', prometheus: 'tts_time_to_first_audio' },
  sessionFlushToAudio: { name: 'tts.session.flush_to_first_audio', unit: 's', prometheus: 'tts_session_flush_to_first_audio' },
  realTimeFactor: { name: 'tts.real_time_factor', unit: '1', prometheus: 'tts_real_time_factor' },
  charactersSynthesized: { name: 'tts.characters.synthesized', unit: '{character}', prometheus: 'tts_characters_synthesized_total' },
  jobs: { name: 'tts.jobs', unit: '{job}', prometheus: 'tts_jobs' },
  nodeInFlight: { name: 'tts.node.in_flight', unit: '{request}', prometheus: 'tts_node_in_flight' },
  nodeQueueDepth: { name: 'tts.node.queue.depth', unit: '{request}', prometheus: 'tts_node_queue_depth' },
  nodeQueuedWork: { name: 'tts.node.queued_work', unit: 's', prometheus: 'tts_node_queued_work' },
  writeBehindBuffered: { name: 'tts.write_behind.buffered', unit: '{record}', prometheus: 'tts_write_behind_buffered' },
  writeBehindDropped: { name: 'tts.write_behind.dropped', unit: '{record}', prometheus: 'tts_write_behind_dropped_total' },
} as const;

/** The synchronous instruments. */
export interface PlatformInstruments {
  /** Facade: one per HTTP request (http.request.method, http.route, http.response.status_code, error.type). */
  readonly httpServerDuration: Histogram;
  /** Facade: HTTP requests being served (http.request.method); the facade autoscaler's requests-in-flight metric. */
  readonly httpServerActiveRequests: UpDownCounter;
  /** gRPC servers: one per call (rpc.system.name, rpc.method, rpc.status_code). */
  readonly rpcServerDuration: Histogram;
  /** gRPC clients: one per call. */
  readonly rpcClientDuration: Histogram;
  /** Node: wait for an engine slot, per sentence (tts.engine). */
  readonly queueTime: Histogram;
  /** Node: requests per engine call (tts.engine). */
  readonly batchSize: Histogram;
  /** Node: from a call's start to its first audio (tts.engine, tts.streaming). */
  readonly timeToFirstAudio: Histogram;
  /** Facade: in a streaming session, from a context's flush (or end of input) to its next audio sent (tts.engine, tts.protocol). */
  readonly sessionFlushToAudio: Histogram;
  /** Node: compute seconds per second of audio, per synthesis (tts.engine). */
  readonly realTimeFactor: Histogram;
  /** Node: input characters synthesized (tts.engine, tts.outcome). */
  readonly charactersSynthesized: Counter;
}

let cached: { provider: unknown; meter: Meter; instruments: PlatformInstruments } | undefined;

/** The meter of the platform's instruments (from the current global provider). */
export function platformMeter(): Meter {
  return current().meter;
}

/** The platform's instruments (created on first use for the current global provider). */
export function instruments(): PlatformInstruments {
  return current().instruments;
}

function current(): { meter: Meter; instruments: PlatformInstruments } {
  const provider = metrics.getMeterProvider();
  if (cached?.provider === provider) return cached;
  const meter = provider.getMeter(METER_NAME, VERSION);
  const seconds = (m: { name: string; unit: string }, description: string): Histogram =>
    meter.createHistogram(m.name, { unit: m.unit, description, advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_SEC] } });
  const m = PLATFORM_METRICS;
  cached = {
    provider,
    meter,
    instruments: {
      httpServerDuration: seconds(m.httpServerDuration, 'Duration of HTTP server requests.'),
      httpServerActiveRequests: meter.createUpDownCounter(m.httpServerActiveRequests.name, { unit: m.httpServerActiveRequests.unit, description: 'HTTP server requests being served.' }),
      rpcServerDuration: seconds(m.rpcServerDuration, 'Duration of incoming gRPC calls.'),
      rpcClientDuration: seconds(m.rpcClientDuration, 'Duration of outgoing gRPC calls.'),
      queueTime: seconds(m.queueTime, 'Time a sentence waited for an engine slot on a node.'),
      batchSize: meter.createHistogram(m.batchSize.name, {
        unit: m.batchSize.unit,
        description: 'Requests run together in one engine call.',
        advice: { explicitBucketBoundaries: [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64] },
      }),
      timeToFirstAudio: seconds(m.timeToFirstAudio, 'Time from the start of a synthesis to its first audio.'),
      sessionFlushToAudio: seconds(m.sessionFlushToAudio, 'Time from a flush in a streaming session to the next audio sent to its client.'),
      realTimeFactor: meter.createHistogram(m.realTimeFactor.name, {
        unit: m.realTimeFactor.unit,
        description: 'Engine compute seconds per second of audio produced (below 1 is faster than real time).',
        advice: { explicitBucketBoundaries: [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 5] },
      }),
      charactersSynthesized: meter.createCounter(m.charactersSynthesized.name, { unit: m.charactersSynthesized.unit, description: 'Input characters synthesized.' }),
    },
  };
  return cached;
}

/** Stops an observation started by one of the `observe*` functions. */
export type StopObserving = () => void;

function observeGauge(gauge: Observable, read: () => Promise<readonly (readonly [number, Record<string, string>])[]> | readonly (readonly [number, Record<string, string>])[]): StopObserving {
  const callback = async (result: { observe(value: number, attributes?: Record<string, string>): void }): Promise<void> => {
    try {
      for (const [value, attributes] of await read()) result.observe(value, attributes);
    } catch {
      // A failed read (storage briefly unreachable) leaves a gap in the series, nothing more.
    }
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}

/** Jobs by state (`tts.jobs`, attribute `state`), read at each collection. */
export function observeJobs(read: () => Promise<Readonly<Record<string, number>>>): StopObserving {
  const gauge = platformMeter().createObservableGauge(PLATFORM_METRICS.jobs.name, { unit: PLATFORM_METRICS.jobs.unit, description: 'Jobs by state.' });
  return observeGauge(gauge, async () => Object.entries(await read()).map(([state, n]) => [n, { state }] as const));
}

/** A node's load figures, read at each collection. */
export interface NodeLoad {
  readonly inFlight: number;
  readonly queueDepth: number;
  /** Estimated compute seconds of queued and running work. */
  readonly queuedWorkSeconds: number;
}

/** Node load (`tts.node.in_flight`, `tts.node.queue.depth`, `tts.node.queued_work`), attribute `tts.node.id`. */
export function observeNodeLoad(nodeId: string, read: () => NodeLoad): StopObserving {
  const meter = platformMeter();
  const m = PLATFORM_METRICS;
  const attrs = { 'tts.node.id': nodeId };
  const stops = [
    observeGauge(meter.createObservableGauge(m.nodeInFlight.name, { unit: m.nodeInFlight.unit, description: 'Requests being synthesized on the node.' }), () => [[read().inFlight, attrs]]),
    observeGauge(meter.createObservableGauge(m.nodeQueueDepth.name, { unit: m.nodeQueueDepth.unit, description: 'Requests waiting for an engine slot on the node.' }), () => [[read().queueDepth, attrs]]),
    observeGauge(meter.createObservableGauge(m.nodeQueuedWork.name, { unit: m.nodeQueuedWork.unit, description: 'Estimated compute seconds of queued and running work on the node.' }), () => [[read().queuedWorkSeconds, attrs]]),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}

/** Backlog of one write-behind buffer (usage events, consent records, SLI rows). */
export interface WriteBehindBacklog {
  /** What the records are, e.g. "usage_events" (attribute `tts.records`). */
  readonly records: string;
  /** Records waiting to be written. */
  readonly buffered: number;
  /** Records dropped since start because storage stayed unreachable with the buffer full. */
  readonly dropped: number;
}

/** Write-behind buffers (`tts.write_behind.buffered`, `tts.write_behind.dropped`), attribute `tts.records`. */
export function observeWriteBehind(read: () => readonly WriteBehindBacklog[]): StopObserving {
  const meter = platformMeter();
  const m = PLATFORM_METRICS;
  const buffered = meter.createObservableGauge(m.writeBehindBuffered.name, { unit: m.writeBehindBuffered.unit, description: 'Records waiting in a write-behind buffer.' });
  const dropped = meter.createObservableCounter(m.writeBehindDropped.name, { unit: m.writeBehindDropped.unit, description: 'Records a write-behind buffer dropped because storage stayed unreachable with the buffer full.' });
  const stops = [
    observeGauge(buffered, () => read().map((b) => [b.buffered, { 'tts.records': b.records }] as const)),
    observeGauge(dropped, () => read().map((b) => [b.dropped, { 'tts.records': b.records }] as const)),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
