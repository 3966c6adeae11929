/**
 * Fault injection and inspection of engines for tests (not part of dist/): a worker that dies with
 * a request in flight, and festival's server processes. It reads the engines' private state; the
 * shipped engines carry no test hooks. Also the texts the engine specs speak, and a check of an
 * engine's word timings against its audio.
 */
import assert from 'node:assert/strict';
import { rms } from '../audio/dsp.js';
import type { PcmAudio } from '../audio/pcm.js';
import type { EngineInput, EngineOutput, SynthesisEngine, WordTiming } from './engine.js';
import type { FestivalServer } from './festival/server.js';
import type { EspeakHost } from './espeak/espeak-host.js';
import type { PoolSlot, SlotPool } from './workers/slot-pool.js';
import { WorkerPool } from './workers/worker-pool.js';

/** Two short sentences. */
export const HELLO = 'Hello world. This is a test.';

/** Three long sentences (about 60 words). */
export const PARAGRAPH =
  'The old lighthouse stood at the edge of the cliff, its white paint peeling after decades of storms. ' +
  'Every evening the keeper climbed the narrow stairs to light the lamp, and every morning he wrote a short note ' +
  'in the logbook about the weather, the ships that passed, and the birds that rested on the railing.';

/** The audio `engine` makes of `input` (a batch of one). */
export async function audioOf(engine: SynthesisEngine, input: EngineInput): Promise<PcmAudio> {
  const [out] = await engine.synthesize([input]);
  assert.ok(out);
  return out.audio;
}

/** An engine's private field `name` (TypeScript privates are plain properties at run time). */
function privateField(engine: SynthesisEngine, name: string): unknown {
  return (engine as unknown as Record<string, unknown>)[name];
}

/** The worker pool behind a loaded flite or espeak engine. */
export function workerPoolOf(engine: SynthesisEngine): WorkerPool<unknown, unknown> {
  const pool = privateField(engine, 'pool') ?? (privateField(engine, 'host') as EspeakHost | null | undefined)?.pool;
  if (!(pool instanceof WorkerPool)) throw new Error(`${engine.name}: no worker pool (not loaded, or not a worker engine)`);
  return pool as WorkerPool<unknown, unknown>;
}

/**
 * Makes one worker of `pool` die while a request is in flight, as a native crash would: the worker
 * is told to exit before it reads the request. Resolves to that request's outcome, which is
 * `TTS_ENGINE_FAILED` when the pool handles the death right; the pool then starts a replacement.
 * `undefined` (sessions on the main thread) rejects: there is no worker.
 */
export async function crashWorkerInFlight(pool: WorkerPool<unknown, unknown> | undefined): Promise<unknown> {
  if (pool === undefined) throw new Error('sessions run on the main thread: there is no worker');
  // The pool's slots and each slot's thread are private to the pool.
  type Slot = PoolSlot & { worker: { postMessage(m: unknown): void }; call(r: unknown): Promise<unknown> };
  const slots = (pool as unknown as { pool: SlotPool<Slot> }).pool;
  return slots.run((slot) => {
    slot.worker.postMessage({ type: 'exit' });
    return slot.call({ kind: 'never-read' });
  });
}

/** Process ids of a loaded festival engine's live servers, and whether each is synthesizing now. */
export function festivalServers(engine: SynthesisEngine): { pid: number; busy: boolean }[] {
  const pool = privateField(engine, 'pool') as SlotPool<FestivalServer> | null;
  if (!pool) return [];
  const busy = new Set(pool.busySlots());
  return pool.liveSlots().map((s) => ({ pid: s.pid, busy: busy.has(s) }));
}

/**
 * Checks an engine's word timings against its audio: the text's tokens in order (punctuation aside),
 * each word a non-empty span inside the audio, spans in order without overlap, speech energy inside
 * each word, near-silence before the first word. Returns the timings.
 */
export function assertWordTimings(output: EngineOutput, tokens: readonly string[]): readonly WordTiming[] {
  const words = output.words;
  assert.ok(words, 'the engine reports word timings');
  assert.deepEqual(words.map((w) => w.word.replace(/[^\p{L}\p{N}$']/gu, '')), tokens.map((t) => t.replace(/[^\p{L}\p{N}$']/gu, '')));
  const { samples, sampleRate } = output.audio;
  const seconds = samples.length / sampleRate;
  const energy = (from: number, to: number): number => rms(samples.subarray(Math.floor(from * sampleRate), Math.ceil(to * sampleRate)));
  let previousEnd = 0;
  for (const w of words) {
    assert.ok(w.start >= previousEnd - 1e-6 && w.end > w.start && w.end <= seconds + 0.01, `${w.word}: ${w.start}-${w.end} s in ${seconds} s after ${previousEnd}`);
    assert.ok(energy(w.start, w.end) > 0.01, `${w.word}: speech between ${w.start} and ${w.end} s`);
    previousEnd = w.end;
  }
  assert.ok(energy(0, words[0]!.start) < energy(words[0]!.start, words[0]!.end) / 3, 'quiet before the first word');
  return words;
}
