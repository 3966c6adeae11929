/**
 * Telemetry across real processes: the launcher starts the scheduler, a node and the facade as
 * separate processes (on PostgreSQL and Redis, as in a cluster) exporting spans over OTLP/HTTP (JSON) to a collector this test runs on
 * loopback. One request's trace continues the client's `traceparent` through the facade and the
 * node (parent links across the processes; the facade routes from its own view of the nodes, so the
 * scheduler is not in it), its trace id is in X-Trace-Id, in the error body and in every log line
 * written for it, and each process serves its metrics on its own Prometheus port.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PLATFORM_METRICS } from '@tts/common/telemetry';
import { freePort, freePortRun } from './support/processes.js';
import { postJson, waitFor } from './support/platform.js';
import { nodeArgsFor } from '@tts/common';
import { openDatabase } from '@tts/common/data';
import { freshPrefix, freshSchemaName, TEST_DATABASE_URL, TEST_REDIS_URL } from '@tts/common/testing';
import { recordOutput } from './support/test-logs.js';

interface ExportedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
}

/** OTLP/JSON ids are hex; accept base64 too. */
function hexId(v: unknown): string {
  if (typeof v !== 'string' || v === '') return '';
  return /^[0-9a-f]+$/i.test(v) ? v.toLowerCase() : Buffer.from(v, 'base64').toString('hex');
}

/** A minimal OTLP/HTTP JSON trace collector. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; server: Server }> {
  const spans: ExportedSpan[] = [];
  const server = createServer((req, res) => {
    // A process stopping may reset its exporter's connection mid-request.
    req.on('error', () => undefined);
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces' && body.startsWith('{')) {
        const doc = JSON.parse(body) as { resourceSpans?: { resource?: { attributes?: { key: string; value: { stringValue?: string } }[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] };
        for (const rs of doc.resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({ service, traceId: hexId(s['traceId']), spanId: hexId(s['spanId']), parentSpanId: hexId(s['parentSpanId']), name: String(s['name']), kind: Number(s['kind']) });
            }
          }
        }
      }
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, spans, server };
}

describe('telemetry across the facade, scheduler and node processes', { timeout: 120_000 }, () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let child: ReturnType<typeof spawn>;
  let out = '';
  let base = '';
  let metricsPort = 0;
  let apiKey = '';
  let dataDir = '';
  const adminKey = `obs-admin-${Date.now()}-0123456789abcdef`;
  const schema = freshSchemaName();
  const prefix = freshPrefix();

  before(async () => {
    collector = await startCollector();
    const port = await freePort();
    const schedulerPort = await freePort();
    metricsPort = await freePortRun(3);
    dataDir = mkdtempSync(join(tmpdir(), 'tts-obs-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      SCHEDULER_GRPC_PORT: String(schedulerPort),
      METRICS_PORT: String(metricsPort),
      METRICS_HOST: '127.0.0.1',
      TTS_NODES: '1',
      TTS_ENGINES: 'flite',
      TTS_DEFAULT_VOICE: 'flite:slt',
      DATA_DIR: dataDir,
      TTS_ADMIN_KEY: adminKey,
      LOG_LEVEL: 'info',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    for (const k of ['OTEL_SDK_DISABLED', 'OTEL_SERVICE_NAME']) delete env[k];
    // PostgreSQL and Redis, as in a cluster: the facade and the scheduler are separate processes
    // (embedded, npm start runs both in one control process).
    Object.assign(env, { DATABASE_URL: TEST_DATABASE_URL, TTS_DB_SCHEMA: schema, REDIS_URL: TEST_REDIS_URL, TTS_KV_PREFIX: prefix });
    child = spawn(process.execPath, nodeArgsFor('services/launcher/src/main.ts'), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    recordOutput('platform', child.stdout!, child.stderr!);
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('"platform ready"'), 90_000, 'platform ready');
    base = `http://127.0.0.1:${port}`;
    const created = await postJson(`${base}/api/auth/keys`, { name: 'traces' }, { 'x-admin-key': adminKey });
    assert.equal(created.status, 201);
    apiKey = ((await created.json()) as { api_key: string }).api_key;
  });

  after(async () => {
    if (child.exitCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    collector.server.close();
    rmSync(dataDir, { recursive: true, force: true });
    const db = await openDatabase({ url: TEST_DATABASE_URL });
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => db.close());
  });

  /** Log lines (JSON) written by the platform's processes so far. */
  const logLines = (): Record<string, unknown>[] =>
    out.split('\n').filter((l) => l.startsWith('{')).flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });

  test('one trace continues the client traceparent through facade -> node', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const clientSpan = '00f067aa0ba902b7';
    const res = await postJson(`${base}/api/tts`, { text: 'Tracing across three processes.', voice: 'flite:slt' }, { 'x-api-key': apiKey, traceparent: `00-${traceId}-${clientSpan}-01`, 'x-request-id': 'trace-ok-1' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-trace-id'), traceId);
    await res.arrayBuffer();

    const ofTrace = (): ExportedSpan[] => collector.spans.filter((s) => s.traceId === traceId);
    await waitFor(() => ofTrace().some((s) => s.service === 'tts-facade' && s.kind === 2), 15_000, 'facade server span');
    await waitFor(() => ofTrace().some((s) => s.service === 'tts-inference-node' && s.name === 'tts.encode'), 15_000, 'node spans');
    const spans = ofTrace();
    const one = (service: string, name: string, kind: number): ExportedSpan => {
      const found = spans.filter((s) => s.service === service && s.name === name && s.kind === kind);
      assert.equal(found.length, 1, `${service} ${name} (kind ${kind}) in ${JSON.stringify(spans.map((s) => [s.service, s.name, s.kind]))}`);
      return found[0]!;
    };
    const http = one('tts-facade', 'POST /api/tts', 2);
    assert.equal(http.parentSpanId, clientSpan, 'the facade continues the caller trace');
    const synthClient = one('tts-facade', 'tts.v1.Synthesizer/Synthesize', 3);
    assert.equal(synthClient.parentSpanId, http.spanId);
    // The facade routes from its own view of the nodes (lookaside): the scheduler is not in the request's trace.
    assert.ok(!spans.some((s) => s.name.startsWith('tts.v1.Scheduler/')), JSON.stringify(spans.map((s) => [s.service, s.name])));
    const synthServer = one('tts-inference-node', 'tts.v1.Synthesizer/Synthesize', 2);
    assert.equal(synthServer.parentSpanId, synthClient.spanId, 'node span is a child of the facade call');
    for (const name of ['tts.queue_wait', 'tts.inference', 'tts.encode']) {
      const inner = spans.filter((s) => s.service === 'tts-inference-node' && s.name === name);
      assert.ok(inner.length >= 1, name);
      for (const s of inner) assert.equal(s.parentSpanId, synthServer.spanId, `${name} under the node's call span`);
    }
    // Liveness traffic (heartbeats, the facade's routing-view refresh) makes no spans.
    assert.ok(!collector.spans.some((s) => s.name.endsWith('/Heartbeat') || s.name.endsWith('/RegisterNode') || s.name.endsWith('/ListNodes')));
  });

  test('the trace id and request id are in the error body and in every log line of the request, in each process', async () => {
    // Nothing speakable: the facade accepts it, the node refuses it (and logs the refusal).
    const res = await postJson(`${base}/api/tts`, { text: '... !!! ...', voice: 'flite:slt' }, { 'x-api-key': apiKey, 'x-request-id': 'trace-err-1' });
    assert.equal(res.status, 422);
    const body = (await res.json()) as { code: string; request_id: string; trace_id: string };
    assert.equal(body.code, 'TTS_TEXT_EMPTY');
    assert.equal(res.headers.get('x-correlation-id'), 'trace-err-1');
    assert.match(body.trace_id, /^[0-9a-f]{32}$/);
    assert.equal(res.headers.get('x-trace-id'), body.trace_id);
    await waitFor(() => logLines().some((l) => l['request_id'] === body.request_id && l['service'] === 'inference-node'), 10_000, 'node log line');
    const lines = logLines().filter((l) => l['request_id'] === body.request_id);
    assert.ok(lines.length >= 1);
    for (const l of lines) {
      assert.equal(l['trace_id'], body.trace_id, JSON.stringify(l));
      assert.equal(l['correlation_id'], 'trace-err-1', JSON.stringify(l));
      assert.match(String(l['span_id']), /^[0-9a-f]{16}$/);
    }
    await waitFor(() => collector.spans.some((s) => s.traceId === body.trace_id && s.service === 'tts-inference-node'), 15_000, 'node span of the failed request');
  });

  test('each process serves its metrics on its own Prometheus port', async () => {
    const scrape = async (port: number): Promise<string> => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const [facade, scheduler, node] = await Promise.all([scrape(metricsPort), scrape(metricsPort + 1), scrape(metricsPort + 2)]);
    const m = PLATFORM_METRICS;
    const has = (text: string, name: string): boolean => new RegExp(`^${name}(_bucket|_count|_sum)?\\{`, 'm').test(text);
    assert.ok(has(facade, m.httpServerDuration.prometheus), 'facade http_server_request_duration');
    assert.ok(/http_route="\/api\/tts"/.test(facade), 'facade metrics carry the route template');
    assert.ok(has(facade, m.rpcClientDuration.prometheus), 'facade rpc_client_call_duration');
    assert.ok(has(scheduler, m.rpcServerDuration.prometheus), 'scheduler rpc_server_call_duration');
    assert.ok(has(scheduler, m.jobs.prometheus), 'scheduler tts_jobs');
    for (const metric of [m.rpcServerDuration, m.queueTime, m.batchSize, m.timeToFirstAudio, m.realTimeFactor, m.charactersSynthesized, m.nodeInFlight, m.nodeQueueDepth, m.nodeQueuedWork]) {
      assert.ok(has(node, metric.prometheus), `node ${metric.prometheus}`);
    }
    assert.match(node, /service_name="tts-inference-node"/);
    const notFound = await fetch(`http://127.0.0.1:${metricsPort}/`);
    assert.equal(notFound.status, 404);
    await notFound.text();
    // The public port does not serve metrics.
    const onPublic = await fetch(`${base}/metrics`);
    assert.equal(onPublic.status, 404);
    await onPublic.text();
  });

  test('SIGTERM stops every process cleanly with telemetry flushed', async () => {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0, out.slice(-2000));
    assert.ok(!logLines().some((l) => String(l['msg']).startsWith('telemetry: ') && l['level'] === 'error'), 'no exporter failure');
  });
});
