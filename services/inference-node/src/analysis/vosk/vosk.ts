/**
 * Vosk (Kaldi) speech recognition and speaker vectors through libvosk, loaded with koffi. The
 * library is the one the npm package `vosk` ships (linux-x86_64), installed by the model manager
 * without that package's own dependencies (which do not build on Node 20).
 *
 * Heavy calls (feeding audio, final results) run through koffi's asynchronous calls on libuv's
 * thread pool, so the node's event loop keeps serving synthesis streams meanwhile. A recognizer
 * serves one call at a time; models are shared and thread-safe in Vosk.
 */
import koffi from 'koffi';

/** The libvosk functions used here. */
interface VoskLib {
  readonly setLogLevel: (level: number) => void;
  readonly modelNew: koffi.KoffiFunction;
  readonly modelFree: koffi.KoffiFunction;
  readonly spkModelNew: koffi.KoffiFunction;
  readonly spkModelFree: koffi.KoffiFunction;
  readonly recognizerNew: koffi.KoffiFunction;
  readonly recognizerNewGrm: koffi.KoffiFunction;
  readonly modelFindWord: (model: unknown, word: string) => number;
  readonly recognizerSetWords: koffi.KoffiFunction;
  readonly recognizerSetMaxAlternatives: koffi.KoffiFunction;
  readonly recognizerSetSpkModel: koffi.KoffiFunction;
  readonly acceptWaveformF: koffi.KoffiFunction;
  readonly finalResult: koffi.KoffiFunction;
  readonly recognizerFree: koffi.KoffiFunction;
}

let loaded: { path: string; lib: VoskLib } | undefined;

/** Loads libvosk once per process (a second path is refused: one library per process). */
export function loadVoskLibrary(libraryPath: string): VoskLib {
  if (loaded) {
    if (loaded.path !== libraryPath) throw new Error(`libvosk already loaded from ${loaded.path}`);
    return loaded.lib;
  }
  const so = koffi.load(libraryPath);
  const lib: VoskLib = {
    setLogLevel: so.func('void vosk_set_log_level(int level)') as (level: number) => void,
    modelNew: so.func('void *vosk_model_new(const char *path)'),
    modelFree: so.func('void vosk_model_free(void *model)'),
    spkModelNew: so.func('void *vosk_spk_model_new(const char *path)'),
    spkModelFree: so.func('void vosk_spk_model_free(void *model)'),
    recognizerNew: so.func('void *vosk_recognizer_new(void *model, float sample_rate)'),
    recognizerNewGrm: so.func('void *vosk_recognizer_new_grm(void *model, float sample_rate, const char *grammar)'),
    modelFindWord: so.func('int vosk_model_find_word(void *model, const char *word)') as (model: unknown, word: string) => number,
    recognizerSetWords: so.func('void vosk_recognizer_set_words(void *recognizer, int words)'),
    recognizerSetMaxAlternatives: so.func('void vosk_recognizer_set_max_alternatives(void *recognizer, int max_alternatives)'),
    recognizerSetSpkModel: so.func('void vosk_recognizer_set_spk_model(void *recognizer, void *spk_model)'),
    acceptWaveformF: so.func('int vosk_recognizer_accept_waveform_f(void *recognizer, const float *data, int length)'),
    finalResult: so.func('const char *vosk_recognizer_final_result(void *recognizer)'),
    recognizerFree: so.func('void vosk_recognizer_free(void *recognizer)'),
  };
  lib.setLogLevel(-1);
  loaded = { path: libraryPath, lib };
  return lib;
}

function callAsync<T>(fn: koffi.KoffiFunction, ...args: unknown[]): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    (fn.async as (...a: unknown[]) => void)(...args, (err: unknown, result: T) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(result)));
  });
}

/** One recognized word. */
export interface VoskWord {
  readonly word: string;
  readonly start: number;
  readonly end: number;
  readonly conf: number;
}

/** A recognizer's final result. */
export interface VoskResult {
  readonly text: string;
  readonly words: readonly VoskWord[];
  /** x-vector of the utterance when a speaker model was attached and enough speech was heard. */
  readonly spk: readonly number[] | null;
}

/** Audio fed per asynchronous call, samples at 16 kHz (0.5 s). */
const FEED_SAMPLES = 8000;

/** Loaded Vosk models: an ASR model and optionally the speaker model. */
export class VoskModels {
  private constructor(
    private readonly lib: VoskLib,
    private model: unknown,
    private spkModel: unknown,
  ) {}

  /** Loads the models (about half a second for the small English model). */
  static async load(options: { libraryPath: string; asrModelDir: string; speakerModelDir?: string }): Promise<VoskModels> {
    const lib = loadVoskLibrary(options.libraryPath);
    const model = await callAsync<unknown>(lib.modelNew, options.asrModelDir);
    if (model === null) throw new Error(`Vosk could not load the ASR model in ${options.asrModelDir}`);
    let spk: unknown = null;
    if (options.speakerModelDir !== undefined) {
      spk = await callAsync<unknown>(lib.spkModelNew, options.speakerModelDir);
      if (spk === null) {
        lib.modelFree(model);
        throw new Error(`Vosk could not load the speaker model in ${options.speakerModelDir}`);
      }
    }
    return new VoskModels(lib, model, spk);
  }

  get hasSpeakerModel(): boolean {
    return this.spkModel !== null;
  }

  /**
   * Recognizes 16 kHz mono audio (floats in [-1, 1]). With `speaker`, also the x-vector (needs the
   * speaker model; Vosk computes it inside a recognizer, so the audio is decoded either way).
   * `transcribe: false` leaves out word details. (A grammar-restricted search would not help: the
   * acoustic model, not the search, costs the time, and a small grammar aligns too few frames for
   * a usable speaker vector.)
   */
  async recognize(pcm16k: Float32Array, options: { speaker?: boolean; transcribe?: boolean } = {}): Promise<VoskResult> {
    if (this.model === null) throw new Error('Vosk models are closed');
    const lib = this.lib;
    const speaker = options.speaker === true && this.spkModel !== null;
    const transcribe = options.transcribe !== false;
    const rec = await callAsync<unknown>(lib.recognizerNew, this.model, 16000);
    if (rec === null) throw new Error('Vosk could not create a recognizer');
    if (speaker) lib.recognizerSetSpkModel(rec, this.spkModel);
    try {
      if (transcribe) lib.recognizerSetWords(rec, 1);
      await this.feed(rec, pcm16k);
      const json = await callAsync<string>(lib.finalResult, rec);
      return parseResult(json);
    } finally {
      lib.recognizerFree(rec);
    }
  }

  /** Whether `word` (lower case) is in the ASR model's vocabulary; a grammar can only hold such words and "[unk]". */
  knowsWord(word: string): boolean {
    if (this.model === null) throw new Error('Vosk models are closed');
    return this.lib.modelFindWord(this.model, word) >= 0;
  }

  /**
   * The timed words of 16 kHz audio recognized with the search restricted to `grammar` (Vosk's
   * JSON phrase list: each phrase a sequence of vocabulary words, repeatable; words outside the
   * vocabulary are dropped from it by Vosk). The words are the best path's (one alternative:
   * Viterbi, not the MBR one-best, which may drop a word of low posterior and averages times), with
   * times at the model's output frames (30 ms for the small English model: 10 ms frames subsampled
   * by 3). The whole audio is one utterance: an endpoint the recognizer detects inside it is not
   * taken as the utterance's end.
   */
  async recognizeGrammar(pcm16k: Float32Array, grammar: readonly string[]): Promise<VoskWord[]> {
    if (this.model === null) throw new Error('Vosk models are closed');
    const lib = this.lib;
    const rec = await callAsync<unknown>(lib.recognizerNewGrm, this.model, 16000, JSON.stringify(grammar));
    if (rec === null) throw new Error('Vosk could not create a recognizer for the grammar');
    try {
      lib.recognizerSetWords(rec, 1);
      lib.recognizerSetMaxAlternatives(rec, 1);
      await this.feed(rec, pcm16k);
      const raw = JSON.parse(await callAsync<string>(lib.finalResult, rec)) as { alternatives?: { result?: VoskWord[] }[] };
      return raw.alternatives?.[0]?.result ?? [];
    } finally {
      lib.recognizerFree(rec);
    }
  }

  /**
   * x-vectors of several pieces of 16 kHz audio, `concurrency` recognizers at once, each reused
   * from piece to piece (a final result resets it; creating one costs about 90 ms). Null where a
   * piece held too little speech for a vector.
   */
  async speakerVectors(pieces: readonly Float32Array[], concurrency = 2): Promise<(number[] | null)[]> {
    if (this.model === null) throw new Error('Vosk models are closed');
    if (this.spkModel === null) return pieces.map(() => null);
    const lib = this.lib;
    const out: (number[] | null)[] = new Array<number[] | null>(pieces.length).fill(null);
    let next = 0;
    const worker = async (): Promise<void> => {
      const rec = await callAsync<unknown>(lib.recognizerNew, this.model, 16000);
      if (rec === null) throw new Error('Vosk could not create a recognizer');
      try {
        lib.recognizerSetSpkModel(rec, this.spkModel);
        while (next < pieces.length) {
          const i = next++;
          await this.feed(rec, pieces[i]!);
          const spk = parseResult(await callAsync<string>(lib.finalResult, rec)).spk;
          out[i] = spk === null ? null : [...spk];
        }
      } finally {
        lib.recognizerFree(rec);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, pieces.length)) }, worker));
    return out;
  }

  /**
   * Feeds audio in 0.5 s calls; libvosk takes 16-bit magnitudes as floats. An endpoint libvosk
   * signals is ignored: until a result is read, the utterance goes on.
   */
  private async feed(rec: unknown, pcm16k: Float32Array): Promise<void> {
    const scaled = new Float32Array(Math.min(FEED_SAMPLES, pcm16k.length));
    for (let at = 0; at < pcm16k.length; at += FEED_SAMPLES) {
      const n = Math.min(FEED_SAMPLES, pcm16k.length - at);
      const chunk = n === scaled.length ? scaled : new Float32Array(n);
      for (let i = 0; i < n; i++) chunk[i] = Math.max(-1, Math.min(1, pcm16k[at + i]!)) * 32767;
      await callAsync<number>(this.lib.acceptWaveformF, rec, chunk, n);
    }
  }

  /** Frees the models (idempotent). Calls in flight must have ended. */
  close(): void {
    if (this.model !== null) this.lib.modelFree(this.model);
    if (this.spkModel !== null) this.lib.spkModelFree(this.spkModel);
    this.model = null;
    this.spkModel = null;
  }
}

function parseResult(json: string): VoskResult {
  const raw = JSON.parse(json) as { text?: string; result?: VoskWord[]; spk?: number[] };
  return { text: raw.text ?? '', words: raw.result ?? [], spk: Array.isArray(raw.spk) && raw.spk.length > 0 ? raw.spk : null };
}
