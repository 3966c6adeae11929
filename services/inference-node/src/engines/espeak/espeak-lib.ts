/**
 * libespeak-ng bindings through koffi. libespeak-ng keeps its state (selected voice, parameters,
 * synthesis callback) in globals and is not thread-safe, so every call of the process goes through
 * ONE worker thread (`espeak-worker.ts`); nothing else may open it.
 */
import koffi, { type IKoffiLib } from 'koffi';
import { int16ToFloat } from '../../audio/pcm.js';
import { TtsError } from '@tts/common';

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
  /** Synthesizes `text` (UTF-8, no SSML) with `voice` (name, language or "identifier+variant") at `wpm`. */
  synthesize(text: string, voice: string, wpm: number): Float32Array;
  /** Selects `voice` (a voice name, language or identifier); throws `TTS_VOICE_NOT_FOUND` when none matches. */
  selectVoice(voice: string): void;
  /** IPA of `text` for the selected voice: espeak's chunks joined with a space. */
  textToPhonemes(text: string): string;
}

const AUDIO_OUTPUT_SYNCHRONOUS = 2;
const INITIALIZE_DONT_EXIT = 0x8000;
const ESPEAK_RATE = 1;
const CHARS_UTF8 = 1;
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

  const sampleRate = initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, dataPath, INITIALIZE_DONT_EXIT) as number;
  if (sampleRate <= 0) throw new TtsError('TTS_ENGINE_UNAVAILABLE', `espeak: espeak_Initialize failed (${sampleRate}); is espeak-ng-data installed?`);

  let chunks: Int16Array[] = [];
  // Registered once per thread and kept for the thread's life; the library calls it synchronously.
  const callback = koffi.register((wav: unknown, count: number) => {
    if (wav !== null && count > 0) chunks.push(koffi.decode(wav, 'int16_t', count) as Int16Array);
    return 0;
  }, koffi.pointer(SynthCallback));
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
    synthesize(text, voice, wpm) {
      binding.selectVoice(voice);
      setParameter(ESPEAK_RATE, Math.round(wpm), 0);
      const bytes = Buffer.from(`${text}\0`, 'utf8');
      chunks = [];
      const status = synth(bytes, bytes.length, 0, POS_CHARACTER, 0, CHARS_UTF8, null, null) as number;
      const collected = chunks;
      chunks = [];
      if (status !== EE_OK) throw new TtsError('TTS_ENGINE_FAILED', `espeak: espeak_Synth failed (${status})`);
      const total = collected.reduce((n, c) => n + c.length, 0);
      const pcm = new Int16Array(total);
      let at = 0;
      for (const c of collected) {
        pcm.set(c, at);
        at += c.length;
      }
      return int16ToFloat(pcm);
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
