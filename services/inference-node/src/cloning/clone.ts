/**
 * Voice cloning with what offline models allow. No zero-shot cloning model is available here, so
 * a clone request is served by the node's own voice nearest to the reference, adapted to it:
 *
 * 1. The reference is analysed like a validated clip: its speaker vector (Vosk x-vectors over 2 s
 *    windows of speech, averaged), its median pitch (YIN) and its pace (words per minute of speech,
 *    from the recognizer).
 * 2. Each English voice of the node has a profile measured the same way on a calibration text
 *    (once per node, kept in memory): the voice with the highest cosine similarity is chosen.
 * 3. Its pitch is moved to the reference's median (rubberband, at most +-7 semitones) and its pace
 *    to the reference's (0.75 to 1.35 times).
 * 4. The request's first words are spoken by the chosen voice as it is and adapted, and both are
 *    compared with the reference (speaker vectors): the adaptation is applied only when it
 *    measured closer, and the answer reports both similarities (measured, not assumed).
 *
 * The engine request carries the reference audio (`EngineInput.reference`), so an engine that
 * clones from audio plugs in without any change to the API.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TtsError, type Logger } from '@tts/common';
import type { CloneReport } from '@tts/proto/synthesis';
import { decodeWithFfmpeg, samplesAt } from '../audio/index.js';
import type { EngineRegistry } from '../engines/registry.js';
import { ANALYSIS_RATE, cosine, speakerAnalysis, type AnalysisModels } from '../analysis/reference.js';

/** The text every voice's profile is measured on (about 12 s of speech, common English sounds). */
export const CALIBRATION_TEXT =
  'Please call Stella. Ask her to bring these things with her from the store: six spoons of fresh snow peas, five thick slabs of blue cheese, and maybe a snack for her brother Bob. We also need a small plastic snake and a big toy frog for the kids.';
const CALIBRATION_WORDS = CALIBRATION_TEXT.split(/\s+/).length;

/** Voices of one engine compared with a reference. */
const MAX_CANDIDATES_PER_ENGINE = 4;

/** Bounds of the adaptation. */
export const CLONE_LIMITS = Object.freeze({ maxSemitones: 7, minSpeed: 0.75, maxSpeed: 1.35 });

/** What cloning needs to know of a voice or a reference. */
export interface SpeakerProfile {
  readonly vector: Float32Array;
  readonly medianF0Hz: number;
  readonly wordsPerMinute: number;
}

/** A profile as kept on disk. */
interface StoredProfile {
  readonly vector: number[];
  readonly medianF0Hz: number;
  readonly wordsPerMinute: number;
}

/** Bumped when the calibration text or the measurements change, so old profiles are measured again. */
const PROFILE_VERSION = 1;

/** What a clone request will do. */
export interface ClonePlan {
  readonly voice: string;
  readonly pitchRatio: number;
  readonly speed: number;
  readonly reference: SpeakerProfile;
  readonly voiceProfile: SpeakerProfile;
  readonly similarityBefore: number;
  readonly candidates: number;
}

/** Measures speaker profiles: of references, of the node's voices (cached), and of outputs. */
export class Cloner {
  private readonly profiles = new Map<string, Promise<SpeakerProfile | undefined>>();
  private stored: Promise<Record<string, StoredProfile>> | undefined;

  constructor(
    private readonly registry: EngineRegistry,
    private readonly models: AnalysisModels,
    private readonly logger: Logger,
    /** File the voices' profiles are kept in between runs (DATA_DIR/voice-profiles.json); none = memory only. */
    private readonly cacheFile?: string,
  ) {}

  private storedProfiles(): Promise<Record<string, StoredProfile>> {
    this.stored ??= (async () => {
      if (this.cacheFile === undefined) return {};
      try {
        const file = JSON.parse(await readFile(this.cacheFile, 'utf8')) as { version?: number; profiles?: Record<string, StoredProfile> };
        return file.version === PROFILE_VERSION && file.profiles ? file.profiles : {};
      } catch {
        return {};
      }
    })();
    return this.stored;
  }

  private async remember(voiceId: string, p: SpeakerProfile): Promise<void> {
    if (this.cacheFile === undefined) return;
    const all = await this.storedProfiles();
    all[voiceId] = { vector: Array.from(p.vector), medianF0Hz: p.medianF0Hz, wordsPerMinute: p.wordsPerMinute };
    try {
      await mkdir(path.dirname(this.cacheFile), { recursive: true, mode: 0o700 });
      const temporary = `${this.cacheFile}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify({ version: PROFILE_VERSION, profiles: all }), { mode: 0o600 });
      await rename(temporary, this.cacheFile);
    } catch (err) {
      this.logger.warn('voice profiles not saved', { file: this.cacheFile, err });
    }
  }

  /** The profile of mono 16 kHz speech; `words` known (a calibration text) or recognized. */
  async profileOf(pcm16k: Float32Array, words?: number): Promise<SpeakerProfile | undefined> {
    const vad = await this.models.vad();
    const speech = await this.models.speech();
    if (!vad || !speech) return undefined;
    const segments = await vad.segments({ samples: pcm16k, sampleRate: ANALYSIS_RATE });
    const { vector } = await speakerAnalysis(speech, pcm16k, segments);
    if (!vector) return undefined;
    const speechSec = segments.reduce((s, x) => s + (x.endSec - x.startSec), 0);
    const count = words ?? (await speech.transcribe(pcm16k)).words.length;
    const pitch = await this.models.pitch({ samples: pcm16k, sampleRate: ANALYSIS_RATE, segments });
    return { vector, medianF0Hz: pitch.medianHz, wordsPerMinute: speechSec > 0 ? (count / speechSec) * 60 : 0 };
  }

  /**
   * The candidate voices: the node's English voices, at most four per engine (US English first;
   * espeak-ng's thirty English variants share one synthesizer and differ little in timbre).
   */
  candidates(): string[] {
    return this.registry.ready().flatMap((engine) => {
      const english = this.registry.voicesOf(engine.name).filter((v) => v.language.toLowerCase().startsWith('en'));
      const us = english.filter((v) => v.language.toLowerCase() === 'en-us');
      return [...us, ...english.filter((v) => !us.includes(v))].slice(0, MAX_CANDIDATES_PER_ENGINE).map((v) => v.id);
    });
  }

  /** The profile of one of the node's voices, measured once. */
  voiceProfile(voiceId: string): Promise<SpeakerProfile | undefined> {
    let p = this.profiles.get(voiceId);
    if (!p) {
      p = this.measureVoice(voiceId).catch((err: unknown) => {
        this.logger.warn('voice profile failed', { voice: voiceId, err });
        return undefined;
      });
      this.profiles.set(voiceId, p);
    }
    return p;
  }

  private async measureVoice(voiceId: string): Promise<SpeakerProfile | undefined> {
    const known = (await this.storedProfiles())[voiceId];
    if (known) return { vector: Float32Array.from(known.vector), medianF0Hz: known.medianF0Hz, wordsPerMinute: known.wordsPerMinute };
    const { engine, voice } = this.registry.resolve(voiceId);
    const [out] = await this.registry.use(engine.name, () => engine.synthesize([{ text: CALIBRATION_TEXT, voice: voice.id, speed: 1 }]));
    if (!out) return undefined;
    const profile = await this.profileOf(samplesAt(out.audio, ANALYSIS_RATE), CALIBRATION_WORDS);
    if (profile) await this.remember(voiceId, profile);
    return profile;
  }

  /** Analyses the reference and picks and adapts the nearest voice. */
  async plan(referenceBytes: Uint8Array, signal?: AbortSignal): Promise<ClonePlan> {
    if (referenceBytes.length === 0) throw new TtsError('UPLOAD_EMPTY', 'The reference audio is empty.', { loc: ['speech', 'clone', 'reference_audio'] });
    const audio = await decodeWithFfmpeg(referenceBytes, { sampleRate: ANALYSIS_RATE, maxSeconds: 60, ...(signal ? { signal } : {}) });
    const reference = await this.profileOf(audio.samples);
    if (!reference) throw new TtsError('ANALYSIS_UNAVAILABLE', 'The reference holds too little speech for a speaker vector, or the speaker model is not installed.', { loc: ['speech', 'clone', 'reference_audio'] });
    const ids = this.candidates();
    let best: { id: string; profile: SpeakerProfile; similarity: number } | undefined;
    for (const id of ids) {
      const profile = await this.voiceProfile(id);
      if (!profile) continue;
      const similarity = cosine(reference.vector, profile.vector);
      if (!best || similarity > best.similarity) best = { id, profile, similarity };
    }
    if (!best) throw new TtsError('ANALYSIS_UNAVAILABLE', 'No voice of this node could be profiled for cloning.');
    const semitones = reference.medianF0Hz > 0 && best.profile.medianF0Hz > 0 ? clamp(12 * Math.log2(reference.medianF0Hz / best.profile.medianF0Hz), -CLONE_LIMITS.maxSemitones, CLONE_LIMITS.maxSemitones) : 0;
    const speed = reference.wordsPerMinute > 0 && best.profile.wordsPerMinute > 0 ? clamp(reference.wordsPerMinute / best.profile.wordsPerMinute, CLONE_LIMITS.minSpeed, CLONE_LIMITS.maxSpeed) : 1;
    return { voice: best.id, pitchRatio: 2 ** (semitones / 12), speed, reference, voiceProfile: best.profile, similarityBefore: best.similarity, candidates: ids.length };
  }

  /**
   * Measures whether the adaptation brings the voice closer to the reference: the request's first
   * words (up to PROBE_CHARS) spoken by the chosen voice as it is and adapted, each compared with
   * the reference. The adaptation is applied only when it measured closer; the report says which.
   */
  async decide(plan: ClonePlan, speak: (adapted: boolean) => Promise<Uint8Array>, signal?: AbortSignal): Promise<CloneReport> {
    const similarityOf = async (bytes: Uint8Array): Promise<number> => {
      const audio = await decodeWithFfmpeg(bytes, { sampleRate: ANALYSIS_RATE, ...(signal ? { signal } : {}) });
      const p = await this.profileOf(audio.samples, 1);
      return p ? cosine(plan.reference.vector, p.vector) : 0;
    };
    const before = await similarityOf(await speak(false));
    const changes = Math.abs(plan.pitchRatio - 1) > 1e-3 || Math.abs(plan.speed - 1) > 1e-3;
    const after = changes ? await similarityOf(await speak(true)) : before;
    return {
      voice: plan.voice,
      similarityBefore: before,
      similarityAfter: after,
      adapted: changes && after > before,
      pitchSemitones: 12 * Math.log2(plan.pitchRatio),
      speed: plan.speed,
      referenceF0Hz: plan.reference.medianF0Hz,
      voiceF0Hz: plan.voiceProfile.medianF0Hz,
      referenceWordsPerMinute: plan.reference.wordsPerMinute,
      voiceWordsPerMinute: plan.voiceProfile.wordsPerMinute,
      candidates: plan.candidates,
    };
  }
}

/** Characters of the request spoken to measure the adaptation (about 10 s of speech). */
export const PROBE_CHARS = 160;

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));
