/**
 * A clip's measurements (levels, pitch, the speaker-change check) off the node's main thread: a
 * long clip's YIN pitch and the cepstra of the speaker check take CPU time that, on the main
 * thread, stalled every synthesis stream and the node's heartbeat, under load long enough for the
 * scheduler to take the node for gone.
 */
import type { SpeechSegment } from '../vad/index.js';
import { siblingModule, WorkerPool } from '../engines/workers/worker-pool.js';
import { measureLevels, measurePitch, type LevelFacts, type PitchFacts } from './measure.js';
import { detectSpeakerChange, type SpeakerChange } from './speaker-change.js';

/** A clip to measure: mono `samples` at `sampleRate`; `clipSource` is the mix at its native rate. */
export interface MeasureRequest {
  readonly samples: Float32Array;
  readonly sampleRate: number;
  readonly segments: readonly SpeechSegment[];
  readonly clipSource?: Float32Array;
}

/** A request to the worker: every measurement, or the pitch alone (cloning's speaker profiles). */
export type MeasureWork = ({ readonly kind: 'clip' } | { readonly kind: 'pitch' }) & MeasureRequest;

/** The worker's answer to the request of the same kind. */
export type MeasureResult = ({ readonly kind: 'clip' } & ClipMeasurements) | { readonly kind: 'pitch'; readonly pitch: PitchFacts };

/** What the measurements found. */
export interface ClipMeasurements {
  readonly levels: LevelFacts;
  readonly pitch: PitchFacts;
  readonly speakerCheck: SpeakerChange;
}

/** All three measurements of a clip, on the calling thread. */
export function measureClip(req: MeasureRequest): ClipMeasurements {
  return {
    levels: measureLevels(req.samples, req.sampleRate, req.segments, req.clipSource ?? req.samples),
    pitch: measurePitch(req.samples, req.sampleRate, req.segments),
    speakerCheck: detectSpeakerChange(req.samples, req.segments),
  };
}

/** The worker's side: one request. */
export function runMeasureWork(work: MeasureWork): MeasureResult {
  return work.kind === 'pitch' ? { kind: 'pitch', pitch: measurePitch(work.samples, work.sampleRate, work.segments) } : { kind: 'clip', ...measureClip(work) };
}

/**
 * Measures clips on one worker thread, started at the first clip and kept; requests queue in
 * order. The samples are copied to the worker (the caller may still use them, e.g. for recognition).
 */
export class ClipMeasurer {
  private pool: WorkerPool<MeasureWork, MeasureResult> | undefined;
  private started: Promise<void> | undefined;

  async measure(req: MeasureRequest, signal?: AbortSignal): Promise<ClipMeasurements> {
    const { levels, pitch, speakerCheck } = (await this.run({ ...req, kind: 'clip' }, signal)) as Extract<MeasureResult, { kind: 'clip' }>;
    return { levels, pitch, speakerCheck };
  }

  async pitch(req: MeasureRequest, signal?: AbortSignal): Promise<PitchFacts> {
    return (await this.run({ ...req, kind: 'pitch' }, signal)).pitch;
  }

  private async run(work: MeasureWork, signal: AbortSignal | undefined): Promise<MeasureResult> {
    const pool = (this.pool ??= new WorkerPool<MeasureWork, MeasureResult>({ name: 'clip-measurements', script: siblingModule(import.meta.url, 'measure-worker'), size: 1 }));
    this.started ??= pool.start().catch((err: unknown) => {
      // The next clip tries again, with a new pool.
      this.started = undefined;
      this.pool = undefined;
      void pool.close();
      throw err;
    });
    await this.started;
    return pool.run(work, { signal });
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    this.started = undefined;
    await pool?.close();
  }
}
