/**
 * The espeak engine: eSpeak NG formant voices for about a hundred languages, synthesized in-process
 * (libespeak-ng through koffi) on the one espeak thread of the process (see `espeak-host.ts`).
 * Speed is applied natively through the speaking rate (175 wpm at speed 1, 80..450 wpm).
 * Also provides the espeak-ng IPA phonemizer Piper-format voices use.
 */
import { TtsError } from '@tts/common';
import type { EngineInput, EngineOutput, Phonemizer, SpeedRange, SynthesisEngine, TextPart, VoiceDescriptor, WordTiming } from '../engine.js';
import { checkedInput, throwIfCancelled, voiceNameOf } from '../workers/input-checks.js';
import { splitClauses, joinClauses } from './clauses.js';
import { acquireEspeakHost, type EspeakHost } from './espeak-host.js';
import { DEFAULT_ESPEAK_LIBRARY, ESPEAK_RATE_WPM } from './espeak-lib.js';
import { ipaToEspeak } from './ipa.js';
import { buildVoiceTable, type EspeakVoiceTable } from './voices.js';

/** Options of {@link createEspeakEngine} and {@link createEspeakPhonemizer}. */
export interface EspeakOptions {
  /** libespeak-ng soname or path. @default "libespeak-ng.so.1" */
  readonly library?: string;
}

/** The espeak engine. */
export type EspeakEngine = SynthesisEngine;

/** An espeak-ng phonemizer holding a reference to the shared espeak thread until closed. */
export interface EspeakPhonemizer extends Phonemizer {
  /** Releases the espeak thread (it stops when nothing else uses it). */
  close(): Promise<void>;
}

class EspeakEngineImpl implements EspeakEngine {
  readonly name = 'espeak';
  readonly description = 'eSpeak NG formant synthesis, ~100 languages, in-process (libespeak-ng) on one dedicated thread.';
  readonly nativeSpeed: SpeedRange = { min: ESPEAK_RATE_WPM.min / ESPEAK_RATE_WPM.normal, max: ESPEAK_RATE_WPM.max / ESPEAK_RATE_WPM.normal };
  readonly maxBatchSize = 1;
  /** libespeak-ng is not thread-safe: one synthesis at a time. */
  readonly concurrency = 1;
  readonly device = 'cpu';
  readonly features: readonly string[] = ['multilingual', 'phonemize', 'ipa-input'];
  private host: EspeakHost | null = null;
  private table: EspeakVoiceTable = { descriptors: [], selectors: new Map() };

  constructor(private readonly library: string) {}

  async load(): Promise<void> {
    if (this.host) return;
    const host = await acquireEspeakHost(this.library);
    try {
      const listing = await host.request({ kind: 'voices' });
      this.table = buildVoiceTable(listing.voices, listing.variants, listing.sampleRate);
    } catch (err) {
      await host.release();
      throw err;
    }
    this.host = host;
  }

  voices(): readonly VoiceDescriptor[] {
    return this.table.descriptors;
  }

  synthesize(batch: readonly EngineInput[]): Promise<EngineOutput[]> {
    return Promise.all(batch.map((input) => this.synthesizeOne(input)));
  }

  private async synthesizeOne(input: EngineInput): Promise<EngineOutput> {
    throwIfCancelled(input.signal, this.name);
    const host = this.host;
    if (!host) throw new TtsError('TTS_ENGINE_UNAVAILABLE', 'espeak: the engine is not loaded.', { retryAfterSec: 5 });
    const name = voiceNameOf(input.voice, this.name, (n) => this.table.selectors.has(n));
    const { nativeSpeed, speedApplied } = checkedInput(input, this.nativeSpeed);
    const res = await host.request(
      {
        kind: 'synthesize',
        // An SSML <phoneme>'s IPA goes in as espeak's own phoneme mnemonics, read only with the phoneme
        // flag; lexicon entries' IPA goes in the same way, inline within the sentence's text.
        ...(input.phonemes !== undefined
          ? { text: `[[${ipaToEspeak(input.phonemes)}]]`, phonemeInput: true }
          : input.parts !== undefined ? { text: espeakTextOf(input.parts), phonemeInput: true } : { text: input.text }),
        voice: this.table.selectors.get(name)!,
        wpm: ESPEAK_RATE_WPM.normal * nativeSpeed,
      },
      input.signal,
    );
    const words = input.parts === undefined ? res.words : namePhonemeWords(res.words, input.parts);
    return { audio: { samples: res.samples, sampleRate: res.sampleRate }, speedApplied, words };
  }

  /** Releases the engine's reference to the espeak thread (it stops unless the piper phonemizer still holds it); `load()` takes it again. */
  unload(): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    const host = this.host;
    this.host = null;
    this.table = { descriptors: [], selectors: new Map() };
    await host?.release();
  }
}

/**
 * The text of parts as espeak reads it with phoneme input on: words as they are (a "[[" of theirs
 * broken, so it cannot open phonemes) and each part's IPA as `[[mnemonics]]` between spaces.
 */
function espeakTextOf(parts: readonly TextPart[]): string {
  return parts.map((p) => (p.ipa === undefined ? p.text.replace(/\[(?=\[)/g, '[ ') : ` [[${ipaToEspeak(p.ipa)}]] `)).join('');
}

/**
 * Word timings of an input with parts: espeak names the words of a part said by its IPA by their
 * mnemonics ("t@m'A:toU"); they are named by the part's words instead, one timing per part.
 */
function namePhonemeWords(words: readonly WordTiming[], parts: readonly TextPart[]): WordTiming[] {
  // espeak-lib names a word by its token without the punctuation around it.
  const nameOf = (token: string): string => token.replace(/^[^\p{L}\p{N}$£€#@]+|[^\p{L}\p{N}%]+$/gu, '');
  const spoken = parts.flatMap((p, part) => (p.ipa === undefined ? [] : ipaToEspeak(p.ipa).split(' ').filter((t) => t !== '').map((token) => ({ name: nameOf(token), part, text: p.text }))));
  const out: WordTiming[] = [];
  let next = 0;
  let lastPart = -1;
  for (const w of words) {
    const expected = spoken[next];
    if (expected === undefined || expected.name !== w.word) {
      out.push(w);
      lastPart = -1;
      continue;
    }
    next++;
    const previous = out[out.length - 1];
    if (previous !== undefined && lastPart === expected.part) out[out.length - 1] = { ...previous, end: w.end };
    else out.push({ word: expected.text, start: w.start, end: w.end });
    lastPart = expected.part;
  }
  return out;
}

/** Creates the espeak engine (call `load()` before use). */
export function createEspeakEngine(options: EspeakOptions = {}): EspeakEngine {
  return new EspeakEngineImpl(options.library ?? DEFAULT_ESPEAK_LIBRARY);
}

/**
 * Creates the espeak-ng IPA phonemizer (Piper style, see `clauses.ts`): one IPA string per sentence,
 * clause punctuation kept. It starts (or shares) the espeak thread on first use. `espeakVoice` is an
 * espeak voice or language name ("en-us", "de", "fr-fr"); an unknown one rejects with `TTS_VOICE_NOT_FOUND`.
 */
export function createEspeakPhonemizer(options: EspeakOptions = {}): EspeakPhonemizer {
  const library = options.library ?? DEFAULT_ESPEAK_LIBRARY;
  let host: Promise<EspeakHost> | null = null;
  return {
    async phonemize(text, espeakVoice) {
      host ??= acquireEspeakHost(library).catch((err: unknown) => {
        host = null;
        throw err;
      });
      const clauses = splitClauses(text);
      if (clauses.length === 0) return [];
      const res = await (await host).request({ kind: 'phonemize', voice: espeakVoice, clauses: clauses.map((c) => c.text) });
      return joinClauses(clauses, res.phonemes);
    },
    async close() {
      const h = host;
      host = null;
      if (h) await (await h.catch(() => null))?.release();
    },
  };
}
