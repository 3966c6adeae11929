/**
 * What the two synthesis RPCs (Synthesize, SynthesizeStream) share at the gRPC edge: the call's
 * admission, the request read into a pipeline job (the node's one conversion of the contract's
 * fields), and the metrics and word timings written back.
 */
import { NodeState, type AudioEncoding, type SynthesisMetrics, type SynthesizeRequest, type WordTiming as WordTimingMessage } from '@tts/proto/synthesis';
import { TtsError, formatOf, lexiconOfMessages } from '@tts/common';
import { checkBitrate } from '../audio/index.js';
import type { NodeContext } from '../domain/node-context.js';
import type { SynthesisJob, SynthesisStats } from '../domain/pipeline.js';
import type { WordTiming } from '../domain/word-timings.js';

/**
 * Refuses new work unless the node is READY. A draining node still finishes the calls it admitted:
 * its gRPC server waits for them before it closes the connections (grpc/server.ts of common).
 */
export function admitCall(ctx: NodeContext): void {
  if (ctx.state === NodeState.NODE_STATE_DRAINING) throw new TtsError('SERVICE_SHUTTING_DOWN', 'The node is draining.', { retryAfterSec: 1 });
  if (ctx.state !== NodeState.NODE_STATE_READY) throw new TtsError('TTS_ENGINE_UNAVAILABLE', 'The node is still loading.', { retryAfterSec: 2 });
}

/**
 * Turns a gRPC request (a SynthesizeRequest, or an InteractiveStart: the same fields) into a
 * pipeline job: the node's one conversion of the contract's fields
 * (the encoding to the encoders' format; the voice is resolved by the pipeline's plan, once), and
 * the encoding as asked, which the answer names. Throws TtsError for a request without `speech`
 * (a caller of a build before 0.6), an unknown encoding, a bit rate the format cannot take, or a lexicon that breaks the lexicon rules
 * (the LEXICON_* codes: a request may come from anywhere, so its lexicon is checked again here).
 */
export function jobFromRequest(req: Pick<SynthesizeRequest, 'requestId' | 'tenantId' | 'tenantWeight' | 'speech'>): { job: SynthesisJob; encoding: AudioEncoding } {
  const speech = req.speech;
  if (!speech) throw new TtsError('VALIDATION_FAILED', '`speech` is required (a caller older than 0.6 sends the speech fields in the request itself: upgrade it).', { loc: ['speech'] });
  const format = formatOf(speech.encoding);
  if (!format) throw new TtsError('TTS_FORMAT_UNSUPPORTED', `Encoding ${speech.encoding} is not supported.`, { loc: ['speech', 'encoding'] });
  if (speech.bitrateKbps !== 0) checkBitrate(format, speech.bitrateKbps, ['speech', 'bitrate_kbps']);
  const job: SynthesisJob = {
    requestId: req.requestId,
    tenant: req.tenantId,
    tenantWeight: req.tenantWeight,
    text: speech.text,
    voice: speech.voice,
    engine: speech.engine,
    speed: speech.speed,
    format,
    sampleRate: speech.sampleRate,
    ...(speech.bitrateKbps === 0 ? {} : { bitrateKbps: speech.bitrateKbps }),
    language: speech.language,
    rawText: speech.rawText,
    wordTimings: speech.wordTimings,
    // 0: the caller named no payload; the pipeline derives one from the request id with the node's key.
    ...(speech.watermarkPayload === 0 ? {} : { watermarkPayload: speech.watermarkPayload }),
    ...(speech.lexicon.length === 0 ? {} : { lexicon: lexiconOfMessages(speech.lexicon, ['speech', 'lexicon']) }),
  };
  return { job, encoding: speech.encoding };
}

/** Proto metrics from pipeline stats; `nodeMs`: the node's wall time of the synthesis. */
export function metricsOf(stats: Pick<SynthesisStats, 'characters' | 'sentences' | 'audioSeconds' | 'computeSeconds' | 'timeToFirstAudioMs' | 'queueMs' | 'loadMs'>, nodeId: string, nodeMs: number): SynthesisMetrics {
  return {
    characters: stats.characters,
    sentences: stats.sentences,
    audioSeconds: stats.audioSeconds,
    computeSeconds: stats.computeSeconds,
    realTimeFactor: stats.audioSeconds > 0 ? stats.computeSeconds / stats.audioSeconds : 0,
    timeToFirstAudioMs: stats.timeToFirstAudioMs,
    queueMs: stats.queueMs,
    nodeId,
    nodeMs,
    loadMs: stats.loadMs,
  };
}

/** Proto word timings of the pipeline's. */
export function wordMessages(words: readonly WordTiming[]): WordTimingMessage[] {
  return words.map((w) => ({ word: w.word, startSec: w.start, endSec: w.end }));
}
