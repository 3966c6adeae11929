/**
 * Telemetry overhead benchmark (issue 6): short-sentence throughput of the launched multi-process
 * platform (scheduler, one node, facade; flite) with telemetry off (OTEL_SDK_DISABLED=true, no
 * metrics endpoint) against telemetry on, in two settings:
 * - `on`: the SDK in every process, spans made (ids in logs and error bodies) but not exported,
 *   Prometheus endpoints scraped every 2 s as a Prometheus would;
 * - `on_otlp`: the same, plus every span exported over OTLP/HTTP to a collector in this process.
 * Variants are interleaved over several rounds (a fresh platform each time) and compared by their
 * median requests/s, and by the CPU time the platform's processes spend per request (read from
 * /proc before and after each run). On a saturated CPU-bound platform throughput is cores divided
 * by CPU per request, so the CPU figure gives the throughput cost even when other work on the
 * machine makes requests/s noisy. Last, in this process, the CPU time of the telemetry work one
 * request causes (spans, metric records, propagation and log context of the facade, its gRPC call
 * to the node and the node's pipeline, the SDK started as in the `on` setting) is measured on its own:
 * a bound that other load on the machine cannot blur.
 * Target: telemetry costs at most 5 % of throughput.
 * Writes bench/results/telemetry.json.
 */
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Metadata } from '@grpc/grpc-js';
import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { createLogger, setLogSink, withLogFields } from '@tts/common';
import { instruments, startTelemetry, tracer } from '@tts/common/telemetry';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { descendants, freePort } from '../tests/support/processes.js';
import { launchPlatform, post } from './platform.js';
import { load, r, summary } from './support.js';

const SHORT = 'Hello world.';
const VOICE = 'flite:slt';
const CONCURRENCY = Number(process.env['BENCH_TELEMETRY_CONCURRENCY'] ?? 16);
const REQUESTS = Number(process.env['BENCH_TELEMETRY_REQUESTS'] ?? 400);
const ROUNDS = Number(process.env['BENCH_TELEMETRY_ROUNDS'] ?? 5);
const WARMUP = 40;
const TARGET_PCT = 5;

type Variant = 'off' | 'on' | 'on_otlp';

/** CPU time (user + system, ms) used so far by the platform's processes (this process's descendants). */
function platformCpuMs(): number {
  let ticks = 0;
  for (const pid of descendants(process.pid)) {
    try {
      // Fields after the command (which may hold spaces) start at the last ')': utime and stime are 14 and 15.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited meanwhile
    }
  }
  return ticks * 10; // USER_HZ = 100 on Linux
}

/** An OTLP/HTTP sink: accepts every export, counts spans' payload bytes. */
async function startSink(): Promise<{ url: string; bytes: () => number; requests: () => number; close(): void }> {
  let bytes = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    // An exporter killed mid-request (a platform stopping) resets its connection: not an error here.
    req.on('error', () => undefined);
    req.on('data', (d: Buffer) => (bytes += d.length));
    req.on('end', () => {
      requests++;
      res.setHeader('content-type', 'application/x-protobuf');
      res.end();
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, bytes: () => bytes, requests: () => requests, close: () => server.close() };
}

async function run(variant: Variant, sinkUrl: string): Promise<Record<string, unknown>> {
  const metricsPort = variant === 'off' ? 0 : await freePort();
  // LOG_LEVEL info: the launcher detects readiness from its children's info lines.
  const env: Record<string, string> = { LOG_LEVEL: 'info', TTS_NODES: '1', TTS_ENGINES: 'flite', TTS_DEFAULT_VOICE: VOICE, TTS_FLITE_WORKERS: '2', METRICS_PORT: String(metricsPort), METRICS_HOST: '127.0.0.1' };
  if (variant === 'off') env['OTEL_SDK_DISABLED'] = 'true';
  if (variant === 'on_otlp') Object.assign(env, { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' });
  const p = await launchPlatform(env, 20);
  let scrapes = 0;
  const scraper =
    variant === 'off'
      ? undefined
      : setInterval(() => {
          for (const port of [metricsPort, metricsPort + 1, metricsPort + 2]) {
            fetch(`http://127.0.0.1:${port}/metrics`).then(async (res) => {
              await res.text();
              scrapes++;
            }, () => undefined);
          }
        }, 2000);
  try {
    for (let i = 0; i < WARMUP; i++) await post(p, '/api/tts', { text: SHORT, voice: VOICE });
    const cpuBefore = platformCpuMs();
    const { latencies, wallMs } = await load(CONCURRENCY, REQUESTS, async () => {
      const res = await post(p, '/api/tts', { text: SHORT, voice: VOICE });
      if (res.status !== 200) throw new Error(`status ${res.status}`);
    });
    const cpuMs = platformCpuMs() - cpuBefore;
    const s = summary(latencies);
    return { variant, requests: REQUESTS, rps: r((REQUESTS / wallMs) * 1000, 1), p50_ms: r(s.p50, 1), p99_ms: r(s.p99, 1), cpu_ms_per_request: r(cpuMs / REQUESTS, 2), scrapes, loadavg_1m: r(loadavg()[0]!) };
  } finally {
    if (scraper) clearInterval(scraper);
    await p.stop();
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

const sink = await startSink();
const rounds: Record<string, unknown>[] = [];
const started = new Date().toISOString();
const load0 = loadavg().map((x) => r(x));
for (let round = 1; round <= ROUNDS; round++) {
  // Rotate the order so no variant always runs first (cold disk caches) or last.
  const order: Variant[] = (['off', 'on', 'on_otlp'] as const).map((_, i, all) => all[(i + round - 1) % all.length]!);
  for (const variant of order) {
    const result = { round, ...(await run(variant, sink.url)) };
    console.log(JSON.stringify(result));
    rounds.push(result);
  }
}
sink.close();

/**
 * CPU microseconds of the telemetry work of one short synthesis request, in this process, with the
 * SDK as the `on` setting starts it: what requestTelemetry, the gRPC client interceptor and server
 * wrapper (Synthesize) and the pipeline (queue wait, inference, encode) do per request.
 */
async function telemetryCpuPerRequestUs(iterations: number): Promise<number> {
  setLogSink(() => undefined);
  const telemetry = await startTelemetry({ serviceName: 'bench', logger: createLogger('bench'), config: { metricsEnabled: true, metricsPort: 0, metricsHost: '127.0.0.1', traceExporters: [] } });
  const m = instruments();
  const headers = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
  const oneRequest = (): void => {
    const parent = propagation.extract(ROOT_CONTEXT, headers);
    const http = tracer().startSpan('POST', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST' } }, parent);
    context.with(trace.setSpan(parent, http), () =>
      withLogFields({ request_id: 'r' }, () => {
        for (const method of ['tts.v1.Synthesizer/Synthesize']) {
          const client = tracer().startSpan(method, { kind: SpanKind.CLIENT, attributes: { 'rpc.system.name': 'grpc', 'rpc.method': method } });
          const md = new Metadata();
          propagation.inject(trace.setSpan(context.active(), client), md, { set: (c, k, v) => c.set(k, v) });
          const remote = propagation.extract(ROOT_CONTEXT, md, { keys: (c) => Object.keys(c.getMap()), get: (c, k) => c.get(k).map(String)[0] });
          const server = tracer().startSpan(method, { kind: SpanKind.SERVER, attributes: { 'rpc.system.name': 'grpc', 'rpc.method': method } }, remote);
          context.with(trace.setSpan(remote, server), () => {
            if (method.endsWith('Synthesize')) {
              for (const name of ['tts.queue_wait', 'tts.inference', 'tts.encode']) {
                const inner = tracer().startSpan(name, { attributes: { 'tts.engine': 'flite' } });
                inner.setAttribute('tts.batch.size', 1);
                inner.end();
              }
              const attrs = { 'tts.engine': 'flite' };
              m.queueTime.record(0.001, attrs);
              m.batchSize.record(1, attrs);
              m.charactersSynthesized.add(12, attrs);
              m.realTimeFactor.record(0.02, attrs);
              m.timeToFirstAudio.record(0.01, { ...attrs, 'tts.streaming': false });
            }
          });
          server.setAttribute('rpc.status_code', 'OK');
          server.end();
          m.rpcServerDuration.record(0.002, { 'rpc.system.name': 'grpc', 'rpc.method': method, 'rpc.status_code': 'OK' });
          client.setAttribute('rpc.status_code', 'OK');
          client.end();
          m.rpcClientDuration.record(0.003, { 'rpc.system.name': 'grpc', 'rpc.method': method, 'rpc.status_code': 'OK' });
        }
      }),
    );
    const attributes = { 'http.request.method': 'POST', 'http.response.status_code': 200, 'http.route': '/api/tts' };
    http.setAttributes(attributes);
    http.updateName('POST /api/tts');
    http.end();
    m.httpServerDuration.record(0.02, attributes);
  };
  for (let i = 0; i < 2000; i++) oneRequest();
  const before = process.cpuUsage();
  for (let i = 0; i < iterations; i++) oneRequest();
  const used = process.cpuUsage(before);
  await telemetry.stop();
  return (used.user + used.system) / iterations;
}

const rpsOf = (v: Variant): number => median(rounds.filter((x) => x['variant'] === v).map((x) => x['rps'] as number));
const off = rpsOf('off');
const on = rpsOf('on');
const onOtlp = rpsOf('on_otlp');
const cost = (x: number): number => r(((off - x) / off) * 100, 1);
const cpuOf = (v: Variant): number => median(rounds.filter((x) => x['variant'] === v).map((x) => x['cpu_ms_per_request'] as number));
const cpuOff = cpuOf('off');
// Throughput of a CPU-bound platform is proportional to 1 / CPU per request.
const cpuCost = (v: Variant): number => r((1 - cpuOff / cpuOf(v)) * 100, 1);
const telemetryUs = r(await telemetryCpuPerRequestUs(20_000), 1);
const result = {
  machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version, loadavg_start: load0, loadavg_end: loadavg().map((x) => r(x)) },
  date: started,
  workload: { text: SHORT, voice: VOICE, endpoint: 'POST /api/tts', format: 'wav', concurrency: CONCURRENCY, requests_per_run: REQUESTS, rounds: ROUNDS, nodes: 1 },
  rounds,
  median_rps: { off, on, on_otlp: onOtlp },
  throughput_cost_pct: { on: cost(on), on_otlp: cost(onOtlp) },
  median_cpu_ms_per_request: { off: cpuOff, on: cpuOf('on'), on_otlp: cpuOf('on_otlp') },
  throughput_cost_from_cpu_pct: { on: cpuCost('on'), on_otlp: cpuCost('on_otlp') },
  spans_exported: { otlp_requests: sink.requests(), otlp_bytes: sink.bytes() },
  telemetry_cpu_us_per_request_in_process: telemetryUs,
  telemetry_cpu_share_of_request_pct: r((telemetryUs / 1000 / cpuOff) * 100, 2),
  target_pct: TARGET_PCT,
  target_met: {
    by_rps: cost(on) <= TARGET_PCT && cost(onOtlp) <= TARGET_PCT,
    by_cpu: cpuCost('on') <= TARGET_PCT && cpuCost('on_otlp') <= TARGET_PCT,
    by_in_process_cost: (telemetryUs / 1000 / cpuOff) * 100 <= TARGET_PCT,
  },
};
console.log(
  JSON.stringify({
    median_rps: result.median_rps,
    throughput_cost_pct: result.throughput_cost_pct,
    throughput_cost_from_cpu_pct: result.throughput_cost_from_cpu_pct,
    telemetry_cpu_us_per_request_in_process: telemetryUs,
    target_met: result.target_met,
  }),
);
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/telemetry.json', JSON.stringify(result, null, 2) + '\n');
