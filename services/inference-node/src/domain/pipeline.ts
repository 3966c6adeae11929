/**
 * The synthesis pipeline of a node: text front-end -> engine, sentence by sentence -> speed ->
 * edge trimming and peak limiting -> resampling -> encoding. Streaming callers get encoded bytes
 * as soon as the first sentence is rendered; unary callers get one whole file.
 * Each sentence's wait for an engine slot (`tts.queue_wait`) and engine call (`tts.inference`),
 * and the encoding (`tts.encode`), are spans of the request's trace; each synthesis ends with its
 * metrics and an audio event (synthesis-telemetry.ts).
 */
import { performance } from 'node:perf_hooks';
import { isSsml, parseSsml, SPEED_RANGE, TtsError, watermarkPayloadOf, type LexiconEntry } from '@tts/common';
import { instruments, inSpan, recordFailure, tracer } from '@tts/common/telemetry';
import {
  contentTypeOf,
  createEncoder,
  type EncoderImplementation,
  type EncoderSettings,
  createResampler,
  encodeAudio,
  limitPeak,
  pitchShift,
  outputSampleRate,
  silenceBounds,
  timeStretch,
  type AudioFormat,
} from '../audio/index.js';
import { compileLexicon, prepareSpeech, type PrepareTextOptions } from '../text/index.js';
import { ssmlPieces, type SpeechPiece } from '../text/ssml.js';
import type { PcmAudio } from '../audio/pcm.js';
import type { FirstChunkPolicy, SynthesisEngine, VoiceDescriptor } from '../engines/engine.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { SileroVad } from '../vad/index.js';
import type { Admission } from './admission.js';
import type { AudioEventLog } from './audio-events.js';
import { observeBatches } from '../batching/batch-observer.js';
import { recordSynthesis } from './synthesis-telemetry.js';
import { WatermarkEmbedder } from '../watermark/index.js';
import { placeWords, wordsOfPiece, writtenWords, type WordAligner, type WordTiming } from './word-timings.js';

/** Fastest and slowest speed factors accepted. */


/** What a caller asks of the pipeline (transport-neutral). */
export interface SynthesisJob {
  readonly requestId: string;
  /** Who the request is for: the engine's slots are shared fairly between tenants (admission.ts). @default "" */
  readonly tenant?: string;
  /** The tenant's weight in that sharing; 0 = 1. @default 1 */
  readonly tenantWeight?: number;
  readonly text: string;
  readonly voice: string;
  readonly engine: string;
  /** 0 = 1.0 */
  readonly speed: number;
  readonly format: AudioFormat;
  /** 0 = the format's default. */
  readonly sampleRate: number;
  /** Bit rate of a lossy format, kbit/s. @default per format and rate (`defaultBitrateKbps`) */
  readonly bitrateKbps?: number;
  readonly language: string;
  readonly rawText: boolean;
  /** Streamed delivery: the first chunk is cut short at a clause boundary for fast first audio. */
  readonly streaming?: boolean;
  /** 32-bit payload of the provenance watermark (names the request); absent: keyed from the request id with the node's watermark key. */
  readonly watermarkPayload?: number;
  /** Pitch change applied to the rendered audio (clone requests), as a ratio; 1 = none. */
  readonly pitchRatio?: number;
  /** Reference clip of a clone request, handed to the engine. */
  readonly reference?: { readonly audio: Uint8Array; readonly filename: string };
  /** The caller wants word timings: an engine without its own is force-aligned (word-timings.ts). */
  readonly wordTimings?: boolean;
  /** Pronunciation lexicon of the request (the caller's and its preset's entries, checked: jobFromRequest), applied by the text front-end. */
  readonly lexicon?: readonly LexiconEntry[];
}

/** First-chunk bounds of streamed requests: a clause of 20 to 60 characters is 1.5 to 4 s of speech. */
const STREAMING_FIRST_CHUNK: FirstChunkPolicy = { maxChars: 60, minChars: 20, cutAtWord: false };

/** Engine feature of engines that render IPA given as `EngineInput.phonemes` (SSML `<phoneme>`) and `EngineInput.parts` (lexicon entries). */
export const IPA_INPUT = 'ipa-input';

/** Characters of text a piece speaks (0 for a silence). */
function charactersOf(piece: SpeechPiece): number {
  return piece.kind === 'speech' ? piece.text.length : 0;
}

/** The speed a speech piece renders at: the request's times its SSML rate, within SPEED_RANGE. */
function pieceSpeed(planSpeed: number, piece: SpeechPiece): number {
  const rate = piece.kind === 'speech' ? piece.rate : 1;
  return Math.min(SPEED_RANGE.max, Math.max(SPEED_RANGE.min, planSpeed * rate));
}

/** A validated job, ready to render. */
export interface SynthesisPlan {
  readonly job: SynthesisJob;
  readonly engine: SynthesisEngine;
  readonly voice: VoiceDescriptor;
  /** What to render, in order: speech chunks (with their SSML rate and pitch) and silences. */
  readonly chunks: readonly SpeechPiece[];
  readonly characters: number;
  readonly speed: number;
  readonly outputRate: number;
  readonly contentType: string;
}

/** Facts about a finished synthesis. */
export interface SynthesisStats {
  characters: number;
  sentences: number;
  audioSeconds: number;
  computeSeconds: number;
  timeToFirstAudioMs: number;
  queueMs: number;
  /** Encoding time, ms (streams: from the encoder's start to its last byte). */
  encodeMs: number;
  /** Largest engine batch one of the sentences ran in (1 without batching). */
  maxBatchSize: number;
  /** Time spent adding the provenance mark to the pieces, ms (on the request's path). */
  watermarkMs: number;
  /** Time spent building this request's mark pattern, ms (while the engine renders the first piece). */
  watermarkSetupMs: number;
  /** Time spent loading the engine again after an idle unload, ms (0 when it was loaded). */
  loadMs: number;
}

/** What the pipeline needs from its node. */
export interface PipelineDeps {
  readonly registry: EngineRegistry;
  readonly admission: Admission;
  /** Longest text a node accepts in one request. */
  readonly maxChars: number;
  /** Sentences of one request rendered at once after the first, up to the engine's slots. @default 2 */
  readonly sentencesInFlight?: number;
  /** How mp3, opus, aac and flac are encoded (TTS_AUDIO_ENCODERS). @default the codec libraries in process */
  readonly encoders?: EncoderImplementation;
  /** libopus complexity of the in-process opus encoder (TTS_OPUS_COMPLEXITY). @default OPUS_COMPLEXITY (5) */
  readonly opusComplexity?: number;
  /** LAME quality of mp3 (TTS_MP3_QUALITY). @default MP3_QUALITY */
  readonly mp3Quality?: number;
  /** When set, the edges of rendered audio are trimmed to its speech first (TTS_VAD_TRIM). */
  readonly vad?: Pick<SileroVad, 'segments'>;
  /** Where each synthesis leaves its audio pipeline event (the node's debug ring). */
  readonly audioEvents?: AudioEventLog;
  /** Key every output is marked with (the provenance watermark); absent = no mark (TTS_WATERMARK=false). */
  readonly watermarkKey?: { readonly id: number; readonly secret: string };
  /** Forced alignment of the words of engines without timings of their own; absent = none (no ASR model). */
  readonly aligner?: WordAligner;
}

/**
 * Trims leading and/or trailing non-speech of a rendered piece: to the VAD's first and last speech
 * segments (which include its padding) when a VAD is given and finds speech, then by energy
 * (`trimSilence`'s bounds). A piece in which the VAD hears no speech is trimmed by energy only, so
 * nothing the engine rendered is ever dropped whole. `cutStart`: the samples cut at the start.
 */
export async function trimEdges(audio: PcmAudio, edges: 'start' | 'end' | 'both', vad?: Pick<SileroVad, 'segments'>): Promise<{ audio: PcmAudio; cutStart: number }> {
  let out = audio;
  let cutStart = 0;
  if (vad !== undefined && audio.samples.length > 0) {
    const segments = await vad.segments(audio);
    const first = segments[0];
    const last = segments[segments.length - 1];
    if (first !== undefined && last !== undefined) {
      const length = audio.samples.length;
      const start = edges === 'end' ? 0 : Math.max(0, Math.floor(first.startSec * audio.sampleRate));
      const end = edges === 'start' ? length : Math.min(length, Math.ceil(last.endSec * audio.sampleRate));
      if (start > 0 || end < length) {
        out = { samples: audio.samples.subarray(start, end), sampleRate: audio.sampleRate };
        cutStart = start;
      }
    }
  }
  const { start, end } = silenceBounds(out, { edges });
  if (start === 0 && end === out.samples.length) return { audio: out, cutStart };
  return { audio: { samples: out.samples.subarray(start, end), sampleRate: out.sampleRate }, cutStart: cutStart + start };
}

/** What a job's settings resolve to, whatever its text: one voice, engine, speed and output rate. */
export interface SynthesisSetup {
  readonly engine: SynthesisEngine;
  readonly voice: VoiceDescriptor;
  readonly speed: number;
  readonly outputRate: number;
  readonly contentType: string;
  /** How the text front-end prepares the job's text. */
  readonly prepare: PrepareTextOptions;
}

/**
 * Validates a job's settings and resolves its voice (once: an interactive session keeps the result
 * for every piece of its text), engine, speed, output rate and text preparation. Throws TtsError.
 */
export function setupSynthesis(job: Omit<SynthesisJob, 'text'>, deps: Pick<PipelineDeps, 'registry'>): SynthesisSetup {
  const speed = job.speed === 0 ? 1 : job.speed;
  if (!Number.isFinite(speed) || speed < SPEED_RANGE.min || speed > SPEED_RANGE.max) {
    throw new TtsError('TTS_SPEED_OUT_OF_RANGE', `Speed ${job.speed} is outside ${SPEED_RANGE.min} to ${SPEED_RANGE.max}.`, { loc: ['speed'] });
  }
  const { engine, voice } = deps.registry.resolve(job.voice, job.engine);
  const outputRate = outputSampleRate(job.format, voice.sampleRate, job.sampleRate === 0 ? undefined : job.sampleRate, ['sample_rate']);
  const language = job.language !== '' ? job.language : voice.language;
  const first = engine.streamingFirstChunk ?? STREAMING_FIRST_CHUNK;
  const lexicon = job.lexicon === undefined || job.lexicon.length === 0 ? undefined : compileLexicon(job.lexicon);
  const prepare: PrepareTextOptions = {
    language,
    normalize: !job.rawText,
    phonemes: engine.features.includes(IPA_INPUT),
    ...(lexicon === undefined ? {} : { lexicon }),
    ...(job.streaming ? { firstChunkMaxChars: first.maxChars, firstChunkMinChars: first.minChars, firstChunkCutAtWord: first.cutAtWord } : {}),
  };
  return { engine, voice, speed, outputRate, contentType: contentTypeOf(job.format), prepare };
}

/**
 * Validates a job and resolves its voice, engine, text chunks and output rate (`setup`: its
 * settings already resolved by setupSynthesis). Throws TtsError.
 */
export function planSynthesis(job: SynthesisJob, deps: PipelineDeps, setup?: SynthesisSetup): SynthesisPlan {
  if (job.text.trim() === '') throw new TtsError('TTS_TEXT_EMPTY', 'The text is empty.', { loc: ['text'] });
  if (job.text.length > deps.maxChars) {
    throw new TtsError('TTS_TEXT_TOO_LONG', `The text has ${job.text.length} characters; the limit is ${deps.maxChars}.`, { loc: ['text'] });
  }
  const { engine, voice, speed, outputRate, contentType, prepare } = setup ?? setupSynthesis(job, deps);
  // A text that starts with <speak> is SSML (validated again here: a job may come from anywhere);
  // any other text is plain text, "<" and all.
  const chunks: SpeechPiece[] = isSsml(job.text)
    ? ssmlPieces(parseSsml(job.text), prepare)
    : prepareSpeech(job.text, prepare).map(({ text, parts, respelled }) => ({ kind: 'speech', text, rate: 1, pitch: 1, ...(parts === undefined ? {} : { parts }), ...(respelled === undefined ? {} : { respelled }) }));
  if (!chunks.some((c) => c.kind === 'speech')) throw new TtsError('TTS_TEXT_EMPTY', 'The text has nothing speakable.', { loc: ['text'] });
  const characters = chunks.reduce((n, c) => n + charactersOf(c), 0);
  return { job, engine, voice, chunks, characters, speed, outputRate, contentType };
}

/** The node's aligner, for a plan in a language its ASR model speaks (English). */
function alignerFor(plan: SynthesisPlan, deps: PipelineDeps): WordAligner | undefined {
  const language = plan.job.language !== '' ? plan.job.language : plan.voice.language;
  return language.toLowerCase().startsWith('en') ? deps.aligner : undefined;
}

function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new TtsError('TTS_CANCELLED');
}

/** One sentence as the engine rendered it. */
interface RenderedSentence {
  readonly audio: PcmAudio;
  readonly speedApplied: boolean;
  readonly computeSec: number;
  /** Its words, seconds from the start of `audio` (none for a silence, or an engine without timings). */
  readonly words: readonly WordTiming[];
}

/** A piece of the output: samples at the output rate and the words they speak, in output time. */
export interface RenderedPiece {
  readonly samples: Float32Array;
  /** Seconds from the start of the utterance's audio; in order, without overlap. */
  readonly words: readonly WordTiming[];
}

/**
 * Renders the plan sentence by sentence as float samples at the output rate. Each piece is
 * yielded as soon as it is ready, in order; the first is trimmed at its start, the last at its end.
 * The first sentence renders alone, and the next ones start once its audio has gone out (nothing
 * competes with the first audio); from then on up to
 * `deps.sentencesInFlight` (2) of the following ones render at once where the engine has the slots (flite's
 * worker threads, festival's processes), each taking its slot in the engine's FIFO like any other
 * request's sentence, so a long text on an idle node is not held to one core.
 * Each piece carries its words in output time (word-timings.ts): offset by the audio before it,
 * divided by the node's time-stretch, shifted by what edge trimming cut, clamped to the piece.
 */
export async function* renderAudio(plan: SynthesisPlan, deps: PipelineDeps, stats: SynthesisStats, signal?: AbortSignal): AsyncGenerator<RenderedPiece> {
  const resampler = plan.voice.sampleRate === plan.outputRate ? undefined : createResampler(plan.voice.sampleRate, plan.outputRate);
  // Every output carries the provenance mark, added piece by piece as the audio leaves. Its
  // pattern for this request is built while the engine renders the first piece (on its worker
  // thread or process), so building it costs the request no time.
  let marker: WatermarkEmbedder | undefined;
  const prepareMarker = (): void => {
    if (!deps.watermarkKey || marker) return;
    const t = performance.now();
    marker = new WatermarkEmbedder({ secret: deps.watermarkKey.secret, payload: plan.job.watermarkPayload ?? watermarkPayloadOf(deps.watermarkKey.secret, plan.job.requestId), sampleRate: plan.outputRate });
    stats.watermarkSetupMs += performance.now() - t;
  };
  const engineAttributes = { 'tts.engine': plan.engine.name };
  // The pieces wait for the engine's slots in their tenant's turn, then in this request's arrival order, its first audio first (admission.ts).
  const request = deps.admission.nextRequest();
  const tenant = plan.job.tenant ?? '';
  const weight = plan.job.tenantWeight ?? 1;
  const firstSpeech = plan.chunks.findIndex((c) => c.kind === 'speech');
  // Sentences rendering ahead stop when the request ends early (failure, client gone).
  const local = new AbortController();
  const onAbort = (): void => local.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const renderSentence = async (i: number): Promise<RenderedSentence> => {
    const piece = plan.chunks[i]!;
    // A silence (SSML <break>) is samples of zero at the voice's rate: no engine, no slot.
    if (piece.kind === 'silence') return { audio: { samples: new Float32Array(Math.round(piece.seconds * plan.voice.sampleRate)), sampleRate: plan.voice.sampleRate }, speedApplied: true, computeSec: 0, words: [] };
    const { text } = piece;
    const speed = pieceSpeed(plan.speed, piece);
    const waitStart = performance.now();
    const release = await inSpan('tts.queue_wait', engineAttributes, () => deps.admission.acquire(plan.engine.name, local.signal, { request, first: i === firstSpeech, tenant, weight, characters: text.length }));
    const started = performance.now();
    stats.queueMs += started - waitStart;
    instruments().queueTime.record((started - waitStart) / 1000, engineAttributes);
    try {
      const attributes = { ...engineAttributes, 'tts.voice': plan.voice.id, 'tts.characters': text.length, 'tts.sentence.index': i };
      const out = await inSpan('tts.inference', attributes, async (span) => {
        let batch = 1;
        const [result] = await observeBatches(
          () => plan.engine.synthesize([{ text, voice: plan.voice.id, speed, signal: local.signal, ...(piece.phonemes === undefined ? {} : { phonemes: piece.phonemes }), ...(piece.parts === undefined ? {} : { parts: piece.parts }), ...(plan.job.reference ? { reference: plan.job.reference } : {}) }]),
          (size) => (batch = Math.max(batch, size)),
        );
        span.setAttribute('tts.batch.size', batch);
        stats.maxBatchSize = Math.max(stats.maxBatchSize, batch);
        // Batching engines report their batches from the batcher; a plain engine call is a batch of one.
        if (plan.engine.maxBatchSize <= 1) instruments().batchSize.record(1, engineAttributes);
        return result;
      });
      if (!out) throw new TtsError('TTS_ENGINE_FAILED', 'The engine returned no audio.');
      const computeSec = (performance.now() - started) / 1000;
      return { audio: out.audio, speedApplied: out.speedApplied, computeSec, words: writtenWords(await wordsOfPiece(out, text, plan.job.wordTimings === true ? alignerFor(plan, deps) : undefined), piece.respelled) };
    } finally {
      release();
    }
  };
  const inFlight = Math.max(1, Math.min(deps.sentencesInFlight ?? 2, deps.admission.engineCapacity(plan.engine.name)));
  const pending: Promise<RenderedSentence>[] = [];
  const launch = (): void => {
    const rendering = renderSentence(pending.length);
    rendering.catch(() => undefined); // awaited in order below; a later one may fail first
    pending.push(rendering);
  };
  /** Starts the sentences after `i` that may render now. */
  const renderAhead = (i: number): void => {
    while (pending.length < plan.chunks.length && pending.length <= i + inFlight) launch();
  };
  // The engine stays loaded while this request uses it; unloaded when idle, it loads again first.
  const lease = await deps.registry.acquire(plan.engine.name);
  stats.loadMs += lease.loadMs;
  deps.admission.trackChars(plan.engine.name, plan.characters, tenant, weight);
  let remaining = plan.characters;
  // Output time of the audio before the current piece, and the end of the last word placed.
  let emittedSec = 0;
  let lastWordEnd = 0;
  try {
    checkAborted(signal);
    launch();
    prepareMarker();
    for (let i = 0; i < plan.chunks.length; i++) {
      checkAborted(signal);
      const piece = plan.chunks[i]!;
      const chars = charactersOf(piece);
      const rendered = await pending[i]!;
      // After the first piece has gone out (below), so nothing competes with the first audio.
      if (i > 0) renderAhead(i);
      let audio = rendered.audio;
      let stretch = 1;
      let cutStart = 0;
      if (piece.kind === 'speech') {
        const speed = pieceSpeed(plan.speed, piece);
        if (!rendered.speedApplied && speed !== 1) {
          audio = await timeStretch(audio, speed, signal);
          stretch = speed;
        }
        const pitch = (plan.job.pitchRatio ?? 1) * piece.pitch;
        if (pitch !== 1) audio = await pitchShift(audio, pitch, signal);
        // The first and last pieces are trimmed at the outside, and speech beside an SSML break
        // at the break's side, so the pause is the break's length and not the engine's padding too.
        const start = i === 0 || plan.chunks[i - 1]?.kind === 'silence';
        const end = i === plan.chunks.length - 1 || plan.chunks[i + 1]?.kind === 'silence';
        const edges = start && end ? 'both' : start ? 'start' : end ? 'end' : 'none';
        if (edges !== 'none') ({ audio, cutStart } = await trimEdges(audio, edges, deps.vad));
        audio = limitPeak(audio);
      }
      const last = i === plan.chunks.length - 1;
      const audioSec = audio.samples.length / audio.sampleRate;
      if (piece.kind === 'speech') deps.admission.record(plan.engine.name, chars, rendered.computeSec, audioSec);
      deps.admission.trackChars(plan.engine.name, -chars, tenant, weight);
      remaining -= chars;
      stats.computeSeconds += rendered.computeSec;
      stats.audioSeconds += audioSec;
      if (piece.kind === 'speech') stats.sentences++;
      // The resampler keeps time (its output equals resampling the whole), so output time is the sum of the pieces' lengths.
      const words = placeWords(rendered.words, { stretch, cutSec: cutStart / audio.sampleRate, lengthSec: audioSec, offsetSec: emittedSec, notBeforeSec: lastWordEnd });
      emittedSec += audioSec;
      lastWordEnd = words.at(-1)?.end ?? lastWordEnd;
      let out = resampler ? resampler.process(audio.samples) : audio.samples;
      if (last && resampler) {
        const tail = resampler.flush();
        if (tail.length > 0) {
          const joined = new Float32Array(out.length + tail.length);
          joined.set(out);
          joined.set(tail, out.length);
          out = joined;
        }
      }
      // In place: `out` is this piece's own buffer (the resampler's output or the engine's, used nowhere else).
      if (marker) {
        const t = performance.now();
        marker.markInPlace(out);
        stats.watermarkMs += performance.now() - t;
      }
      if (out.length > 0 || words.length > 0) yield { samples: out, words };
      if (i === 0) renderAhead(0);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    local.abort();
    deps.admission.trackChars(plan.engine.name, -remaining, tenant, weight);
    marker?.release();
    lease.release();
  }
}

/** The stats of a plan before anything is rendered. */
export function newStats(plan: SynthesisPlan): SynthesisStats {
  return { characters: plan.characters, sentences: 0, audioSeconds: 0, computeSeconds: 0, timeToFirstAudioMs: 0, queueMs: 0, encodeMs: 0, maxBatchSize: 1, watermarkMs: 0, watermarkSetupMs: 0, loadMs: 0 };
}

/** How a synthesis that threw ended, for its metrics and audio event. */
function failureEnd(err: unknown, signal: AbortSignal | undefined, streaming: boolean, started: number): Parameters<typeof recordSynthesis>[3] {
  const code = err instanceof TtsError ? err.code : 'INTERNAL_ERROR';
  const cancelled = signal?.aborted === true || code === 'TTS_CANCELLED';
  return { streaming, outcome: cancelled ? 'cancelled' : 'error', errorCode: cancelled ? 'TTS_CANCELLED' : code, totalMs: performance.now() - started };
}

/**
 * renderAudio, with the plan recorded as one streamed synthesis when it ends (metrics, audio
 * event; synthesis-telemetry.ts) and `stats.timeToFirstAudioMs` set at its first piece: a piece of
 * an interactive session, whose context encodes the pieces of many plans into one stream.
 */
export async function* renderRecorded(plan: SynthesisPlan, deps: PipelineDeps, stats: SynthesisStats, signal?: AbortSignal): AsyncGenerator<RenderedPiece> {
  const started = performance.now();
  let end: Parameters<typeof recordSynthesis>[3] | undefined;
  try {
    for await (const piece of renderAudio(plan, deps, stats, signal)) {
      if (stats.timeToFirstAudioMs === 0) stats.timeToFirstAudioMs = performance.now() - started;
      yield piece;
    }
    end = { streaming: true, outcome: 'ok', errorCode: '', totalMs: performance.now() - started };
  } catch (err) {
    end = failureEnd(err, signal, true, started);
    throw err;
  } finally {
    // Left early by its consumer: cancelled.
    recordSynthesis(plan, deps, stats, end ?? failureEnd(new TtsError('TTS_CANCELLED'), signal, true, started));
  }
}

/**
 * Renders the whole utterance into one file of the plan's format (WAV with exact sizes), with the
 * words' timings in it.
 */
export async function synthesizeWhole(plan: SynthesisPlan, deps: PipelineDeps, signal?: AbortSignal): Promise<{ audio: Buffer; stats: SynthesisStats; words: WordTiming[] }> {
  const started = performance.now();
  const stats = newStats(plan);
  try {
    const pieces: Float32Array[] = [];
    const words: WordTiming[] = [];
    let total = 0;
    for await (const piece of renderAudio(plan, deps, stats, signal)) {
      if (pieces.length === 0) stats.timeToFirstAudioMs = performance.now() - started;
      pieces.push(piece.samples);
      words.push(...piece.words);
      total += piece.samples.length;
    }
    const samples = pieces.length === 1 ? pieces[0]! : new Float32Array(total);
    if (pieces.length !== 1) {
      let at = 0;
      for (const p of pieces) {
        samples.set(p, at);
        at += p.length;
      }
    }
    const encodeStart = performance.now();
    const audio = await inSpan('tts.encode', { 'tts.format': plan.job.format, 'tts.streaming': false }, () => encodeAudio({ samples, sampleRate: plan.outputRate }, plan.job.format, signal, encoderChoice(deps, plan.job)));
    stats.encodeMs = performance.now() - encodeStart;
    recordSynthesis(plan, deps, stats, { streaming: false, outcome: 'ok', errorCode: '', totalMs: performance.now() - started });
    return { audio, stats, words };
  } catch (err) {
    recordSynthesis(plan, deps, stats, failureEnd(err, signal, false, started));
    throw err;
  }
}

/** Encoded bytes of a stream, with the words whose audio they hold. */
export interface StreamedAudio {
  readonly bytes: Buffer;
  /**
   * The words of the pieces fed to the encoder since the previous chunk: a piece's words ride the
   * first chunk the encoder emits after the piece was handed to it (encoders hold some audio back,
   * so a word may arrive a chunk before the last of its audio). A stream whose last words find no
   * chunk after them ends with one of no bytes that carries them.
   */
  readonly words: readonly WordTiming[];
}

/**
 * Streams the utterance as encoded bytes: rendering feeds the encoder while the encoder's output
 * is yielded, each chunk with its words (StreamedAudio). The final value of the generator is the stats.
 */
export async function* synthesizeStreaming(plan: SynthesisPlan, deps: PipelineDeps, signal?: AbortSignal): AsyncGenerator<StreamedAudio, SynthesisStats> {
  const started = performance.now();
  const stats = newStats(plan);
  // Encoding runs alongside rendering; its span covers the encoder's life.
  const encodeSpan = tracer().startSpan('tts.encode', { attributes: { 'tts.format': plan.job.format, 'tts.streaming': true } });
  let ended = false;
  const end = (err?: unknown): void => {
    if (ended) return;
    ended = true;
    stats.encodeMs = performance.now() - started;
    if (err !== undefined) recordFailure(encodeSpan, err);
    encodeSpan.end();
    recordSynthesis(plan, deps, stats, err === undefined ? { streaming: true, outcome: 'ok', errorCode: '', totalMs: performance.now() - started } : failureEnd(err, signal, true, started));
  };
  const encoder = createEncoder(plan.job.format, plan.outputRate, { streaming: true, ...(signal ? { signal } : {}), ...encoderChoice(deps, plan.job) });
  let feedError: unknown;
  // Words of the pieces handed to the encoder, waiting for its next chunk.
  let pendingWords: WordTiming[] = [];
  const takeWords = (): WordTiming[] => {
    const words = pendingWords;
    pendingWords = [];
    return words;
  };
  const feeding = (async () => {
    try {
      for await (const piece of renderAudio(plan, deps, stats, signal)) {
        pendingWords.push(...piece.words);
        if (piece.samples.length > 0) await encoder.write(piece.samples);
      }
      await encoder.end();
    } catch (err) {
      feedError = err;
      encoder.abort();
    }
  })();
  let completed = false;
  try {
    for await (const bytes of encoder) {
      if (bytes.length === 0) continue;
      if (stats.timeToFirstAudioMs === 0) stats.timeToFirstAudioMs = performance.now() - started;
      yield { bytes, words: takeWords() };
    }
    if (pendingWords.length > 0) yield { bytes: Buffer.alloc(0), words: takeWords() };
    completed = true;
  } catch (err) {
    await feeding;
    end(feedError ?? err);
    throw feedError ?? err;
  } finally {
    // The consumer stopped early (cancelled call): stop the encoder and the rendering behind it.
    if (!completed) {
      encoder.abort();
      end(new TtsError('TTS_CANCELLED'));
    }
  }
  await feeding;
  if (feedError !== undefined) {
    end(feedError);
    throw feedError;
  }
  end();
  return stats;
}

/** The encoder settings the node's configuration chose (implementation, opus complexity). */
export function encoderChoice(deps: Pick<PipelineDeps, 'encoders' | 'opusComplexity' | 'mp3Quality'>, job: Pick<SynthesisJob, 'bitrateKbps'>): EncoderSettings & { bitrateKbps?: number } {
  return {
    ...(job.bitrateKbps === undefined ? {} : { bitrateKbps: job.bitrateKbps }),
    ...(deps.encoders === undefined ? {} : { implementation: deps.encoders }),
    ...(deps.opusComplexity === undefined ? {} : { opusComplexity: deps.opusComplexity }),
    ...(deps.mp3Quality === undefined ? {} : { mp3Quality: deps.mp3Quality }),
  };
}
