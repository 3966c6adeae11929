/**
 * Streamed text in, speech out (`npm run bench streaming`; issue 31's targets). Launches the
 * one-machine platform as a user starts it (`npm start`'s defaults) and drives it as a voice agent
 * does, through the ElevenLabs-compatible WebSocket
 * (`/v1/text-to-speech/{voice}/multi-stream-input`, pcm_16000, an enterprise key in `xi-api-key`):
 *
 * 1. First audio: BENCH_STREAMING_SESSIONS sessions (default 50) per voice, one after another,
 *    each a new socket: a sentence without inner punctuation sent in two-word pieces, then a
 *    flush; the time from sending the flush to the first audio message. Voices: flite:slt and the
 *    default voice (`alloy`). Targets: p50 <= 30 ms (flite:slt), <= 60 ms (default voice).
 * 2. Barge-in: BENCH_STREAMING_BARGE_INS trials (default 20) with flite:slt: a long paragraph,
 *    flushed; at its first audio, `close_context`. Measured: the last audio message of that
 *    context after the close was sent (0 when none came), and the time until the node's own
 *    counter (NodeStatus `in_flight`, polled over gRPC every millisecond) is back to 0. Targets:
 *    no audio after 20 ms; the slot free within 50 ms.
 * 3. Capacity: for each level of BENCH_STREAMING_LEVELS (default `32,64,96`; flite:slt) and of
 *    BENCH_STREAMING_DEFAULT_LEVELS (default `8,16,32`; the default voice), that many sessions at
 *    once for BENCH_STREAMING_SEC seconds (default 120), each sending a sentence every 3 s in
 *    two-word pieces 150 ms apart, each sentence its own context ended by an empty flushed text.
 *    A context underruns when an audio message arrives later than the audio received before it
 *    could play (playback starting at its first audio). A level holds when no context underran,
 *    no session was refused or failed and every context ended (`isFinal`). Target: >= 64 sessions
 *    with flite:slt; past capacity new sessions are refused with a code.
 * 4. Memory of idle sessions: BENCH_STREAMING_IDLE_SESSIONS sockets (default 100) opened with one
 *    context each and left idle; the facade's process (the launcher's control process) PSS after
 *    they opened minus before, per session. Target: <= 64 KB per idle session.
 * Writes bench/results/streaming.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { callUnary, closeAllClients, schedulerClient, synthesizerClient } from '@tts/common';
import { launchPlatform, type LaunchedPlatform } from './platform.js';
import { processTree, roleOf, smapsRollup } from './process-tree.js';
import { percentile, r } from './support.js';

const SESSIONS = Number(process.env['BENCH_STREAMING_SESSIONS'] ?? 50);
const BARGE_INS = Number(process.env['BENCH_STREAMING_BARGE_INS'] ?? 20);
const levelsOf = (v: string): number[] => v.split(',').map((s) => Number(s.trim())).filter((n) => Number.isInteger(n) && n > 0);
const LEVELS = levelsOf(process.env['BENCH_STREAMING_LEVELS'] ?? '32,64,96');
const DEFAULT_LEVELS = levelsOf(process.env['BENCH_STREAMING_DEFAULT_LEVELS'] ?? '8,16,32');
const CAPACITY_SEC = Number(process.env['BENCH_STREAMING_SEC'] ?? 120);
const IDLE_SESSIONS = Number(process.env['BENCH_STREAMING_IDLE_SESSIONS'] ?? 100);
const SENTENCE_EVERY_MS = 3000;
const PIECE_GAP_MS = 150;
const SAMPLE_RATE = 16_000;
const FLITE = 'flite:slt';
const DEFAULT_VOICE = 'alloy';
const SENTENCES = [
  'The quick brown fox jumps over the lazy dog today',
  'Please hold the line while I check your booking for you',
  'Your order will arrive on Tuesday between nine and noon',
  'I can help you change the address on your account now',
];

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const pieces = (sentence: string): string[] => {
  const words = sentence.split(' ');
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 2) out.push(`${words.slice(i, i + 2).join(' ')} `);
  return out;
};

/** What the server sends on the multi-context socket (the fields the bench reads). */
interface ServerMessage {
  readonly audio?: string | null;
  readonly isFinal?: boolean;
  readonly contextId?: string;
  readonly context_id?: string;
  readonly error?: unknown;
  readonly code?: string;
}

/** One open multi-context socket with a listener per context. */
class Session {
  private readonly listeners = new Map<string, (m: ServerMessage, at: number) => void>();
  readonly errors: string[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const at = performance.now();
      if (isBinary) return;
      let m: ServerMessage;
      try {
        m = JSON.parse(data.toString()) as ServerMessage;
      } catch {
        this.errors.push('invalid JSON from the server');
        return;
      }
      const id = m.contextId ?? m.context_id ?? '';
      if (m.error !== undefined) this.errors.push(`${m.code ?? ''} ${JSON.stringify(m.error)}`);
      this.listeners.get(id)?.(m, at);
    });
  }

  /** Opens a socket; rejects with the HTTP status of a refusal. */
  static open(p: LaunchedPlatform, key: string, voice: string): Promise<Session> {
    const url = `${p.url.replace(/^http/, 'ws')}/v1/text-to-speech/${encodeURIComponent(voice)}/multi-stream-input?model_id=eleven_flash_v2_5&output_format=pcm_${SAMPLE_RATE}&inactivity_timeout=180&sync_alignment=true`;
    const ws = new WebSocket(url, { headers: { 'xi-api-key': key }, perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new Session(ws)));
      ws.once('unexpected-response', (_req, res) => {
        reject(new Error(`refused: ${res.statusCode}`));
        ws.terminate();
      });
      ws.once('error', reject);
    });
  }

  on(contextId: string, listener: (m: ServerMessage, at: number) => void): void {
    this.listeners.set(contextId, listener);
  }

  off(contextId: string): void {
    this.listeners.delete(contextId);
  }

  send(message: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(message));
  }

  close(): void {
    this.ws.close(1000);
  }
}

/** Audio seconds in a message of pcm_16000 (s16le mono). */
const secondsOf = (m: ServerMessage): number => (typeof m.audio === 'string' && m.audio !== '' ? Buffer.from(m.audio, 'base64').length / 2 / SAMPLE_RATE : 0);

/** Flush-to-first-audio of one new session speaking `sentence`; ms. */
async function firstAudio(p: LaunchedPlatform, key: string, voice: string, sentence: string): Promise<number> {
  const s = await Session.open(p, key, voice);
  try {
    let flushedAt = Number.NaN;
    let first = Number.NaN;
    const done = new Promise<void>((resolve, reject) => {
      s.on('c', (m, at) => {
        if (secondsOf(m) > 0 && Number.isNaN(first)) first = at;
        if (m.isFinal === true) resolve();
        if (m.error !== undefined) reject(new Error(`error: ${JSON.stringify(m)}`));
      });
      setTimeout(() => reject(new Error('no isFinal within 20 s')), 20_000).unref();
    });
    s.send({ text: ' ', context_id: 'c' });
    for (const piece of pieces(sentence)) s.send({ text: piece, context_id: 'c' });
    flushedAt = performance.now();
    s.send({ text: '', context_id: 'c', flush: true });
    await done;
    // Audio that came before the flush (the server began on its own) counts as 0.
    return Math.max(0, first - flushedAt);
  } finally {
    s.close();
  }
}

/** The node's own counters, over gRPC. */
async function nodeInFlight(address: string): Promise<{ inFlight: number; sessions: number }> {
  const client = synthesizerClient(address);
  const status = await callUnary(client.nodeStatus.bind(client), {});
  return { inFlight: status.inFlight, sessions: status.sessions };
}

/** One barge-in: ms of the last audio after close_context (0: none), ms until the node's slot is free. */
async function bargeIn(p: LaunchedPlatform, key: string, nodeAddress: string): Promise<{ lastAudioMs: number; slotFreeMs: number }> {
  const s = await Session.open(p, key, FLITE);
  try {
    let closedAt = Number.NaN;
    let lastAfter = 0;
    let resolveFirst!: () => void;
    const firstAudioCame = new Promise<void>((resolve) => {
      resolveFirst = resolve;
    });
    s.on('b', (m, at) => {
      if (secondsOf(m) <= 0) return;
      if (Number.isNaN(closedAt)) resolveFirst();
      else lastAfter = Math.max(lastAfter, at - closedAt);
    });
    const paragraph = Array.from({ length: 12 }, (_, i) => `Sentence number ${i + 1} of a long answer that the caller is about to interrupt.`).join(' ');
    s.send({ text: ' ', context_id: 'b' });
    s.send({ text: paragraph, context_id: 'b', flush: true });
    await firstAudioCame;
    closedAt = performance.now();
    s.send({ context_id: 'b', close_context: true });
    let slotFreeMs = Number.NaN;
    for (;;) {
      const { inFlight } = await nodeInFlight(nodeAddress);
      const now = performance.now();
      if (inFlight === 0) {
        slotFreeMs = now - closedAt;
        break;
      }
      if (now - closedAt > 5000) break;
      await sleep(1);
    }
    // Anything still on its way arrives within this pause.
    await sleep(300);
    return { lastAudioMs: lastAfter, slotFreeMs };
  } finally {
    s.close();
  }
}

/** What one capacity level saw. */
interface LevelResult {
  readonly voice: string;
  readonly sessions: number;
  readonly opened: number;
  readonly refused: Record<string, number>;
  readonly contexts: number;
  readonly contexts_ended: number;
  readonly underruns: number;
  readonly worst_deficit_ms: number;
  readonly errors: number;
  readonly first_audio_ms: { p50: number; p95: number } | null;
  readonly holds: boolean;
}

/** `n` sessions at once for CAPACITY_SEC seconds. */
async function capacity(p: LaunchedPlatform, key: string, voice: string, n: number): Promise<LevelResult> {
  const refused: Record<string, number> = {};
  let opened = 0;
  let contexts = 0;
  let ended = 0;
  let underruns = 0;
  let worstDeficit = 0;
  let errors = 0;
  const firsts: number[] = [];
  const until = performance.now() + CAPACITY_SEC * 1000;
  await Promise.all(Array.from({ length: n }, async (_, i) => {
    // Sessions start spread over one sentence period, as conversations do.
    await sleep((i * SENTENCE_EVERY_MS) / n);
    let s: Session;
    try {
      s = await Session.open(p, key, voice);
    } catch (err) {
      const k = (err as Error).message;
      refused[k] = (refused[k] ?? 0) + 1;
      return;
    }
    opened++;
    const pending: Promise<void>[] = [];
    for (let turn = 0; performance.now() < until; turn++) {
      const started = performance.now();
      const id = `t${turn}`;
      contexts++;
      const sentence = SENTENCES[(i + turn) % SENTENCES.length]!;
      let firstAt = Number.NaN;
      let received = 0;
      let flushedAt = Number.NaN;
      pending.push(new Promise<void>((resolve) => {
        const timer = setTimeout(() => resolve(), 30_000);
        s.on(id, (m, at) => {
          const sec = secondsOf(m);
          if (sec > 0) {
            if (Number.isNaN(firstAt)) {
              firstAt = at;
              if (!Number.isNaN(flushedAt)) firsts.push(at - flushedAt);
            } else {
              const deficit = at - firstAt - received * 1000;
              if (deficit > 0) {
                underruns++;
                worstDeficit = Math.max(worstDeficit, deficit);
              }
            }
            received += sec;
          }
          if (m.isFinal === true) {
            ended++;
            clearTimeout(timer);
            s.off(id);
            resolve();
          }
        });
      }));
      s.send({ text: ' ', context_id: id });
      for (const piece of pieces(sentence)) {
        s.send({ text: piece, context_id: id });
        await sleep(PIECE_GAP_MS);
      }
      flushedAt = performance.now();
      s.send({ text: '', context_id: id, flush: true });
      const wait = started + SENTENCE_EVERY_MS - performance.now();
      if (wait > 0) await sleep(wait);
    }
    await Promise.all(pending);
    // Every error message the session got, with a context or without.
    errors += s.errors.length;
    s.close();
  }));
  const holds = opened === n && underruns === 0 && errors === 0 && ended === contexts;
  const result: LevelResult = {
    voice,
    sessions: n,
    opened,
    refused,
    contexts,
    contexts_ended: ended,
    underruns,
    worst_deficit_ms: r(worstDeficit, 1),
    errors,
    first_audio_ms: firsts.length === 0 ? null : { p50: r(percentile(firsts, 50), 1), p95: r(percentile(firsts, 95), 1) },
    holds,
  };
  console.log(`capacity ${voice} x${n}: ${JSON.stringify(result)}`);
  return result;
}

/** PSS of the control process (the facade, with the scheduler), KB. */
function controlPssKb(p: LaunchedPlatform): number {
  const pid = processTree(p.pid).find((x) => roleOf(x) === 'control');
  if (pid === undefined) throw new Error('no control process');
  return (smapsRollup(pid)['Pss'] ?? Number.NaN) * 1024;
}

/** KB of the facade's PSS per idle open session. */
async function idleSessionKb(p: LaunchedPlatform, key: string): Promise<{ sessions: number; pss_before_kb: number; pss_after_kb: number; per_session_kb: number }> {
  // Two warm sessions first, so the first-use allocations do not count as per-session cost.
  for (const s of [await Session.open(p, key, FLITE), await Session.open(p, key, FLITE)]) s.close();
  await sleep(2000);
  const before = controlPssKb(p);
  const open: Session[] = [];
  for (let i = 0; i < IDLE_SESSIONS; i++) {
    const s = await Session.open(p, key, FLITE);
    s.send({ text: ' ', context_id: 'idle' });
    open.push(s);
  }
  await sleep(2000);
  const after = controlPssKb(p);
  for (const s of open) s.close();
  await sleep(1000);
  return { sessions: IDLE_SESSIONS, pss_before_kb: Math.round(before), pss_after_kb: Math.round(after), per_session_kb: r((after - before) / IDLE_SESSIONS, 1) };
}

/** A key of `tier`, created with the administrator key the bench's platform was started with. */
async function createKey(p: LaunchedPlatform, tier: string): Promise<string> {
  const res = await fetch(`${p.url}/api/auth/keys`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-admin-key': p.adminKey }, body: JSON.stringify({ name: 'bench-streaming', tier }) });
  if (res.status !== 201 && res.status !== 200) throw new Error(`key creation answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { api_key: string }).api_key;
}

const startedAt = new Date().toISOString();
const loadAtStart = loadavg().map((x) => r(x, 2));
const platform = await launchPlatform({}, 0);
let out;
try {
  const key = await createKey(platform, 'enterprise');
  const scheduler = schedulerClient(platform.schedulerAddress, { kind: 'internal', token: platform.internalToken });
  const nodeAddress = (await callUnary(scheduler.listNodes.bind(scheduler), {})).nodes[0]!.status!.address;
  const first: Record<string, { n: number; p50: number; p95: number; max: number }> = {};
  for (const voice of [FLITE, DEFAULT_VOICE]) {
    // Warm-up: the voice answers once.
    await firstAudio(platform, key, voice, SENTENCES[0]!);
    const ms: number[] = [];
    for (let i = 0; i < SESSIONS; i++) ms.push(await firstAudio(platform, key, voice, SENTENCES[i % SENTENCES.length]!));
    first[voice] = { n: ms.length, p50: r(percentile(ms, 50), 1), p95: r(percentile(ms, 95), 1), max: r(Math.max(...ms), 1) };
    console.log(`flush to first audio, ${voice}: ${JSON.stringify(first[voice])}`);
  }
  const barge: { lastAudioMs: number; slotFreeMs: number }[] = [];
  for (let i = 0; i < BARGE_INS; i++) barge.push(await bargeIn(platform, key, nodeAddress));
  const lastAudio = barge.map((b) => b.lastAudioMs);
  const slotFree = barge.map((b) => b.slotFreeMs).filter((x) => Number.isFinite(x));
  const bargeIns = {
    n: barge.length,
    last_audio_after_close_ms: { p50: r(percentile(lastAudio, 50), 1), max: r(Math.max(...lastAudio), 1) },
    slot_free_after_close_ms: { p50: r(percentile(slotFree, 50), 1), max: r(Math.max(...slotFree), 1), never: barge.length - slotFree.length },
  };
  console.log(`barge-in: ${JSON.stringify(bargeIns)}`);
  const idle = await idleSessionKb(platform, key);
  console.log(`idle sessions: ${JSON.stringify(idle)}`);
  const levels: LevelResult[] = [];
  for (const n of LEVELS) levels.push(await capacity(platform, key, FLITE, n));
  for (const n of DEFAULT_LEVELS) levels.push(await capacity(platform, key, DEFAULT_VOICE, n));
  const capacityOf = (voice: string): number => Math.max(0, ...levels.filter((l) => l.voice === voice && l.holds).map((l) => l.sessions));
  out = {
    startedAt,
    machine: { cpu: cpus()[0]?.model, cores: availableParallelism(), node: process.version },
    load_avg_start: loadAtStart,
    load_avg_end: loadavg().map((x) => r(x, 2)),
    settings: { sessions: SESSIONS, barge_ins: BARGE_INS, levels: LEVELS, default_levels: DEFAULT_LEVELS, capacity_seconds: CAPACITY_SEC, sentence_every_ms: SENTENCE_EVERY_MS, piece_gap_ms: PIECE_GAP_MS, output_format: `pcm_${SAMPLE_RATE}`, protocol: 'ElevenLabs multi-stream-input', tier: 'enterprise' },
    flush_to_first_audio_ms: first,
    barge_in: bargeIns,
    idle_sessions: idle,
    capacity: { levels, holds_up_to: { [FLITE]: capacityOf(FLITE), [DEFAULT_VOICE]: capacityOf(DEFAULT_VOICE) } },
    targets: {
      first_audio_flite_p50_le_30ms: (first[FLITE]?.p50 ?? Infinity) <= 30,
      first_audio_default_p50_le_60ms: (first[DEFAULT_VOICE]?.p50 ?? Infinity) <= 60,
      no_audio_20ms_after_close: Math.max(...lastAudio) <= 20,
      slot_free_within_50ms: slotFree.length === barge.length && Math.max(...slotFree) <= 50,
      capacity_flite_ge_64: capacityOf(FLITE) >= 64,
      idle_session_le_64kb: idle.per_session_kb <= 64,
    },
  };
  console.log(`targets ${JSON.stringify(out.targets)}`);
} finally {
  closeAllClients();
  await platform.stop();
}
const dir = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'streaming.json'), `${JSON.stringify(out, null, 2)}\n`);
