/**
 * Graceful drain of an inference node process on SIGTERM (what Kubernetes sends before
 * terminationGracePeriodSeconds runs out): the node stops taking work at once, the call in flight
 * finishes with its whole audio, and the process exits 0; with NODE_DRAIN_TIMEOUT_MS shorter than
 * the work, the call is cut and the process still exits within that bound (so the chart's
 * terminationGracePeriodSeconds, set above it, is never what ends the pod).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { callUnary, nodeArgsFor, synthesizerClient } from '@tts/common';
import { credentials } from '@grpc/grpc-js';
import { AudioEncoding, SynthesizerClient, type SynthesizeResponse } from '@tts/proto/synthesis';
import { freePort } from './support/processes.js';

const ENTRY = 'services/inference-node/src/main.ts';
/** Long enough for flite to take well over a second on this machine. */
const LONG_TEXT = 'The quick brown fox jumps over the lazy dog near the quiet river bank, and nobody sees it. '.repeat(60);

/** A node process on a free port, flite only, no scheduler; resolves once it answers NodeStatus. */
async function startNodeProcess(drainTimeoutMs: number): Promise<{ child: ChildProcess; address: string; exited: Promise<{ code: number | null; atMs: number }>; dataDir: string }> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'tts-drain-'));
  const child = spawn(process.execPath, nodeArgsFor(ENTRY), {
    env: {
      ...process.env,
      NODE_GRPC_HOST: '127.0.0.1',
      NODE_GRPC_PORT: String(port),
      NODE_DRAIN_TIMEOUT_MS: String(drainTimeoutMs),
      TTS_ENGINES: 'flite',
      TTS_DEFAULT_VOICE: 'flite:slt',
      TTS_FLITE_WORKERS: '1',
      TTS_NODE_MAX_QUEUE: '10000',
      TTS_WARMUP: 'false',
      TTS_WATERMARK: 'false',
      METRICS_PORT: '0',
      OTEL_SDK_DISABLED: 'true',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<{ code: number | null; atMs: number }>((resolve) => child.once('exit', (code) => resolve({ code, atMs: Date.now() })));
  const address = `127.0.0.1:${port}`;
  const client = synthesizerClient(address);
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const status = await callUnary(client.nodeStatus.bind(client), {}, { timeoutMs: 1000 });
      if (status.engines.some((e) => e.name === 'flite' && e.ready)) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the node process did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, address, exited, dataDir };
}

/**
 * A client that pings its connection every 10 ms, so that a ping is on its way whenever the node
 * closes the connection: a grpc-js client fails its calls still in progress with UNAVAILABLE when a
 * keepalive ping finds the connection closing (GOAWAY), so the node must close it only after the
 * answer's last bytes. A ping is given 20 s to be answered: this client or the node may be starved
 * of CPU for a few seconds by the tests running beside it.
 */
function pingingClient(address: string): SynthesizerClient {
  return new SynthesizerClient(address, credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 10,
    'grpc.keepalive_timeout_ms': 20_000,
    'grpc.max_receive_message_length': -1,
  });
}

function synthesize(address: string, text: string, client = synthesizerClient(address)): Promise<SynthesizeResponse> {
  const speech = { text, voice: 'flite:slt', engine: '', speed: 1, encoding: AudioEncoding.AUDIO_ENCODING_PCM, sampleRate: 8000, language: '', instructions: '', rawText: false, watermarkPayload: 0, clone: undefined, wordTimings: false, bitrateKbps: 0, lexicon: [] };
  return callUnary(client.synthesize.bind(client), { requestId: `drain-${Date.now()}`, tenantId: '', tenantWeight: 0, speech }, { timeoutMs: 120_000 });
}

/** Waits until the node reports a call in flight. */
async function untilInFlight(address: string): Promise<void> {
  const client = synthesizerClient(address);
  const deadline = Date.now() + 10_000;
  while ((await callUnary(client.nodeStatus.bind(client), {})).inFlight < 1) {
    if (Date.now() > deadline) throw new Error('no call in flight');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('inference node drain on SIGTERM', { timeout: 180_000 }, () => {
  const started: { child: ChildProcess; dataDir: string }[] = [];
  after(() => {
    for (const s of started) {
      if (s.child.exitCode === null) s.child.kill('SIGKILL');
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  });

  test('the call in flight finishes with all its audio, new calls are refused, exit 0', async () => {
    // The same text on an idle node: how much audio the drained call must still deliver.
    const node = await startNodeProcess(60_000);
    started.push(node);
    const t0 = Date.now();
    const reference = await synthesize(node.address, LONG_TEXT);
    const workMs = Date.now() - t0;
    assert.ok(workMs > 3000, `the work takes long enough to be caught in flight and to outlast pings (${workMs} ms)`);

    const inFlight = synthesize(node.address, LONG_TEXT, pingingClient(node.address));
    await untilInFlight(node.address);
    const signalledAt = Date.now();
    node.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    await assert.rejects(synthesize(node.address, 'Too late.'), 'a call after SIGTERM is refused');

    const drained = await inFlight;
    // The drained call may take longer than the idle one did (a busy machine): "soon" is counted from its end.
    const drainedAt = Date.now();
    const seconds = (r: SynthesizeResponse): number => r.metrics?.audioSeconds ?? 0;
    assert.ok(Math.abs(seconds(drained) - seconds(reference)) < 0.01 * seconds(reference), `the drained call delivers all its audio (${seconds(drained)} s, idle ${seconds(reference)} s)`);
    assert.ok(drained.audio.length > 0.99 * reference.audio.length);
    const { code, atMs } = await node.exited;
    assert.equal(code, 0);
    assert.ok(atMs - drainedAt < 10_000, `exit soon after the work ends (${atMs - drainedAt} ms after it, ${atMs - signalledAt} ms after SIGTERM)`);
  });

  test('NODE_DRAIN_TIMEOUT_MS bounds the drain: longer work is cut and the process exits in time', async () => {
    const drainMs = 300;
    const node = await startNodeProcess(drainMs);
    started.push(node);
    const inFlight = synthesize(node.address, LONG_TEXT.repeat(3)).then(
      () => 'finished',
      () => 'cut',
    );
    await untilInFlight(node.address);
    const signalledAt = Date.now();
    node.child.kill('SIGTERM');
    const { code, atMs } = await node.exited;
    assert.equal(code, 0);
    assert.equal(await inFlight, 'cut', 'work longer than the drain timeout is cut');
    // The drain timeout, plus closing the engines and the process: far below any grace period the chart sets.
    assert.ok(atMs - signalledAt < drainMs + 3000, `exited ${atMs - signalledAt} ms after SIGTERM`);
  });
});
