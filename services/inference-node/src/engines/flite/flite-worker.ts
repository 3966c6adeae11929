/** Worker-thread entry of the flite engine: synthesizes one sentence per request with libflite. */
import { serveWorker } from '../workers/worker-runtime.js';
import type { WordTiming } from '../engine.js';
import { openFlite, type FliteVoiceName } from './flite-lib.js';

/** A flite synthesis request. */
export interface FliteRequest {
  readonly text: string;
  readonly voice: FliteVoiceName;
  readonly durationStretch: number;
}

/** A flite synthesis result; `samples` arrives by transfer. */
export interface FliteResult {
  readonly samples: Float32Array;
  readonly sampleRate: number;
  readonly words: readonly WordTiming[];
}

/** Data the engine hands to each worker. */
export interface FliteWorkerData {
  readonly library: string;
}

serveWorker<FliteRequest, FliteResult>((data) => {
  const flite = openFlite((data as FliteWorkerData).library);
  return (req) => {
    const audio = flite.synthesize(req.text, req.voice, req.durationStretch);
    return { result: audio, transfer: [audio.samples.buffer as ArrayBuffer] };
  };
});
