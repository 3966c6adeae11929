/**
 * Logs, audio events, system information, retention and metrics of a platform running in this
 * process with the OpenTelemetry SDK started (spans kept in memory, Prometheus on a free port):
 * the SSE log stream read by a real streaming client (tail, a live line, heartbeats, bounds); the
 * request id and trace id in every log line and error body of a request; one trace through the
 * facade and the node; the audio pipeline events; system info; the cleanup of old
 * artifacts and SLI rows (and only those); the administrator-only access of these operations.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, lstatSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { WebSocket } from 'ws';
import { createLogger, recentLogs, setLogSink } from '@tts/common';
import { startTelemetry, type Telemetry, PLATFORM_METRICS } from '@tts/common/telemetry';
import { SloRepository } from '@tts/facade/testing';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';
import { PLATFORM_VERSION } from './support/version.js';

interface SseEvent {
  readonly event: string;
  readonly id: string | undefined;
  readonly data: string;
}

/** A streaming SSE client over fetch: events are parsed as the bytes arrive. */
async function openEventStream(url: string, headers: Record<string, string>): Promise<{ status: number; contentType: string; events: SseEvent[]; done: Promise<void>; close(): void }> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: SseEvent[] = [];
  const done = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let event = 'message';
          let id: string | undefined;
          const data: string[] = [];
          let fields = 0;
          for (const line of block.split('\n')) {
            const m = /^([a-z]+): ?(.*)$/.exec(line);
            if (!m) continue;
            fields++;
            if (m[1] === 'event') event = m[2]!;
            else if (m[1] === 'id') id = m[2];
            else if (m[1] === 'data') data.push(m[2]!);
            else if (m[1] === 'retry') event = 'retry';
          }
          if (fields > 0) events.push({ event, id, data: data.join('\n') });
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', events, done, close: () => controller.abort() };
}

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

describe('logs, audio events, system info, cleanup and telemetry (in-process)', { timeout: 60_000 }, () => {
  let p: TestPlatform;
  let telemetry: Telemetry;
  const spans = new InMemorySpanExporter();
  const lines: Record<string, unknown>[] = [];
  let dataDir: string;
  let admin: Record<string, string>;

  before(async () => {
    setLogSink((line) => lines.push(JSON.parse(line) as Record<string, unknown>));
    telemetry = await startTelemetry({
      serviceName: 'tts-test',
      logger: createLogger('test'),
      config: { metricsEnabled: true, metricsPort: 0, metricsHost: '127.0.0.1' },
      spanProcessors: [new SimpleSpanProcessor(spans)],
    });
    dataDir = mkdtempSync(join(tmpdir(), 'tts-obs-logs-'));
    p = await startPlatform({
      node: { engines: ['flite'], defaultVoice: 'flite:slt' },
      facade: { defaultVoice: 'flite:slt', dataDir, cleanupIntervalMinutes: 0, artifactRetentionHours: 24, sloRetentionDays: 10 },
    });
    admin = { 'x-admin-key': p.adminKey };
  });

  after(async () => {
    await p.stop();
    await telemetry.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('GET /api/logs/stream: the tail first, then a live line, then heartbeats, as Server-Sent Events', async () => {
    const log = createLogger('stream-test');
    for (let i = 1; i <= 3; i++) log.info(`before-${i}`);
    const stream = await openEventStream(`${p.url}/api/logs/stream?tail=3&heartbeat_sec=0.5`, admin);
    try {
      assert.equal(stream.status, 200);
      assert.match(stream.contentType, /^text\/event-stream/);
      await waitFor(() => stream.events.filter((e) => e.event === 'message').length >= 3, 5000, 'tail');
      const tail = stream.events.filter((e) => e.event === 'message').slice(0, 3).map((e) => JSON.parse(e.data) as { msg: string; seq: number });
      assert.deepEqual(tail.map((r) => r.msg), ['before-1', 'before-2', 'before-3']);
      assert.deepEqual(stream.events.filter((e) => e.event === 'message').slice(0, 3).map((e) => Number(e.id)), tail.map((r) => r.seq), 'event ids are the line sequence numbers');
      log.warn('live-line', { n: 42 });
      await waitFor(() => stream.events.some((e) => e.event === 'message' && e.data.includes('"live-line"')), 5000, 'live line');
      const live = JSON.parse(stream.events.find((e) => e.data.includes('"live-line"'))!.data) as Record<string, unknown>;
      assert.deepEqual([live['level'], live['service'], live['n']], ['warn', 'stream-test', 42]);
      const t0 = Date.now();
      await waitFor(() => stream.events.filter((e) => e.event === 'heartbeat').length >= 2, 5000, 'two heartbeats');
      assert.ok(Date.now() - t0 < 2500, 'heartbeats every 0.5 s');
      const beat = JSON.parse(stream.events.find((e) => e.event === 'heartbeat')!.data) as { time: string; dropped: number };
      assert.equal(beat.dropped, 0);
      assert.ok(!Number.isNaN(Date.parse(beat.time)));
      assert.equal(p.facade.deps.logStreams.size, 1);
    } finally {
      stream.close();
      await stream.done;
    }
    await waitFor(() => p.facade.deps.logStreams.size === 0, 5000, 'stream released when the client leaves');
  });

  test('GET /api/logs/stream: bounds of tail and heartbeat_sec, and follow=false ends after the tail', async () => {
    for (const q of ['tail=201', 'tail=-1', 'tail=x', 'heartbeat_sec=0.4', 'heartbeat_sec=30.1']) {
      const res = await fetch(`${p.url}/api/logs/stream?${q}`, { headers: admin });
      assert.equal(res.status, 422, q);
      assert.equal(((await res.json()) as { code: string }).code, 'VALIDATION_FAILED');
    }
    const kept = recentLogs(200).length;
    const full = await fetch(`${p.url}/api/logs/stream?tail=200&heartbeat_sec=30&follow=false`, { headers: admin });
    assert.equal(full.status, 200);
    const text = await full.text();
    const count = text.split('\n\n').filter((b) => b.startsWith('id: ')).length;
    assert.ok(count >= kept && count <= 200 && count > 0, `${count} tail lines (${kept} kept before)`);
    const none = await (await fetch(`${p.url}/api/logs/stream?tail=0&follow=false`, { headers: admin })).text();
    assert.ok(!none.includes('data:'));
  });

  test('request id, correlation id and trace id: in the error body, X-Trace-Id and every log line of the request; one trace across facade and node', async () => {
    const res = await p.post('/api/tts', { text: '... !!! ...', voice: 'flite:slt' }, { 'x-request-id': 'logs-err-1' });
    assert.equal(res.status, 422);
    const body = (await res.json()) as { request_id: string; trace_id: string };
    assert.notEqual(body.request_id, 'logs-err-1', 'the platform makes the request id');
    assert.equal(res.headers.get('x-request-id'), body.request_id);
    assert.equal(res.headers.get('x-correlation-id'), 'logs-err-1');
    assert.match(body.trace_id, /^[0-9a-f]{32}$/);
    assert.equal(res.headers.get('x-trace-id'), body.trace_id);
    const mine = lines.filter((l) => l['request_id'] === body.request_id);
    assert.ok(mine.some((l) => l['service'] === 'inference-node'), 'the node logged the refusal');
    for (const l of mine) {
      assert.equal(l['trace_id'], body.trace_id);
      assert.equal(l['correlation_id'], 'logs-err-1', `the client's id is in every log line of the request: ${JSON.stringify(l)}`);
    }
    assert.ok(!lines.some((l) => l['request_id'] === 'logs-err-1'), 'never as a request id');

    const ok = await p.post('/api/tts', { text: 'One trace.', voice: 'flite:slt' }, { 'x-request-id': 'logs-ok-1' });
    assert.equal(ok.status, 200);
    await ok.arrayBuffer();
    const traceId = ok.headers.get('x-trace-id')!;
    await waitFor(() => spans.getFinishedSpans().some((s) => s.spanContext().traceId === traceId && s.name === 'POST /api/tts'), 5000, 'spans');
    const names = spans.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId).map((s) => s.name);
    for (const name of ['POST /api/tts', 'tts.v1.Synthesizer/Synthesize', 'tts.queue_wait', 'tts.inference', 'tts.encode']) {
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    }
    // Client and server spans of the node call: the node's server span joined the trace.
    assert.equal(names.filter((n) => n === 'tts.v1.Synthesizer/Synthesize').length, 2);
    // The facade routes from its own view of the nodes (lookaside): no scheduler call in the request.
    assert.ok(!names.some((n) => n.startsWith('tts.v1.Scheduler/')), names.join(', '));
  });

  test('GET /api/debug/audio-logs: recent pipeline events with engine, voice, durations, batch and RTF', async () => {
    const whole = await p.post('/api/tts', { text: 'An audio event, whole.', voice: 'flite:slt' }, { 'x-request-id': 'audio-whole' });
    await whole.arrayBuffer();
    const streamed = await p.post('/v1/audio/speech', { model: 'tts-1', input: 'An audio event, streamed.', voice: 'flite:slt', response_format: 'mp3' }, { 'x-request-id': 'audio-stream' });
    await streamed.arrayBuffer();
    const res = await fetch(`${p.url}/api/debug/audio-logs`, { headers: admin });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { count: number; nodes: { node_id: string; reachable: boolean }[]; events: Record<string, unknown>[] };
    assert.deepEqual(body.nodes.map((n) => [n.node_id, n.reachable]), [[p.nodes[0]!.nodeId, true]]);
    assert.equal(body.count, body.events.length);
    const times = body.events.map((e) => Date.parse(String(e['time'])));
    assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');
    const w = body.events.find((e) => e['request_id'] === whole.headers.get('x-request-id'))!;
    const s = body.events.find((e) => e['request_id'] === streamed.headers.get('x-request-id'))!;
    assert.ok(w && s);
    assert.deepEqual([w['engine'], w['voice'], w['format'], w['streaming'], w['outcome'], w['batch_size'], w['node_id']], ['flite', 'flite:slt', 'wav', false, 'ok', 1, p.nodes[0]!.nodeId]);
    assert.deepEqual([s['format'], s['streaming'], s['outcome']], ['mp3', true, 'ok']);
    for (const e of [w, s]) {
      assert.ok((e['audio_seconds'] as number) > 0.5);
      assert.ok((e['real_time_factor'] as number) > 0 && (e['real_time_factor'] as number) < 1);
      assert.ok((e['total_ms'] as number) >= (e['time_to_first_audio_ms'] as number));
      assert.ok((e['characters'] as number) > 10);
    }
    assert.equal(w['trace_id'], whole.headers.get('x-trace-id'));
  });

  test('GET /api/system/info: version, uptime, nodes, engines, storage and telemetry', async () => {
    const res = await fetch(`${p.url}/api/system/info`, { headers: admin });
    assert.equal(res.status, 200);
    const info = (await res.json()) as {
      version: string; uptime_sec: number; nodes: { node_id: string; ready: boolean; engines: string[] }[]; engines: { name: string; ready: boolean; nodes_ready: number }[];
      storage: { database: { kind: string; size_bytes: number }; kv: { kind: string }; data_dir: { path: string; disk: { free_bytes: number } } }; telemetry: { enabled: boolean; metrics_port: number };
    };
    assert.equal(info.version, PLATFORM_VERSION);
    assert.ok(info.uptime_sec >= 0);
    assert.deepEqual(info.nodes.map((n) => [n.node_id, n.ready, n.engines]), [[p.nodes[0]!.nodeId, true, ['flite']]]);
    assert.deepEqual(info.engines.map((e) => [e.name, e.ready, e.nodes_ready]), [['flite', true, 1]]);
    assert.equal(info.storage.database.kind, 'postgres');
    assert.ok(info.storage.database.size_bytes > 0);
    assert.equal(info.storage.kv.kind, 'redis');
    assert.ok(info.storage.data_dir.disk.free_bytes > 0);
    assert.deepEqual([info.telemetry.enabled, info.telemetry.metrics_port], [true, telemetry.status.metricsPort]);
  });

  test('cleanup: old artifacts and SLI rows go, everything else stays, and the report says so', async () => {
    const artifacts = join(dataDir, 'artifacts');
    mkdirSync(artifacts, { recursive: true });
    const old = new Date(Date.now() - 3 * 24 * 3600_000);
    const put = (name: string, bytes: number, mtime?: Date): string => {
      const path = join(artifacts, name);
      writeFileSync(path, Buffer.alloc(bytes, 1));
      if (mtime) utimesSync(path, mtime, mtime);
      return path;
    };
    const oldAudio = put(`${sha('old')}.wav`, 1000, old);
    const oldTemp = put(`${sha('temp')}.wav.4242.0a1b2c3d.tmp`, 300, new Date(Date.now() - 2 * 3600_000));
    const freshAudio = put(`${sha('fresh')}.mp3`, 500);
    const freshTemp = put(`${sha('busy')}.wav.4242.0a1b2c3e.tmp`, 10);
    const notArtifact = put('notes.txt', 10, old);
    const outside = join(dataDir, 'outside.wav');
    writeFileSync(outside, 'x');
    utimesSync(outside, old, old);
    const link = join(artifacts, `${sha('link')}.wav`);
    symlinkSync(outside, link);
    const repo = new SloRepository(p.facade.deps.access.database);
    const at = new Date(Date.now() - 11 * 24 * 3600_000);
    await repo.insertMany(Array.from({ length: 7 }, () => ({ at, endpoint: 'GET /api/health', status: 200, ok: true, latencyMs: 1, errorCode: null })));

    const res = await fetch(`${p.url}/api/system/cleanup/run`, { method: 'POST', headers: admin });
    assert.equal(res.status, 200);
    const report = (await res.json()) as { trigger: string; removed_total: number; items: { name: string; status: string; removed: number; bytes_freed: number }[] };
    const item = (name: string) => report.items.find((i) => i.name === name)!;
    assert.equal(report.trigger, 'manual');
    assert.deepEqual([item('audio_artifacts').status, item('audio_artifacts').removed, item('audio_artifacts').bytes_freed], ['ok', 2, 1300]);
    assert.deepEqual([item('slo_requests').status, item('slo_requests').removed], ['ok', 7]);
    assert.equal(item('job_records').status, 'not_configured');
    assert.equal(item('usage_events').status, 'kept');
    assert.equal(item('audit_records').status, 'kept');
    assert.equal(item('logs').status, 'not_stored');
    assert.equal(report.removed_total, 9);
    assert.ok(!existsSync(oldAudio) && !existsSync(oldTemp));
    for (const kept of [freshAudio, freshTemp, notArtifact, outside]) assert.ok(existsSync(kept), kept);
    assert.ok(lstatSync(link).isSymbolicLink(), 'a link is never followed nor removed');

    const again = (await (await fetch(`${p.url}/api/system/cleanup/run`, { method: 'POST', headers: admin })).json()) as { removed_total: number };
    assert.equal(again.removed_total, 0, 'idempotent');
    const config = (await (await fetch(`${p.url}/api/system/cleanup/config`, { headers: admin })).json()) as {
      interval_minutes: number; next_run_at: string | null; last_run: { removed_total: number } | null; items: { name: string; managed: boolean; retention_seconds: number | null; note: string }[];
    };
    assert.deepEqual([config.interval_minutes, config.next_run_at, config.last_run?.removed_total], [0, null, 0]);
    const byName = Object.fromEntries(config.items.map((i) => [i.name, i]));
    assert.deepEqual([byName['audio_artifacts']!.managed, byName['audio_artifacts']!.retention_seconds], [true, 24 * 3600]);
    assert.deepEqual([byName['slo_requests']!.managed, byName['slo_requests']!.retention_seconds], [true, 10 * 86_400]);
    assert.deepEqual([byName['job_records']!.managed, byName['usage_events']!.managed, byName['audit_records']!.managed, byName['logs']!.managed], [false, false, false, false]);
    assert.match(byName['usage_events']!.note, /append-only/);
  });

  test('Prometheus endpoint of the process: semantic-convention and platform metrics', async () => {
    // A streaming session's context: flushed, then its first audio (tts.session.flush_to_first_audio).
    const socket = new WebSocket(`${p.url.replace(/^http/, 'ws')}/v1/text-to-speech/flite:slt/multi-stream-input?output_format=pcm_16000`, { headers: { 'xi-api-key': p.apiKey } });
    socket.on('error', () => undefined);
    await once(socket, 'open');
    for (const m of [{ text: 'Measured.', context_id: 'm', flush: true }, { text: '', context_id: 'm', flush: true }, { close_socket: true }]) socket.send(JSON.stringify(m));
    await once(socket, 'close');
    const text = await (await fetch(`http://127.0.0.1:${telemetry.status.metricsPort}/metrics`)).text();
    const m = PLATFORM_METRICS;
    for (const metric of [m.httpServerDuration, m.httpServerActiveRequests, m.rpcServerDuration, m.rpcClientDuration, m.queueTime, m.batchSize, m.timeToFirstAudio, m.sessionFlushToAudio, m.realTimeFactor, m.charactersSynthesized, m.nodeInFlight, m.jobs, m.writeBehindBuffered, m.writeBehindDropped]) {
      assert.match(text, new RegExp(`^${metric.prometheus}(_bucket|_count|_sum)?\\{`, 'm'), metric.prometheus);
    }
    assert.match(text, /http_server_request_duration_count\{[^}]*http_route="\/api\/tts"[^}]*\} \d+/);
    assert.match(text, /tts_session_flush_to_first_audio_count\{[^}]*tts_protocol="elevenlabs-multi-stream-input"[^}]*\} [1-9]/);
    assert.match(text, /rpc_server_call_duration_count\{[^}]*rpc_method="tts\.v1\.Synthesizer\/Synthesize"/);
    for (const records of ['usage_events', 'consent_audit', 'slo_requests']) assert.match(text, new RegExp(`^tts_write_behind_buffered\\{[^}]*tts_records="${records}"`, 'm'), records);
  });

  test('http_server_active_requests counts a request while it is served (the facade autoscaler metric)', async () => {
    const activeGets = async (): Promise<number> => {
      const text = await (await fetch(`http://127.0.0.1:${telemetry.status.metricsPort}/metrics`)).text();
      const m = /^http_server_active_requests\{[^}]*http_request_method="GET"[^}]*\} (\d+)/m.exec(text);
      return m ? Number(m[1]) : 0;
    };
    const before = await activeGets();
    const abort = new AbortController();
    const res = await fetch(`${p.url}/api/logs/stream?follow=true&tail=0`, { headers: admin, signal: abort.signal });
    assert.equal(res.status, 200);
    assert.equal(await activeGets(), before + 1, 'the open stream is in flight');
    abort.abort();
    await res.body?.cancel().catch(() => undefined);
    await waitFor(async () => (await activeGets()) === before, 5000, 'the stream leaves the count when the client leaves');
  });

  test('the new operations are for administrators only', async () => {
    const ops: [string, string][] = [
      ['GET', '/api/system/info'], ['GET', '/api/system/cleanup/config'], ['POST', '/api/system/cleanup/run'], ['GET', '/api/debug/audio-logs'],
      ['GET', '/api/logs/stream?follow=false&tail=0'], ['GET', '/api/slo/dashboard'], ['GET', '/api/slo/alerts'],
    ];
    for (const [method, path] of ops) {
      const call = async (headers: Record<string, string>): Promise<{ status: number; code?: string }> => {
        const res = await fetch(`${p.url}${path}`, { method, headers });
        const text = await res.text();
        return { status: res.status, ...(res.status >= 400 ? { code: (JSON.parse(text) as { code: string }).code } : {}) };
      };
      assert.deepEqual(await call({}), { status: 403, code: 'AUTH_ADMIN_REQUIRED' }, `${method} ${path} without a credential`);
      assert.deepEqual(await call({ 'x-api-key': p.apiKey }), { status: 403, code: 'AUTH_ADMIN_REQUIRED' }, `${method} ${path} with an API key`);
      assert.deepEqual(await call({ 'x-admin-key': 'not-the-admin-key-but-long-enough' }), { status: 401, code: 'AUTH_ADMIN_KEY_INVALID' }, `${method} ${path} with a wrong admin key`);
      assert.deepEqual(await call(admin), { status: 200 }, `${method} ${path} as administrator`);
    }
  });
});
