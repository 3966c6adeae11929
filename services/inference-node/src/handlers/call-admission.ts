import { performance } from 'node:perf_hooks';
import { NodeState, type SynthesisMetrics, type WordTiming as WordTimingMessage } from '@tts/proto/synthesis';
import { TtsError } from '@tts/common';
import type { NodeContext } from '../domain/node-context.js';
import type { SynthesisStats } from '../domain/pipeline.js';
import type { WordTiming } from '../domain/word-timings.js';

/**
 * Refuses new work unless the node is READY. A draining node still finishes the calls it admitted:
 * its gRPC server waits for them before it closes the connections (grpc/server.ts of common).
 */
export function admitCall(ctx: NodeContext): void {
  if (ctx.state === NodeState.NODE_STATE_DRAINING) throw new TtsError('SERVICE_SHUTTING_DOWN', 'The node is draining.', { retryAfterSec: 1 });
  if (ctx.state !== NodeState.NODE_STATE_READY) throw new TtsError('TTS_ENGINE_UNAVAILABLE', 'The node is still loading.', { retryAfterSec: 2 });
}

/** The client's cancellation of a call, as a signal for the work the call started. */
export interface CallCancellation {
  /** Aborted when the client cancels the call before it is answered. */
  readonly signal: AbortSignal;
  /** Notes that the answer (or the error) is being sent: the call's closing no longer stops the work. */
  answered(): void;
}

/**
 * The cancellation of `call`. grpc-js reports 'cancelled' when a call closes, also after a normal
 * answer: only a cancellation before the answer stops the work.
 */
export function callCancellation(call: { on(event: 'cancelled', listener: () => void): unknown }): CallCancellation {
  const controller = new AbortController();
  let answered = false;
  call.on('cancelled', () => {
    if (!answered) controller.abort();
  });
  return {
    signal: controller.signal,
    answered: () => {
      answered = true;
    },
  };
}

/** Proto metrics from pipeline stats; `arrivedMs` is the call's arrival (performance.now()). */
export function metricsOf(stats: SynthesisStats, nodeId: string, arrivedMs: number): SynthesisMetrics {
  return {
    characters: stats.characters,
    sentences: stats.sentences,
    audioSeconds: stats.audioSeconds,
    computeSeconds: stats.computeSeconds,
    realTimeFactor: stats.audioSeconds > 0 ? stats.computeSeconds / stats.audioSeconds : 0,
    timeToFirstAudioMs: stats.timeToFirstAudioMs,
    queueMs: stats.queueMs,
    nodeId,
    nodeMs: performance.now() - arrivedMs,
    loadMs: stats.loadMs,
  };
}

/** Proto word timings of the pipeline's. */
export function wordMessages(words: readonly WordTiming[]): WordTimingMessage[] {
  return words.map((w) => ({ word: w.word, startSec: w.start, endSec: w.end }));
}
