/**
 * What a finished (or failed) synthesis leaves behind besides its audio: the platform metrics
 * (characters synthesized, real-time factor, time to first audio) and one audio pipeline event in
 * the node's ring for the debug view.
 */
import { instruments, activeTraceIds } from '@tts/common/telemetry';
import type { PipelineDeps, SynthesisPlan, SynthesisStats } from './pipeline.js';

/** How a synthesis ended. */
export interface SynthesisEnd {
  readonly streaming: boolean;
  readonly outcome: 'ok' | 'error' | 'cancelled';
  /** Catalogue code of the failure ('' when none). */
  readonly errorCode: string;
  /** Pipeline wall time, ms. */
  readonly totalMs: number;
}

/** Records the metrics and the audio event of one synthesis. Never throws. */
export function recordSynthesis(plan: SynthesisPlan, deps: PipelineDeps, stats: SynthesisStats, end: SynthesisEnd): void {
  try {
    const attributes = { 'tts.engine': plan.engine.name };
    const rtf = stats.audioSeconds > 0 ? stats.computeSeconds / stats.audioSeconds : 0;
    if (end.outcome === 'ok') {
      const m = instruments();
      m.charactersSynthesized.add(stats.characters, attributes);
      if (stats.audioSeconds > 0) m.realTimeFactor.record(rtf, attributes);
      if (stats.timeToFirstAudioMs > 0) m.timeToFirstAudio.record(stats.timeToFirstAudioMs / 1000, { ...attributes, 'tts.streaming': end.streaming });
    }
    deps.audioEvents?.record({
      timeUnixMs: Date.now(),
      requestId: plan.job.requestId,
      traceId: activeTraceIds()?.traceId ?? '',
      engine: plan.engine.name,
      voice: plan.voice.id,
      format: plan.job.format,
      streaming: end.streaming,
      outcome: end.outcome,
      errorCode: end.errorCode,
      characters: stats.characters,
      sentences: stats.sentences,
      audioSeconds: stats.audioSeconds,
      computeSeconds: stats.computeSeconds,
      realTimeFactor: rtf,
      queueMs: stats.queueMs,
      timeToFirstAudioMs: stats.timeToFirstAudioMs,
      encodeMs: stats.encodeMs,
      totalMs: end.totalMs,
      batchSize: stats.maxBatchSize,
      sampleRate: plan.outputRate,
    });
  } catch {
    // Telemetry never fails a synthesis.
  }
}
