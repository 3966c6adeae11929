/**
 * The capability interface every synthesis engine implements. The node, the scheduler and the facade
 * look engines up through the registry; nothing imports a concrete engine except the registry's
 * factory table.
 */
import type { PcmAudio } from '../audio/pcm.js';

/** A voice an engine offers. `id` is "engine:name" and unique across engines. */
export interface VoiceDescriptor {
  readonly id: string;
  readonly name: string;
  readonly engine: string;
  /** Primary BCP-47 language tag, e.g. "en-US". */
  readonly language: string;
  readonly languages: readonly string[];
  readonly gender: 'female' | 'male' | 'neutral' | 'unknown';
  /** Native output rate in Hz. */
  readonly sampleRate: number;
  readonly quality: 'low' | 'medium' | 'high';
  readonly description: string;
}

/** One unit of work: a single sentence (or short chunk) of already-normalized text. */
export interface EngineInput {
  readonly text: string;
  /** Voice id ("engine:name") of this engine. */
  readonly voice: string;
  /**
   * IPA to render instead of `text` (an SSML `<phoneme>`), given only to engines whose `features`
   * include "ipa-input"; `text` then holds the words it spells.
   */
  readonly phonemes?: string;
  /**
   * `text` in parts, some said by their IPA (pronunciation lexicon entries), given only to engines
   * whose `features` include "ipa-input": the engine says the IPA inline, within the one call, so
   * the sentence keeps its prosody. The parts' texts joined are `text`.
   */
  readonly parts?: readonly TextPart[];
  /** Requested speed factor (1 = normal). Engines apply it natively within `nativeSpeed`. */
  readonly speed: number;
  /** Aborted when the caller cancels; engines stop or discard the work. */
  readonly signal?: AbortSignal;
  /**
   * The reference clip of a clone request (as uploaded). Engines that clone from audio use it;
   * the others ignore it (the node then adapts their nearest voice, cloning/clone.ts).
   */
  readonly reference?: { readonly audio: Uint8Array; readonly filename: string };
}

/** A part of an input's text: words to read, or words to say by their IPA. */
export interface TextPart {
  /** The words as written. */
  readonly text: string;
  /** IPA (espeak-ng's symbols) to say instead of reading `text`. */
  readonly ipa?: string;
}

/** A word of the input and where the engine put it in its audio (seconds from the audio's start). */
export interface WordTiming {
  /** The input's token as written (e.g. "1999", however many words the engine read it as). */
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

/** What an engine returns for one input. */
export interface EngineOutput {
  readonly audio: PcmAudio;
  /** True when the engine applied `speed` itself; otherwise the node time-stretches. */
  readonly speedApplied: boolean;
  /** The words' timings from the engine's own segment timings, in order; absent when it has none. */
  readonly words?: readonly WordTiming[];
}

/** Speed factors an engine applies natively (without time-stretching). */
export interface SpeedRange {
  readonly min: number;
  readonly max: number;
}

/** Bounds of the first chunk of a streamed request (see prepareText). */
export interface FirstChunkPolicy {
  readonly maxChars: number;
  readonly minChars: number;
  /** Cut at a word when no clause boundary falls within the bounds (faster start, a phrase break mid-clause). */
  readonly cutAtWord: boolean;
}

/** A synthesis engine. */
export interface SynthesisEngine {
  /** Registry name, e.g. "flite"; the prefix of its voice ids. */
  readonly name: string;
  readonly description: string;
  /** Speed factors applied natively; null when the engine has no rate control. */
  readonly nativeSpeed: SpeedRange | null;
  /** Largest batch `synthesize` accepts; 1 for engines without batching. */
  readonly maxBatchSize: number;
  /** Syntheses the engine runs at once (worker threads, processes, ...). */
  readonly concurrency: number;
  /** Execution device actually in use ("cpu", "cuda", ...). */
  readonly device: string;
  /** Extra capabilities advertised to clients, e.g. "phonemize", "multilingual". */
  readonly features: readonly string[];
  /**
   * How a streamed request's first chunk is cut, for engines whose cost per call makes the
   * default (a clause of 20 to 60 characters) too slow to start. @default the pipeline's default
   */
  readonly streamingFirstChunk?: FirstChunkPolicy;
  /** Loads models / starts workers. Rejects when the engine cannot run on this machine. */
  load(): Promise<void>;
  /** Voices available once loaded. */
  voices(): readonly VoiceDescriptor[];
  /** Synthesizes each input; the result at index i answers input i. */
  synthesize(batch: readonly EngineInput[]): Promise<EngineOutput[]>;
  /**
   * Releases what `load()` took (models, processes, worker threads) so its memory returns to the
   * system, keeping the engine able to `load()` again (idle unload, engines/residency.ts). Called
   * only while no synthesis runs. Absent: the engine stays loaded.
   */
  unload?(): Promise<void>;
  /** Stops workers and frees resources. */
  close(): Promise<void>;
}

/** Converts text to IPA phonemes (espeak-ng), as Piper-format voices expect. */
export interface Phonemizer {
  /**
   * Phonemizes `text` with the espeak-ng voice `espeakVoice` (e.g. "en-us").
   * Returns one IPA string per clause/sentence, with punctuation kept as Piper does.
   */
  phonemize(text: string, espeakVoice: string): Promise<string[]>;
}
