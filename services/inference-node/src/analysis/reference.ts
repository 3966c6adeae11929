/**
 * Reference-clip analysis for voice cloning: what the container says, the guideline checks
 * (3-10 s, mono, >= 16 kHz), quality warnings with stable codes (the more-than-one-speaker check
 * in speaker-change.ts), pitch and speaking rate; cloning's speaker vector (speakerAnalysis). Long clips are measured over their first
 * `maxAnalysisSec` seconds; their duration still comes from the whole file.
 */
import { REFERENCE_GUIDELINE, TtsError } from '@tts/common';
import type { AnalysisWarning, AudioFacts, ReferenceAnalysis, Transcription } from '@tts/proto/analysis';
import type { AnalysisFeature } from '@tts/proto/synthesis';
import { open, readFile } from 'node:fs/promises';
import { checkMediaFormat, declaredWavFormat, decodeWav, decodeWithFfmpeg, probeAudio, samplesAt, wavLayout, type DecodedWav, type PcmAudio, type WavLayout } from '../audio/index.js';
import type { SileroVad, SpeechSegment } from '../vad/index.js';
import type { AlignedWord, AlignOptions } from './align.js';
import { requireFeature } from './features.js';
import type { ClipMeasurements, MeasureRequest } from './clip-measurements.js';
import type { LevelFacts, PitchFacts } from './measure.js';
import { suffixOf, type ReceivedUpload } from './upload.js';

/** Analysis runs at the VAD's and the recognizer's rate. */
export const ANALYSIS_RATE = 16_000;

/** What recognition offers the analysis (Vosk on a node; absent when its models are not installed). */
export interface SpeechModels {
  readonly asrModelId: string;
  readonly language: string;
  transcribe(pcm16k: Float32Array): Promise<Omit<Transcription, 'model' | 'language' | 'durationSec' | 'computeSec'>>;
  /** x-vector of each window, null where the speaker model is not installed or a window holds too little speech. */
  speakerVectors(windows: readonly Float32Array[]): Promise<(Float32Array | null)[]>;
  /** Where each token of `text` is spoken in `audio` (any rate), by forced alignment (align.ts). */
  alignWords(audio: PcmAudio, text: string, options?: AlignOptions): Promise<AlignedWord[]>;
  close?(): Promise<void>;
}

/** The models analysis uses, loaded on first use, and where its measurements run (off the main thread: clip-measurements.ts). */
export interface AnalysisModels {
  vad(): Promise<SileroVad | undefined>;
  speech(): Promise<SpeechModels | undefined>;
  measure(req: MeasureRequest, signal?: AbortSignal): Promise<ClipMeasurements>;
  pitch(req: MeasureRequest, signal?: AbortSignal): Promise<PitchFacts>;
}

/** Warning thresholds; see the OpenAPI description of ReferenceWarning. */
export const WARNING_THRESHOLDS = Object.freeze({
  /** Share of clipped samples above which CLIPPING is raised. */
  clippedRatio: 0.001,
  /** Speech level below which TOO_QUIET is raised, dBFS. */
  quietDbfs: -35,
  /** Speech ratio below which LOW_SPEECH_RATIO is raised. */
  speechRatio: 0.5,
  /** Silence before the first / after the last speech above which LONG_*_SILENCE is raised, s. */
  edgeSilenceSec: 1,
  /** SNR estimate below which LOW_SNR is raised, dB. */
  snrDb: 20,
  /** Window of a voice's speaker vector, s, and the cosine below which two windows are different speakers (cloning's profiles). */
  speakerWindowSec: 2,
  speakerChangeCosine: 0.45,
} as const);

/** Speaker windows decoded per clip at most (each is a recognizer pass: bench/README.md, `reference`). */
const MAX_SPEAKER_WINDOWS = 3;

/** Options of analyzeReference. */
export interface ReferenceOptions {
  readonly transcribe: boolean;
  /** Longest part measured, s. */
  readonly maxAnalysisSec: number;
  readonly signal?: AbortSignal;
  /** The node's analysis features (features.ts): a missing one is refused by name. */
  readonly features?: readonly AnalysisFeature[];
}

/**
 * Analyses an uploaded clip. Throws AUDIO_CONTAINER_UNSUPPORTED, AUDIO_FORMAT_OUT_OF_RANGE or
 * AUDIO_DECODE_FAILED for data that is not audio it reads (decodeUpload), and ANALYSIS_UNAVAILABLE
 * without a VAD: the speech level, speech ratio and silences are measured on the speech it finds,
 * and without it they would be figures of nothing (a speech level of -inf).
 */
export async function analyzeReference(upload: ReceivedUpload, models: AnalysisModels, options: ReferenceOptions): Promise<ReferenceAnalysis> {
  const started = performance.now();
  const { facts, native } = await decodeUpload(upload, options.maxAnalysisSec, options.signal);
  // Bad input is reported as such (above) even where a model is missing.
  requireFeature(options.features ?? [], 'vad');
  const pcm = samplesAt(native, ANALYSIS_RATE);
  const vad = await models.vad();
  if (!vad) throw new TtsError('ANALYSIS_UNAVAILABLE', 'Voice activity detection (needed to measure the speech in a clip) could not load on this node.');
  const segments: SpeechSegment[] = await vad.segments({ samples: pcm, sampleRate: ANALYSIS_RATE });
  const speech = options.transcribe ? await models.speech() : undefined;
  // Recognition runs on libuv's threads: started first, it overlaps the measurements below.
  const transcriptionWork = speech ? transcribeWith(speech, pcm) : Promise.resolve(undefined);
  // Both settle before either failure is thrown: neither rejection is left unhandled.
  const [measured, transcribed] = await Promise.allSettled([
    models.measure({ samples: pcm, sampleRate: ANALYSIS_RATE, segments, clipSource: native.samples }, options.signal),
    transcriptionWork,
  ]);
  if (measured.status === 'rejected') throw measured.reason;
  if (transcribed.status === 'rejected') throw transcribed.reason;
  const { levels, pitch, speakerCheck } = measured.value;
  const transcription = transcribed.value;
  const speechSec = segments.reduce((sum, s) => sum + (s.endSec - s.startSec), 0);
  const wordCount = transcription?.words.length ?? 0;
  const failedChecks = guidelineFailures(facts);
  return {
    audio: facts,
    warnings: [...failedChecks.map((code) => guidelineWarning(code, facts)), ...qualityWarnings(levels, speakerCheck.speakers)],
    failedChecks,
    speechRatio: levels.speechRatio,
    leadingSilenceSec: levels.leadingSilenceSec,
    trailingSilenceSec: levels.trailingSilenceSec,
    peakDbfs: finite(levels.peakDbfs),
    speechLevelDbfs: finite(levels.speechLevelDbfs),
    clippedRatio: levels.clippedRatio,
    snrDb: levels.snrDb,
    speakersEstimate: speakerCheck.speakers,
    speakerWindows: speakerCheck.windows,
    speakerChangeScore: speakerCheck.score,
    medianF0Hz: pitch.medianHz,
    f0P10Hz: pitch.p10Hz,
    f0P90Hz: pitch.p90Hz,
    wordsPerMinute: speechSec > 0 && wordCount > 0 ? (wordCount / speechSec) * 60 : 0,
    transcription,
    analysedSec: pcm.length / ANALYSIS_RATE,
    computeSec: (performance.now() - started) / 1000,
  };
}

/** Transcribes an uploaded clip (its first `maxSec` seconds). Throws ANALYSIS_UNAVAILABLE without a recognizer. */
export async function transcribeUpload(upload: ReceivedUpload, models: AnalysisModels, maxSec: number, signal?: AbortSignal, features: readonly AnalysisFeature[] = []): Promise<Transcription> {
  // Bad input is reported as such even where the recognizer is missing.
  const { native } = await decodeUpload(upload, maxSec, signal);
  requireFeature(features, 'transcription');
  const speech = await models.speech();
  if (!speech) throw new TtsError('ANALYSIS_UNAVAILABLE', 'No speech recognition model is installed on this node.');
  const pcm = samplesAt(native, ANALYSIS_RATE);
  return transcribeWith(speech, pcm);
}

async function transcribeWith(speech: SpeechModels, pcm: Float32Array): Promise<Transcription> {
  const started = performance.now();
  const result = await speech.transcribe(pcm);
  return { ...result, model: speech.asrModelId, language: speech.language, durationSec: pcm.length / ANALYSIS_RATE, computeSec: (performance.now() - started) / 1000 };
}

/**
 * Probes and decodes an upload (mono mix at its native rate, at most `maxSec` seconds): the container
 * sniffed from its bytes, its format parameters checked against MEDIA_LIMITS before it is decoded.
 * Throws AUDIO_CONTAINER_UNSUPPORTED, AUDIO_FORMAT_OUT_OF_RANGE or AUDIO_DECODE_FAILED.
 */
export async function decodeUpload(upload: ReceivedUpload, maxSec: number, signal?: AbortSignal): Promise<{ facts: AudioFacts; native: PcmAudio }> {
  const wav = await readWavUpload(upload, maxSec);
  if (wav) return wav;
  const source = { path: upload.file };
  // In turn, not at once: the decode's output is bounded by the probed rate and channels.
  const probe = await probeAudio(source, signal);
  const native = await decodeWithFfmpeg(source, { maxSeconds: maxSec, probe, ...(signal ? { signal } : {}) });
  const facts: AudioFacts = {
    suffix: suffixOf(upload.header.filename) || `.${probe.formatName.split(',')[0] ?? 'bin'}`,
    container: probe.formatName,
    codec: probe.codec,
    sampleRate: probe.sampleRate,
    channels: probe.channels,
    durationSec: probe.durationSec > 0 ? probe.durationSec : native.samples.length / native.sampleRate,
  };
  return { facts, native };
}

/** Larger WAV files go through ffmpeg, which decodes only the part analysed (a whole file would be read into memory here). */
const MAX_IN_PROCESS_WAV_BYTES = 16 * 1024 * 1024;

/**
 * A WAV upload read in-process: starting ffprobe and ffmpeg costs 0.13-0.17 s each on a slow
 * machine, a third of the validation budget. Undefined for anything else, and for a WAV this
 * reader cannot read or finds empty (ffmpeg then decides, with its own errors). Its header's rate,
 * channels, bit depth and declared length are checked before the samples are decoded.
 */
async function readWavUpload(upload: ReceivedUpload, maxSec: number): Promise<{ facts: AudioFacts; native: PcmAudio } | undefined> {
  const file = await open(upload.file, 'r');
  const head = Buffer.alloc(12);
  let bytes: number;
  try {
    bytes = (await file.stat()).size;
    await file.read(head, 0, 12, 0);
  } finally {
    await file.close();
  }
  if (bytes > MAX_IN_PROCESS_WAV_BYTES) return undefined;
  if (!/^(RIFF|RF64|BW64)$/.test(head.toString('latin1', 0, 4)) || head.toString('latin1', 8, 12) !== 'WAVE') return undefined;
  const buf = await readFile(upload.file);
  let layout: WavLayout;
  try {
    layout = wavLayout(buf);
  } catch {
    return undefined;
  }
  checkMediaFormat(declaredWavFormat(layout));
  let wav: DecodedWav;
  try {
    wav = decodeWav(buf, layout);
  } catch {
    return undefined;
  }
  if (wav.samples.length === 0) return undefined;
  const keep = Math.min(wav.samples.length, Math.round(maxSec * wav.sampleRate));
  return {
    facts: {
      suffix: suffixOf(upload.header.filename) || '.wav',
      container: 'wav',
      codec: wav.format === 'float' ? `pcm_f${wav.bitsPerSample}le` : wav.bitsPerSample === 8 ? 'pcm_u8' : `pcm_s${wav.bitsPerSample}le`,
      sampleRate: wav.sampleRate,
      channels: wav.channels,
      durationSec: wav.samples.length / wav.sampleRate,
    },
    native: { samples: keep === wav.samples.length ? wav.samples : wav.samples.slice(0, keep), sampleRate: wav.sampleRate },
  };
}

function guidelineFailures(facts: AudioFacts): string[] {
  const failed: string[] = [];
  if (facts.durationSec < REFERENCE_GUIDELINE.minSec) failed.push('TOO_SHORT');
  if (facts.durationSec > REFERENCE_GUIDELINE.maxSec) failed.push('TOO_LONG');
  if (facts.channels !== REFERENCE_GUIDELINE.channels) failed.push('NOT_MONO');
  if (facts.sampleRate < REFERENCE_GUIDELINE.minSampleRate) failed.push('LOW_SAMPLE_RATE');
  return failed;
}

function guidelineWarning(code: string, facts: AudioFacts): AnalysisWarning {
  const d = facts.durationSec.toFixed(2);
  switch (code) {
    case 'TOO_SHORT':
      return { code, message: `The clip lasts ${d} s; a reference needs at least ${REFERENCE_GUIDELINE.minSec} s of speech.` };
    case 'TOO_LONG':
      return { code, message: `The clip lasts ${d} s; a reference is at most ${REFERENCE_GUIDELINE.maxSec} s (cut it to its best part).` };
    case 'NOT_MONO':
      return { code: 'STEREO', message: `The clip has ${facts.channels} channels; a reference is mono (its channels were mixed for the analysis).` };
    default:
      return { code, message: `The clip is sampled at ${facts.sampleRate} Hz; a reference needs at least ${REFERENCE_GUIDELINE.minSampleRate} Hz.` };
  }
}

function qualityWarnings(levels: LevelFacts, speakers: number): AnalysisWarning[] {
  const t = WARNING_THRESHOLDS;
  const out: AnalysisWarning[] = [];
  if (levels.clippedRatio > t.clippedRatio) out.push({ code: 'CLIPPING', message: `${(levels.clippedRatio * 100).toFixed(2)} % of the samples are at full scale; record at a lower gain.` });
  if (!Number.isFinite(levels.speechLevelDbfs)) out.push({ code: 'TOO_QUIET', message: 'No speech was found in the clip; record one person speaking, close to the microphone.' });
  else if (levels.speechLevelDbfs < t.quietDbfs) out.push({ code: 'TOO_QUIET', message: `The speech level is ${levels.speechLevelDbfs.toFixed(1)} dBFS (below ${t.quietDbfs}); record closer to the microphone or at a higher gain.` });
  if (levels.speechRatio < t.speechRatio) out.push({ code: 'LOW_SPEECH_RATIO', message: `Only ${(levels.speechRatio * 100).toFixed(0)} % of the clip is speech; trim silence, music and noise.` });
  if (levels.speechRatio > 0 && levels.leadingSilenceSec > t.edgeSilenceSec) out.push({ code: 'LONG_LEADING_SILENCE', message: `Speech starts after ${levels.leadingSilenceSec.toFixed(1)} s; trim the start.` });
  if (levels.speechRatio > 0 && levels.trailingSilenceSec > t.edgeSilenceSec) out.push({ code: 'LONG_TRAILING_SILENCE', message: `${levels.trailingSilenceSec.toFixed(1)} s of silence follow the speech; trim the end.` });
  if (levels.speechRatio > 0 && levels.snrDb < t.snrDb) out.push({ code: 'LOW_SNR', message: `The speech is about ${levels.snrDb.toFixed(0)} dB above the background noise (below ${t.snrDb} dB); record in a quieter place.` });
  if (speakers > 1) out.push({ code: 'MULTIPLE_SPEAKERS', message: 'The clip seems to hold more than one voice; a reference should hold one speaker only.' });
  return out;
}

/**
 * Cloning's speaker vector (Vosk x-vectors; validation's speaker check is speaker-change.ts).
 * Speaker vectors of the speech in windows of `speakerWindowSec` (a shorter speech segment of at
 * least 1 s is one window): the clip's vector is their normalized mean, and the speaker estimate
 * is 2 when two windows are further apart than one speaker's windows are (cosine below
 * `speakerChangeCosine`). Each window is decoded once.
 */
export async function speakerAnalysis(speech: SpeechModels, pcm: Float32Array, segments: readonly SpeechSegment[]): Promise<{ vector: Float32Array | null; speakers: number }> {
  const window = Math.round(WARNING_THRESHOLDS.speakerWindowSec * ANALYSIS_RATE);
  const windows: Float32Array[] = [];
  for (const s of segments) {
    const start = Math.floor(s.startSec * ANALYSIS_RATE);
    const end = Math.min(pcm.length, Math.ceil(s.endSec * ANALYSIS_RATE));
    if (end - start < ANALYSIS_RATE) continue;
    if (end - start < window) windows.push(pcm.subarray(start, end));
    for (let at = start; at + window <= end; at += window) windows.push(pcm.subarray(at, at + window));
  }
  // At most MAX_SPEAKER_WINDOWS, spread over the speech: the check samples the clip (a 10 s
  // reference has five windows; three cost 60 % of the recognizer's time and still span it).
  const chosen = windows.length <= MAX_SPEAKER_WINDOWS ? windows : Array.from({ length: MAX_SPEAKER_WINDOWS }, (_, k) => windows[Math.round((k * (windows.length - 1)) / (MAX_SPEAKER_WINDOWS - 1))]!);
  const vectors = (await speech.speakerVectors(chosen)).filter((v): v is Float32Array => v !== null);
  if (vectors.length === 0) return { vector: null, speakers: 1 };
  let speakers = 1;
  for (let i = 0; i < vectors.length && speakers === 1; i++) {
    for (let j = i + 1; j < vectors.length; j++) {
      if (cosine(vectors[i]!, vectors[j]!) < WARNING_THRESHOLDS.speakerChangeCosine) {
        speakers = 2;
        break;
      }
    }
  }
  const mean = new Float32Array(vectors[0]!.length);
  for (const v of vectors) {
    const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
    for (let k = 0; k < mean.length; k++) mean[k]! += v[k]! / norm;
  }
  return { vector: mean, speakers };
}

/** Cosine similarity of two vectors of the same length. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

const finite = (db: number): number => (Number.isFinite(db) ? db : -200);
