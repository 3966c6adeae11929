/** Worker-thread entry of espeak-ng: the one thread of the process that calls libespeak-ng. */
import { serveWorker } from '../workers/worker-runtime.js';
import type { WordTiming } from '../engine.js';
import { openEspeak, type EspeakVoiceInfo } from './espeak-lib.js';

/** A request to the espeak worker. */
export type EspeakRequest =
  | { readonly kind: 'voices' }
  /** `phonemeInput`: `[[...]]` in `text` is phoneme mnemonics (only set for an SSML <phoneme>). */
  | { readonly kind: 'synthesize'; readonly text: string; readonly voice: string; readonly wpm: number; readonly phonemeInput?: boolean }
  | { readonly kind: 'phonemize'; readonly voice: string; readonly clauses: readonly string[] };

/** The espeak worker's answer to the request of the same `kind`; `samples` arrives by transfer. */
export type EspeakResponse =
  | { readonly kind: 'voices'; readonly sampleRate: number; readonly voices: EspeakVoiceInfo[]; readonly variants: EspeakVoiceInfo[] }
  | { readonly kind: 'synthesize'; readonly samples: Float32Array; readonly sampleRate: number; readonly words: readonly WordTiming[] }
  | { readonly kind: 'phonemize'; readonly phonemes: string[] };

/** Data handed to the worker. */
export interface EspeakWorkerData {
  readonly library: string;
}

serveWorker<EspeakRequest, EspeakResponse>((data) => {
  const espeak = openEspeak((data as EspeakWorkerData).library);
  return (req) => {
    switch (req.kind) {
      case 'voices':
        return { result: { kind: 'voices', sampleRate: espeak.sampleRate, voices: espeak.listVoices(), variants: espeak.listVariants() } };
      case 'synthesize': {
        const { samples, words } = espeak.synthesize(req.text, req.voice, req.wpm, req.phonemeInput === true);
        return { result: { kind: 'synthesize', samples, sampleRate: espeak.sampleRate, words }, transfer: [samples.buffer as ArrayBuffer] };
      }
      case 'phonemize':
        espeak.selectVoice(req.voice);
        return { result: { kind: 'phonemize', phonemes: req.clauses.map((c) => (c.trim() === '' ? '' : espeak.textToPhonemes(c))) } };
    }
  };
});
