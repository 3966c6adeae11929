/**
 * libflite bindings through koffi. One binding per thread (koffi state is per thread; the library
 * and its voices are loaded once per process by the dynamic linker).
 *
 * Thread safety: flite 2.2 keeps no mutable global state during synthesis (regexes are
 * pre-compiled, `hs_regexec` returns its own state, noise comes from glibc's locked `rand()`), but
 * voice registration (`register_cmu_us_*`) lazily fills a global and the per-voice feature set is
 * shared. So voices are registered once on the main thread before any worker starts, and the speed
 * is set on each utterance's own features (which shadow the voice's) instead of on the shared voice.
 * `flite.test.ts` checks concurrent output against a serial run.
 */
import koffi, { type IKoffiLib } from 'koffi';
import { dirname, join } from 'node:path';
import { int16ToFloat } from '../../audio/pcm.js';
import { TtsError } from '@tts/common/errors';
import type { WordTiming } from '../engine.js';

/** Short names of the flite voices this engine knows (library `libflite_cmu_us_<name>.so.1`). */
export const FLITE_VOICE_NAMES = ['slt', 'rms', 'awb', 'kal16'] as const;

/** A flite voice short name. */
export type FliteVoiceName = (typeof FLITE_VOICE_NAMES)[number];

/** The default libflite shared object. */
export const DEFAULT_FLITE_LIBRARY = 'libflite.so.1';

/** Synthesized audio: float samples and their rate, with the words' timings from flite's segments. */
export interface FliteAudio {
  readonly samples: Float32Array;
  readonly sampleRate: number;
  readonly words: readonly WordTiming[];
}

/** An opened libflite with its voices registered. */
export interface FliteLibrary {
  /** Voices whose library loaded. */
  readonly voices: readonly FliteVoiceName[];
  /** Synthesizes `text` on this thread; `durationStretch` > 1 slows down. */
  synthesize(text: string, voice: FliteVoiceName, durationStretch: number): FliteAudio;
}

const opened = new Map<string, FliteLibrary>();

/** True when `name` is a known flite voice short name. */
export function isFliteVoiceName(name: string): name is FliteVoiceName {
  return (FLITE_VOICE_NAMES as readonly string[]).includes(name);
}

/**
 * Opens libflite (a soname or a path; voice libraries are looked up next to a path) and registers
 * its voices. Cached per thread. Throws `TTS_ENGINE_UNAVAILABLE` when libflite or every voice is missing.
 */
export function openFlite(library: string = DEFAULT_FLITE_LIBRARY): FliteLibrary {
  const cached = opened.get(library);
  if (cached) return cached;
  let lib: IKoffiLib;
  try {
    lib = koffi.load(library);
  } catch (err) {
    throw new TtsError('TTS_ENGINE_UNAVAILABLE', `flite: cannot load ${library}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const Wave = koffi.struct({ type: 'const char *', sample_rate: 'int', num_samples: 'int', num_channels: 'int', samples: 'int16_t *' });
  const Utterance = koffi.struct({ features: 'void *', ffunctions: 'void *', relations: 'void *', ctx: 'void *' });
  const fliteInit = lib.func('int flite_init()');
  const newUtterance = lib.func('void *new_utterance()');
  const deleteUtterance = lib.func('void delete_utterance(void *u)');
  const setInputText = lib.func('void utt_set_input_text(void *u, const char *text)');
  const featSetFloat = lib.func('void flite_feat_set_float(void *features, const char *name, float v)');
  const uttInit = lib.func('void *utt_init(void *u, void *voice)');
  const uttSynth = lib.func('void *utt_synth(void *u)');
  const uttWave = lib.func('void *utt_wave(void *u)');
  const uttRelation = lib.func('void *utt_relation(void *u, const char *name)');
  const relationHead = lib.func('void *relation_head(void *r)');
  const itemNext = lib.func('void *item_next(void *i)');
  const ffeatureFloat = lib.func('float ffeature_float(void *item, const char *featpath)');
  const ffeatureString = lib.func('const char *ffeature_string(void *item, const char *featpath)');
  const pathToItem = lib.func('void *path_to_item(void *item, const char *featpath)');

  /**
   * The words of a synthesized utterance: flite's Word relation in order, each from the end of the
   * segment before its first segment to the end of its last one (segment ends are in seconds of the
   * wave, speed included), merged per token of the text so a number read as several words is one
   * entry named as written.
   */
  const wordTimings = (utt: unknown): WordTiming[] => {
    const words: WordTiming[] = [];
    const relation: unknown = uttRelation(utt, 'Word');
    let lastToken: bigint | undefined;
    for (let item: unknown = relation === null ? null : relationHead(relation); item !== null; item = itemNext(item)) {
      const start = ffeatureFloat(item, 'R:SylStructure.daughter1.daughter1.R:Segment.p.end') as number;
      const end = ffeatureFloat(item, 'R:SylStructure.daughtern.daughtern.R:Segment.end') as number;
      const token = String(ffeatureString(item, 'R:Token.parent.name'));
      // Words read from one token share its item.
      const tokenItem: unknown = pathToItem(item, 'R:Token.parent');
      const tokenAddress = tokenItem === null ? undefined : koffi.address(tokenItem);
      const previous = words[words.length - 1];
      if (previous !== undefined && tokenAddress !== undefined && tokenAddress === lastToken) words[words.length - 1] = { word: token, start: previous.start, end };
      else words.push({ word: token, start, end });
      lastToken = tokenAddress;
    }
    return words;
  };

  fliteInit();
  const voices = new Map<FliteVoiceName, unknown>();
  const failures: string[] = [];
  for (const name of FLITE_VOICE_NAMES) {
    const soname = `libflite_cmu_us_${name}.so.1`;
    try {
      const voiceLib = koffi.load(library.includes('/') ? join(dirname(library), soname) : soname);
      const register = voiceLib.func(`void *register_cmu_us_${name}(const char *voxdir)`);
      const voice: unknown = register(null);
      if (voice === null) throw new Error(`register_cmu_us_${name} returned NULL`);
      voices.set(name, voice);
    } catch (err) {
      failures.push(`${soname}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (voices.size === 0) throw new TtsError('TTS_ENGINE_UNAVAILABLE', `flite: no voice library could be loaded (${failures.join('; ')})`);

  const binding: FliteLibrary = {
    voices: [...voices.keys()],
    synthesize(text, voiceName, durationStretch) {
      const voice = voices.get(voiceName);
      if (voice === undefined) throw new TtsError('TTS_VOICE_NOT_FOUND', `flite voice "${voiceName}" is not loaded.`, { loc: ['body', 'voice'] });
      const utt: unknown = newUtterance();
      if (utt === null) throw new TtsError('TTS_ENGINE_FAILED', 'flite: new_utterance failed');
      try {
        setInputText(utt, text);
        const { features } = koffi.decode(utt, Utterance) as { features: unknown };
        featSetFloat(features, 'duration_stretch', durationStretch);
        uttInit(utt, voice);
        if (uttSynth(utt) === null) throw new TtsError('TTS_ENGINE_FAILED', 'flite: synthesis failed');
        const wavePtr: unknown = uttWave(utt);
        if (wavePtr === null) throw new TtsError('TTS_ENGINE_FAILED', 'flite: synthesis produced no wave');
        const wave = koffi.decode(wavePtr, Wave) as { sample_rate: number; num_samples: number; num_channels: number; samples: unknown };
        if (wave.num_channels !== 1) throw new TtsError('TTS_ENGINE_FAILED', `flite: unexpected channel count ${wave.num_channels}`);
        const pcm = wave.num_samples > 0 ? (koffi.decode(wave.samples, 'int16_t', wave.num_samples) as Int16Array) : new Int16Array(0);
        return { samples: int16ToFloat(pcm), sampleRate: wave.sample_rate, words: wordTimings(utt) };
      } finally {
        deleteUtterance(utt);
      }
    },
  };
  opened.set(library, binding);
  return binding;
}
