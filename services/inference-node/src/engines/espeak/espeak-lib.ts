/**
 * libespeak-ng bindings through koffi. libespeak-ng keeps its state (selected voice, parameters,
 * synthesis callback) in globals and is not thread-safe, so every call of the process goes through
 * ONE worker thread (`espeak-worker.ts`); nothing else may open it.
 */
import koffi, { type IKoffiLib } from 'koffi';
import { int16ToFloat } from '../../audio/pcm.js';
import { TtsError } from '@tts/common/errors';
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
  // espeak_VOICE (speak_lib.h). `languages` is a packed list in the voices espeak lists (read as a
  // pointer), and one language as a string in the spec of the voices asked for.
  const voiceLayout = (languages: 'void *' | 'const char *'): ReturnType<typeof koffi.struct> =>
    koffi.struct({ name: 'const char *', languages, identifier: 'const char *', gender: 'uint8_t', age: 'uint8_t', variant: 'uint8_t', xx1: 'uint8_t', score: 'int', spare: 'void *' });
  const Voice = voiceLayout('void *');
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
  const VoiceSpec = voiceLayout('const char *');
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
   * Word timings from the events, one per token of the text (whitespace-separated, named without its
   * surrounding punctuation; a token of punctuation alone gets none), in order. A word event's span
   * runs from its time to the first pause phoneme after its sounds, the next word event, or the
   * end, whichever comes first. Several events on one token (espeak reads "1999" as two words, "$20"
   * as two) are merged. One event may cover several tokens: espeak names no word of its own for an
   * unstressed function word after a preposition ("on the smooth", "at once"), its phonemes
   * following the preposition's under one event. The tokens from the event's to the one before the
   * next event's are then given the span's sound phonemes in proportion to their letters (at least
   * one each; time in that proportion when there are fewer phonemes than tokens).
   */
  const wordsOf = (text: string): WordTiming[] => {
    const chars = Array.from(text);
    const tokens: { name: string; weight: number }[] = [];
    /** Token index of each character; white space counts to the token after it (the last one at the end). */
    const tokenOf: number[] = [];
    for (let i = 0; i < chars.length; i++) {
      if (/\s/u.test(chars[i]!)) tokenOf.push(-1);
      else {
        if (i === 0 || tokenOf[i - 1] === -1) tokens.push({ name: '', weight: 0 });
        tokens[tokens.length - 1]!.name += chars[i]!;
        tokenOf.push(tokens.length - 1);
      }
    }
    for (let i = chars.length - 1, next = tokens.length - 1; i >= 0; i--) {
      if (tokenOf[i] === -1) tokenOf[i] = next;
      else next = tokenOf[i]!;
    }
    for (const token of tokens) {
      token.name = token.name.replace(/^[^\p{L}\p{N}$£€#@]+|[^\p{L}\p{N}%]+$/gu, '');
      token.weight = Array.from(token.name).length;
    }
    if (tokens.length === 0) return [];
    const tokenAt = (position: number): number => tokenOf[Math.min(Math.max(position - 1, 0), tokenOf.length - 1)] ?? 0;
    const words: { word: string; start: number; end: number; token: number }[] = [];
    const wordMarks = marks.flatMap((m, i) => (m.kind === 'word' ? [i] : []));
    wordMarks.forEach((i, n) => {
      const m = marks[i]!;
      // The phonemes under this event, up to the next word event or the end (`terminal`).
      const phonemes: { ms: number; sound: boolean }[] = [];
      let j = i + 1;
      for (; j < marks.length && marks[j]!.kind !== 'word' && marks[j]!.kind !== 'end'; j++) phonemes.push({ ms: marks[j]!.ms, sound: marks[j]!.kind === 'sound' });
      const terminal = marks[j]?.ms ?? phonemes[phonemes.length - 1]?.ms ?? m.ms;
      const last = words[words.length - 1];
      const lastToken = last?.token ?? -1;
      const own = Math.max(tokenAt(m.at), lastToken);
      // The next event on this token or a later one (espeak was seen to end with a word event on an
      // earlier dash, "fact — U.S.A. ... at once", which must not cut "once" off).
      const after = wordMarks.slice(n + 1).find((k) => tokenAt(marks[k]!.at) >= own);
      const until = after === undefined ? tokens.length - 1 : Math.max(own, tokenAt(marks[after]!.at) - 1);
      /** The span's pieces: the last token continued (a token of several events), else from the first untimed token; then the tokens up to the next event's. */
      const pieces: number[] = [];
      for (let t = own === lastToken ? lastToken : lastToken + 1; t <= until; t++) if (t === lastToken || tokens[t]!.weight > 0) pieces.push(t);
      if (pieces.length === 0) return;
      const sounds = phonemes.flatMap((p, k) => (p.sound ? [k] : []));
      // An event with nothing to say on a token already timed (the trailing one on the dash above).
      if (sounds.length === 0 && pieces.length === 1 && pieces[0] === lastToken) return;
      const weights = pieces.map((t) => Math.max(tokens[t]!.weight, 1));
      const total = weights.reduce((a, b) => a + b, 0);
      /**
       * Start and end of each piece (ms): from its first sound (the event's time for the first) to
       * the first pause after that sound, the next piece's first sound, or the terminal.
       */
      const spans: [number, number][] = [];
      if (sounds.length >= pieces.length) {
        // First sound (index into `sounds`) of each piece, in proportion to the letters before it.
        const first: number[] = [0];
        let before = 0;
        for (let k = 1; k < pieces.length; k++) {
          before += weights[k - 1]!;
          first.push(Math.min(Math.max(Math.round((sounds.length * before) / total), first[k - 1]! + 1), sounds.length - (pieces.length - k)));
        }
        for (let k = 0; k < pieces.length; k++) {
          const from = sounds[first[k]!]!;
          const to = k + 1 < pieces.length ? sounds[first[k + 1]!]! : phonemes.length;
          const pause = phonemes.slice(from + 1, to).find((p) => !p.sound);
          spans.push([k === 0 ? m.ms : phonemes[from]!.ms, pause?.ms ?? phonemes[to]?.ms ?? terminal]);
        }
      } else {
        // Fewer sounds than pieces (none, at worst): the span's time in proportion to the letters.
        const firstPause = phonemes.findIndex((p, k) => !p.sound && phonemes.slice(0, k).some((q) => q.sound));
        const spanEnd = firstPause >= 0 ? phonemes[firstPause]!.ms : terminal;
        let before = 0;
        for (const w of weights) {
          spans.push([m.ms + ((spanEnd - m.ms) * before) / total, m.ms + ((spanEnd - m.ms) * (before + w)) / total]);
          before += w;
        }
      }
      pieces.forEach((t, k) => {
        const [start, stop] = spans[k]!;
        const previous = words[words.length - 1];
        if (previous !== undefined && previous.token === t) previous.end = Math.max(previous.end, stop / 1000);
        else words.push({ word: tokens[t]!.name, start: start / 1000, end: stop / 1000, token: t });
      });
    });
    return words.map(({ word, start, end }) => ({ word, start, end }));
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
