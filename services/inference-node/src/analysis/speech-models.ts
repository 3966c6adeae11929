/**
 * Loads the speech recognizer and the speaker model (Vosk through libvosk) for analysis from
 * where `npm run models` installs them on the model search path, or answers undefined when they
 * are not installed: analysis then leaves out transcription and speaker vectors, and
 * POST /api/reference/transcribe answers ANALYSIS_UNAVAILABLE.
 */
import path from 'node:path';
import type { Logger } from '@tts/common';
import { AnalysisModelInstaller } from '@tts/common/models';
import type { NodeConfig } from '../config.js';
import { alignWords } from './align.js';
import type { SpeechModels } from './reference.js';
import { VoskModels } from './vosk/vosk.js';

/** Speaker windows decoded at once (libuv's pool runs them on separate threads). */
const SPEAKER_CONCURRENCY = 2;

export async function loadSpeechModels(config: Pick<NodeConfig, 'modelDirs'>, logger: Logger): Promise<SpeechModels | undefined> {
  const installer = new AnalysisModelInstaller({ modelDirs: config.modelDirs });
  const [lib, asr, spk] = await Promise.all(['libvosk', 'vosk-model-small-en-us-android', 'vosk-model-spk-0.4'].map((id) => installer.locate(id)));
  if (!lib || !asr) {
    logger.warn('speech recognition not installed on this node (run `npm run models -- install --all`)', { libvosk: lib?.dir ?? null, asr: asr?.dir ?? null });
    return undefined;
  }
  const started = performance.now();
  let vosk: VoskModels;
  try {
    vosk = await VoskModels.load({ libraryPath: path.join(lib.dir, 'libvosk.so'), asrModelDir: asr.dir, ...(spk ? { speakerModelDir: spk.dir } : {}) });
  } catch (err) {
    logger.error('speech recognition could not load', { err });
    return undefined;
  }
  logger.info('speech recognition loaded', { asr: asr.dir, speaker_model: spk?.dir ?? null, ms: Math.round(performance.now() - started) });
  return {
    asrModelId: 'vosk-model-small-en-us-android',
    language: 'en-US',
    async transcribe(pcm16k) {
      const result = await vosk.recognize(pcm16k, { transcribe: true });
      const words = result.words.map((w) => ({ word: w.word, startSec: w.start, endSec: w.end, confidence: w.conf }));
      return { text: result.text, confidence: words.length === 0 ? 0 : words.reduce((s, w) => s + w.confidence, 0) / words.length, words };
    },
    async speakerVectors(windows) {
      return (await vosk.speakerVectors(windows, SPEAKER_CONCURRENCY)).map((v) => (v === null ? null : Float32Array.from(v)));
    },
    alignWords: (audio, text, options) => alignWords(audio, text, vosk, options),
    close() {
      vosk.close();
      return Promise.resolve();
    },
  };
}
