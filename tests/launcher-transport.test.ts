/**
 * The launcher's internal gRPC transport: Unix domain sockets by default (socket files 0600 in a
 * 0700 directory under DATA_DIR, nodes announcing "unix:" addresses, synthesis, streaming and a
 * cancelled stream working end to end, callers without the run's tokens refused, the files gone
 * after SIGTERM), and TCP on request
 * (TTS_INTERNAL_TRANSPORT=tcp).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort, spawnLauncher } from './support/processes.js';
import { postJson, waitFor } from './support/platform.js';
import { callUnary, schedulerClient, TtsError } from '@tts/common';
import { NodeStatusReport } from '@tts/proto/synthesis';

const PARAGRAPH =
  'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well. ' +
  'These days a chicken leg is a rare dish. Rice is often served in round bowls. The juice of lemons makes fine punch. ' +
  'The box was thrown beside the parked truck. The hogs were fed chopped corn and garbage. Four hours of steady work faced us.';

/** A launched platform: its URL, keys, output and the launcher process. */
interface Launched {
  readonly child: ChildProcess;
  readonly base: string;
  readonly dataDir: string;
  readonly adminKey: string;
  readonly apiKey: string;
  output(): string;
}

/** Starts the launcher with `extra` settings, waits for it and creates an API key. */
async function launch(extra: NodeJS.ProcessEnv): Promise<Launched> {
  const port = await freePort();
  const schedulerPort = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'tts-transport-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), SCHEDULER_GRPC_PORT: String(schedulerPort), METRICS_PORT: '0', TTS_NODES: '1', TTS_ENGINES: 'flite', TTS_DEFAULT_VOICE: 'flite:slt', DATA_DIR: dataDir, ...extra };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'TTS_ADMIN_KEY', 'TTS_SOCKET_DIR']) delete env[name];
  const { child, output } = spawnLauncher(env);
  try {
    await waitFor(() => output().includes('"platform ready"'), 90_000, 'platform ready');
    const printed = /Administrator key \(shown once; stored in [^)]+\): (\S+)/.exec(output());
    assert.ok(printed, 'admin key printed');
    const base = `http://127.0.0.1:${port}`;
    const created = await postJson(`${base}/api/auth/keys`, { name: 'transport-test' }, { 'x-admin-key': printed[1]! });
    assert.equal(created.status, 201);
    const { api_key: apiKey } = (await created.json()) as { api_key: string };
    return { child, base, dataDir, adminKey: printed[1]!, apiKey, output };
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** SIGTERM, then the exit code (0 expected). */
async function stop(p: Launched): Promise<number | null> {
  const exited = once(p.child, 'exit');
  p.child.kill('SIGTERM');
  const [code] = (await exited) as [number | null];
  return code;
}

/** The nodes the facade sees (administrator view). */
async function nodesOf(p: Launched): Promise<Array<{ address: string; ready: boolean; in_flight: number }>> {
  const res = await fetch(`${p.base}/api/system/info`, { headers: { 'x-admin-key': p.adminKey } });
  assert.equal(res.status, 200);
  return ((await res.json()) as { nodes: Array<{ address: string; ready: boolean; in_flight: number }> }).nodes;
}

/** A whole synthesis through the OpenAI-compatible endpoint: WAV bytes. */
async function speak(p: Launched, input: string): Promise<number> {
  const res = await postJson(`${p.base}/v1/audio/speech`, { model: 'tts-1', input, voice: 'flite:slt', response_format: 'wav' }, { authorization: `Bearer ${p.apiKey}` });
  assert.equal(res.status, 200);
  return (await res.arrayBuffer()).byteLength;
}

test('the embedded platform talks gRPC over private Unix domain sockets by default', { timeout: 180_000 }, async () => {
  const p = await launch({});
  try {
    const dir = join(p.dataDir, 'grpc');
    assert.equal(statSync(dir).mode & 0o777, 0o700, 'socket directory 0700');
    assert.deepEqual(readdirSync(dir).sort(), ['node-1.sock', 'scheduler.sock']);
    for (const name of ['node-1.sock', 'scheduler.sock']) {
      const st = statSync(join(dir, name));
      assert.ok(st.isSocket(), `${name} is a socket`);
      assert.equal(st.mode & 0o777, 0o600, `${name} 0600`);
    }
    assert.match(p.output(), /"internal_transport":"unix"/);

    // The node registered and heart-beats with its unix address; the facade dials it.
    await waitFor(async () => (await nodesOf(p)).some((n) => n.ready), 30_000, 'node ready');
    const [node] = await nodesOf(p);
    assert.equal(node?.address, `unix:${join(dir, 'node-1.sock')}`);

    assert.ok((await speak(p, PARAGRAPH)) > 200_000, 'a paragraph of WAV');

    // Streaming: several chunks, the first well before the end.
    const started = performance.now();
    const streamed = await postJson(`${p.base}/v1/audio/speech`, { model: 'tts-1', input: PARAGRAPH, voice: 'flite:slt', response_format: 'pcm' }, { authorization: `Bearer ${p.apiKey}` });
    assert.equal(streamed.status, 200);
    const reader = streamed.body!.getReader();
    let chunks = 0;
    let first = 0;
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (chunks === 0) first = performance.now() - started;
      chunks++;
      total += value.length;
    }
    assert.ok(chunks >= 3, `chunks ${chunks}`);
    assert.ok(first < performance.now() - started, 'first chunk before the end');
    assert.ok(total / 2 / 24_000 > 8, 'more than 8 s of audio');

    // Cancellation: a stream dropped after its first chunk frees the node's slot.
    const aborter = new AbortController();
    const dropped = await fetch(`${p.base}/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${p.apiKey}` },
      body: JSON.stringify({ model: 'tts-1', input: `${PARAGRAPH} ${PARAGRAPH}`, voice: 'flite:slt', response_format: 'pcm' }),
      signal: aborter.signal,
    });
    assert.equal(dropped.status, 200, dropped.status === 200 ? '' : await dropped.text());
    await dropped.body!.getReader().read();
    aborter.abort();
    const requestId = dropped.headers.get('x-request-id');
    assert.ok(requestId, 'request id');
    // The node saw the cancellation (over the socket) and recorded the stream as cancelled.
    await waitFor(async () => {
      const res = await fetch(`${p.base}/api/debug/audio-logs`, { headers: { 'x-admin-key': p.adminKey } });
      assert.equal(res.status, 200);
      const { events } = (await res.json()) as { events: Array<{ request_id: string; outcome: string }> };
      return events.some((e) => e.request_id === requestId && e.outcome === 'cancelled');
    }, 30_000, 'the stream recorded as cancelled');
    await waitFor(async () => (await nodesOf(p)).every((n) => n.in_flight === 0), 30_000, 'node idle after the cancelled stream');
    assert.ok((await speak(p, 'Still answering.')) > 10_000);

    // Even on one machine the scheduler takes no unauthenticated caller and no node without the
    // join token (npm start generated both for this run).
    const intruder = schedulerClient(`unix:${join(dir, 'scheduler.sock')}`);
    await assert.rejects(callUnary(intruder.getQueueStats.bind(intruder), {}), (e: unknown) => e instanceof TtsError && e.code === 'GRPC_CALLER_UNAUTHENTICATED');
    await assert.rejects(
      callUnary(intruder.registerNode.bind(intruder), { status: NodeStatusReport.fromPartial({ nodeId: 'intruder', address: '127.0.0.1:9' }) }),
      (e: unknown) => e instanceof TtsError && e.code === 'NODE_JOIN_REFUSED',
    );
    assert.deepEqual((await nodesOf(p)).map((n) => n.address), [`unix:${join(dir, 'node-1.sock')}`], 'the intruder is not a member');

    assert.equal(await stop(p), 0, p.output().slice(-2000));
    assert.ok(!existsSync(join(dir, 'scheduler.sock')) && !existsSync(join(dir, 'node-1.sock')), 'socket files removed');
    assert.ok(!existsSync(dir), 'socket directory removed');
  } finally {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
    rmSync(p.dataDir, { recursive: true, force: true });
  }
});

test('TTS_INTERNAL_TRANSPORT=tcp keeps gRPC on loopback TCP', { timeout: 180_000 }, async () => {
  const p = await launch({ TTS_INTERNAL_TRANSPORT: 'tcp' });
  try {
    assert.ok(!existsSync(join(p.dataDir, 'grpc')), 'no socket directory');
    assert.match(p.output(), /"internal_transport":"tcp"/);
    await waitFor(async () => (await nodesOf(p)).some((n) => n.ready), 30_000, 'node ready');
    const [node] = await nodesOf(p);
    assert.match(node?.address ?? '', /^127\.0\.0\.1:\d+$/);
    assert.ok((await speak(p, PARAGRAPH)) > 200_000, 'a paragraph of WAV');
    assert.equal(await stop(p), 0, p.output().slice(-2000));
  } finally {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
    rmSync(p.dataDir, { recursive: true, force: true });
  }
});
