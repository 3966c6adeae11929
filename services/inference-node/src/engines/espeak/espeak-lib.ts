/**
 * libespeak-ng bindings through koffi. libespeak-ng keeps its state (selected voice, parameters,
 * synthesis callback) in globals and is not thread-safe, so every call of the process goes through
 * ONE worker thread (`espeak-worker.ts`); nothing else may open it.
 */
import koffi, { type IKoffiLib } from 'koffi';
import { int16ToFloat } from '../../audio/pcm.js';
import { TtsError } from '@tts/common';
import type { WordTiming } from '../engine.js';

/** The default libespeak-ng shared object. */
export const DEFAULT_ESPEAK_LIBRARY = 'libespeak-ng.so.1';

/** One entry of `espeak_ListVoices`. */
export interface EspeakVoiceInfo {
  /** Display name, e.g. "English (America)". */
  readonly name: string;
  /** File name under espeak-ng-data/voices, e.g. "gmw/en-US"; variants are "!v/f3". */
  readonly identifier: string;
  /** 0 none, 1 male, 2 female. */
  readonly gender: number;
  /** Language names in the voice's order, e.g. ["en-us", "en"]. */
  readonly languages: readonly string[];
}

/** An initialized libespeak-ng. */
export interface EspeakLibrary {
  /** Output sample rate in Hz (22050). */
  readonly sampleRate: number;
  /** The installed voices (variants excluded). */
  listVoices(): EspeakVoiceInfo[];
  /** The installed voice variants ("!v/..."). */
  listVariants(): EspeakVoiceInfo[];
  /**
   * Synthesizes `text` (UTF-8, no SSML) with `voice` (name, language or "identifier+variant") at
   * `wpm`, with its words' timings. With `phonemeInput`, `[[...]]` in the text is read as espeak
   * phoneme mnemonics.
   */
  synthesize(text: string, voice: string, wpm: number, phonemeInput?: boolean): { samples: Float32Array; words: WordTiming[] };
  /** Selects `voice` (a voice name, language or identifier); throws `TTS_VOICE_NOT_FOUND` when none matches. */
  selectVoice(voice: string): void;
  /** IPA of `text` for the selected voice: espeak's chunks joined with a space. */
  textToPhonemes(text: string): string;
}

const AUDIO_OUTPUT_SYNCHRONOUS = 2;
const INITIALIZE_DONT_EXIT = 0x8000;
const INITIALIZE_PHONEME_EVENTS = 0x0001;
/** espeak_EVENT_TYPE values read here. */
const EVENT_LIST_TERMINATED = 0;
const EVENT_WORD = 1;
const EVENT_END = 5;
const EVENT_MSG_TERMINATED = 6;
const EVENT_PHONEME = 7;
const ESPEAK_RATE = 1;
const CHARS_UTF8 = 1;
/** espeakPHONEMES: text within [[ ]] is phoneme mnemonics. */
const PHONEME_INPUT = 0x100;
const POS_CHARACTER = 1;
const PHONEMES_IPA = 0x02;
const EE_OK = 0;

/** Default, slowest and fastest rates in words per minute. */
export const ESPEAK_RATE_WPM = { normal: 175, min: 80, max: 450 } as const;

let opened: { library: string; binding: EspeakLibrary } | null = null;

/**
 * Opens and initializes libespeak-ng (synchronous output, callback collecting samples). One per
 * thread and library; throws `TTS_ENGINE_UNAVAILABLE` when the library or its data is missing.
 */
export function openEspeak(library: string = DEFAULT_ESPEAK_LIBRARY, dataPath: string | null = null): EspeakLibrary {
  if (opened) {
    if (opened.library !== library) throw new Error(`espeak: ${opened.library} is already open in this thread`);
    return opened.binding;
  }
  let lib: IKoffiLib;
  try {
    lib = koffi.load(library);
  } catch (err) {
    throw new TtsError('TTS_ENGINE_UNAVAILABLE', `espeak: cannot load ${library}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const Voice = koffi.struct({
    name: 'const char *',
    languages: 'void *',
    identifier: 'const char *',
    gender: 'uint8_t',
    age: 'uint8_t',
    variant: 'uint8_t',
    xx1: 'uint8_t',
    score: 'int',
    spare: 'void *',
  });
  // espeak_EVENT (speak_lib.h): type, unique_identifier, text_position (characters, from 1), length
  // (characters), audio_position (ms of the output), sample, user_data, id (a phoneme's mnemonic).
  const Event = koffi.struct({ type: 'int', unique_identifier: 'uint', text_position: 'int', length: 'int', audio_position: 'int', sample: 'int', user_data: 'void *', id: koffi.array('char', 8, 'Array') });
  const SynthCallback = koffi.proto('int', ['int16_t *', 'int', 'void *']);
  const initialize = lib.func('int espeak_Initialize(int output, int buflength, const char *path, int options)');
  const setSynthCallback = lib.func('void espeak_SetSynthCallback(void *callback)');
  const setVoiceByName = lib.func('int espeak_SetVoiceByName(const char *name)');
  const setParameter = lib.func('int espeak_SetParameter(int parameter, int value, int relative)');
  const synth = lib.func('int espeak_Synth(const void *text, size_t size, unsigned int position, int position_type, unsigned int end_position, unsigned int flags, void *unique_identifier, void *user_data)');
  const listVoicesRaw = lib.func('void *espeak_ListVoices(void *voice_spec)');
  // Same layout as Voice, with `languages` as an input string (the spec passed to espeak_ListVoices).
  const VoiceSpec = koffi.struct({
    name: 'const char *',
    languages: 'const char *',
    identifier: 'const char *',
    gender: 'uint8_t',
    age: 'uint8_t',
    variant: 'uint8_t',
    xx1: 'uint8_t',
    score: 'int',
    spare: 'void *',
  });
  const listVoicesBySpec = lib.func('espeak_ListVoices', 'void *', [koffi.pointer(VoiceSpec)]);
  const textToPhonemesRaw = lib.func('const char *espeak_TextToPhonemes(_Inout_ void **textptr, int textmode, int phonememode)');

  const sampleRate = initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, dataPath, INITIALIZE_DONT_EXIT | INITIALIZE_PHONEME_EVENTS) as number;
  if (sampleRate <= 0) throw new TtsError('TTS_ENGINE_UNAVAILABLE', `espeak: espeak_Initialize failed (${sampleRate}); is espeak-ng-data installed?`);

  let chunks: Int16Array[] = [];
  /** The word, pause and end events of the current synthesis, in order. */
  let marks: { kind: 'word' | 'pause' | 'sound' | 'end'; ms: number; at: number; length: number }[] = [];
  // Registered once per thread and kept for the thread's life; the library calls it synchronously.
  const callback = koffi.register((wav: unknown, count: number, events: unknown) => {
    if (wav !== null && count > 0) chunks.push(koffi.decode(wav, 'int16_t', count) as Int16Array);
    for (let i = 0; events !== null; i++) {
      const e = koffi.decode(events, i * koffi.sizeof(Event), Event) as { type: number; text_position: number; length: number; audio_position: number; id: number[] };
      if (e.type === EVENT_LIST_TERMINATED) break;
      if (e.type === EVENT_WORD) marks.push({ kind: 'word', ms: e.audio_position, at: e.text_position, length: e.length });
      else if (e.type === EVENT_PHONEME) marks.push({ kind: e.id[0] === 0x5f ? 'pause' : 'sound', ms: e.audio_position, at: 0, length: 0 }); // "_": a pause
      else if (e.type === EVENT_END || e.type === EVENT_MSG_TERMINATED) marks.push({ kind: 'end', ms: e.audio_position, at: 0, length: 0 });
    }
    return 0;
  }, koffi.pointer(SynthCallback));

  /**
   * Word timings from the events: a word starts at its word event and ends at the first pause
   * phoneme after its sounds, the next word's start, or the end, whichever comes first. Words read
   * from one whitespace-separated token of the text (espeak reads "1999" as two, "$20" as two) are
   * merged and named by the token, without its surrounding punctuation. espeak-ng speaks some short
   * words with the one before as one ("on the", "of a") and gives only the first an event: the
   * span of that event is shared among those tokens by their length.
   */
  const wordsOf = (text: string): WordTiming[] => {
    const chars = Array.from(text);
    /** Token index of each character (-1 on whitespace). */
    const tokenOf: number[] = [];
    const tokens: string[] = [];
    for (let i = 0; i < chars.length; i++) {
      if (/\s/u.test(chars[i]!)) tokenOf.push(-1);
      else {
        if (i === 0 || tokenOf[i - 1] === -1) tokens.push('');
        tokens[tokens.length - 1] += chars[i]!;
        tokenOf.push(tokens.length - 1);
      }
    }
    const clean = (word: string): string => word.replace(/^[^\p{L}\p{N}$£€#@]+|[^\p{L}\p{N}%]+$/gu, '');
    const words: WordTiming[] = [];
    /** The token of each word. */
    const wordTokens: number[] = [];
    let lastToken = -1;
    for (let i = 0; i < marks.length; i++) {
      const m = marks[i]!;
      if (m.kind !== 'word') continue;
      let end: number | undefined;
      let sounded = false;
      for (let j = i + 1; j < marks.length && end === undefined; j++) {
        const next = marks[j]!;
        if (next.kind === 'sound') sounded = true;
        else if (next.kind === 'word' || next.kind === 'end' || (next.kind === 'pause' && sounded)) end = next.ms;
      }
      const token = tokenOf[m.at - 1] ?? -1;
      const start = m.ms / 1000;
      const stop = (end ?? m.ms) / 1000;
      const previous = words[words.length - 1];
      const sameToken = token >= 0 && token === lastToken;
      lastToken = token;
      if (previous !== undefined && sameToken) {
        words[words.length - 1] = { ...previous, end: stop };
        continue;
      }
      const word = clean(tokens[token] ?? chars.slice(m.at - 1, m.at - 1 + m.length).join(''));
      // No entry for a word event on nothing speakable (in some languages espeak marks the final full stop).
      if (word !== '') {
        words.push({ word, start, end: stop });
        wordTokens.push(token);
      }
    }
    return words.flatMap((w, i) => {
      const token = wordTokens[i]!;
      const next = wordTokens[i + 1] ?? tokens.length;
      if (token < 0 || next <= token + 1) return [w];
      const names = [w.word, ...tokens.slice(token + 1, next).map(clean).filter((t) => t !== '')];
      if (names.length === 1) return [w];
      const total = names.reduce((n, t) => n + t.length, 0);
      let at = w.start;
      return names.map((word) => {
        const start = at;
        at += ((w.end - w.start) * word.length) / total;
        return { word, start, end: at };
      });
    });
  };
  setSynthCallback(callback);

  const decodeVoices = (list: unknown): EspeakVoiceInfo[] => {
    let pointers: unknown[] = [];
    for (let n = 64; ; n *= 2) {
      const batch = koffi.decode(list, 'void *', n) as unknown[];
      const end = batch.indexOf(null);
      if (end >= 0) {
        pointers = batch.slice(0, end);
        break;
      }
    }
    return pointers.map((p) => {
      const v = koffi.decode(p, Voice) as { name: string; languages: unknown; identifier: string; gender: number };
      // `languages`: (priority byte, NUL-terminated name) pairs, ended by a zero priority byte.
      const languages: string[] = [];
      for (let off = 0; (koffi.decode(v.languages, off, 'uint8_t') as number) !== 0; ) {
        const lang = koffi.decode(v.languages, off + 1, 'char', -1) as string;
        languages.push(lang);
        off += 2 + Buffer.byteLength(lang);
      }
      return { name: v.name, identifier: v.identifier, gender: v.gender, languages };
    });
  };

  const binding: EspeakLibrary = {
    sampleRate,
    listVoices: () => decodeVoices(listVoicesRaw(null)),
    listVariants: () => decodeVoices(listVoicesBySpec({ name: null, languages: 'variant', identifier: null, gender: 0, age: 0, variant: 0, xx1: 0, score: 0, spare: null })),
    selectVoice(voice) {
      if (setVoiceByName(voice) === EE_OK) return;
      const wanted = voice.toLowerCase();
      const byLanguage = binding.listVoices().find((v) => !v.identifier.startsWith('mb/') && v.languages.includes(wanted));
      if (byLanguage && setVoiceByName(byLanguage.identifier) === EE_OK) return;
      throw new TtsError('TTS_VOICE_NOT_FOUND', `espeak-ng has no voice "${voice}".`, { loc: ['body', 'voice'] });
    },
    synthesize(text, voice, wpm, phonemeInput = false) {
      binding.selectVoice(voice);
      setParameter(ESPEAK_RATE, Math.round(wpm), 0);
      const bytes = Buffer.from(`${text}\0`, 'utf8');
      chunks = [];
      marks = [];
      const status = synth(bytes, bytes.length, 0, POS_CHARACTER, 0, CHARS_UTF8 | (phonemeInput ? PHONEME_INPUT : 0), null, null) as number;
      const collected = chunks;
      chunks = [];
      const words = wordsOf(text);
      marks = [];
      if (status !== EE_OK) throw new TtsError('TTS_ENGINE_FAILED', `espeak: espeak_Synth failed (${status})`);
      const total = collected.reduce((n, c) => n + c.length, 0);
      const pcm = new Int16Array(total);
      let at = 0;
      for (const c of collected) {
        pcm.set(c, at);
        at += c.length;
      }
      return { samples: int16ToFloat(pcm), words };
    },
    textToPhonemes(text) {
      const bytes = Buffer.from(`${text}\0`, 'utf8');
      const cursor: unknown[] = [bytes];
      const parts: string[] = [];
      // espeak returns one clause per call and advances the pointer, NULL at the end of the text.
      while (cursor[0] !== null) {
        const part = textToPhonemesRaw(cursor, CHARS_UTF8, PHONEMES_IPA) as string | null;
        if (part) parts.push(part.trim());
      }
      return parts.filter((p) => p !== '').join(' ');
    },
  };
  opened = { library, binding };
  return binding;
}
