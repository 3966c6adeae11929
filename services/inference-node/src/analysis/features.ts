/**
 * Which analysis features of uploads work on this node: each needs models that `npm run models`
 * installs on the model search path (TTS_MODEL_DIR, default DATA_DIR/models). A node without them
 * still synthesizes; it reports each missing feature, with the models it lacks and the command that
 * installs them, in its status (health and capabilities of the facade, the web page), and its
 * analysis refuses what it cannot measure instead of answering made-up figures.
 */
import { TtsError } from '@tts/common';
import { AnalysisModelInstaller } from '@tts/common/models';
import type { AnalysisFeature } from '@tts/proto/synthesis';
import type { NodeConfig } from '../config.js';

/** The analysis features a node reports, and the analysis models each needs. */
export const ANALYSIS_FEATURE_MODELS = Object.freeze({
  /** Voice activity: where the speech is (speech level, speech ratio, silences, speaker windows). */
  vad: ['silero-vad'],
  /** Transcripts of reference clips, and word timings of engines without their own. */
  transcription: ['libvosk', 'vosk-model-small-en-us-android'],
  /** Speaker vectors (the recognizer's x-vector model runs beside the recognizer). */
  speaker_embedding: ['libvosk', 'vosk-model-small-en-us-android', 'vosk-model-spk-0.4'],
  /** Cloning from a reference clip: the speech found by the VAD, its speaker vector. */
  cloning: ['silero-vad', 'libvosk', 'vosk-model-small-en-us-android', 'vosk-model-spk-0.4'],
} as const);

/** A feature's name. */
export type AnalysisFeatureName = keyof typeof ANALYSIS_FEATURE_MODELS;

/** The command that installs the analysis models into the first directory of `modelDirs` (for the node's log). */
export function installCommand(modelDirs: readonly string[]): string {
  return `TTS_MODEL_DIR=${modelDirs[0] ?? './data/models'} npm run models -- install --all`;
}

/**
 * Each analysis feature, available when every model it needs is found on the model search path
 * (the VAD: where the node's configuration found it). Reads the disk only.
 */
export async function analysisFeatures(config: Pick<NodeConfig, 'modelDirs' | 'vadModel'>): Promise<AnalysisFeature[]> {
  const installer = new AnalysisModelInstaller({ modelDirs: config.modelDirs });
  const present = new Map<string, boolean>();
  present.set('silero-vad', config.vadModel !== undefined);
  for (const id of ['libvosk', 'vosk-model-small-en-us-android', 'vosk-model-spk-0.4']) present.set(id, (await installer.locate(id)) !== null);
  return Object.entries(ANALYSIS_FEATURE_MODELS).map(([name, models]) => {
    const missing = models.filter((id) => present.get(id) !== true);
    return {
      name,
      available: missing.length === 0,
      // Public (health, capabilities): the node's folders stay in its log, which names the exact command.
      reason: missing.length === 0 ? '' : `Not installed on the inference node: ${missing.join(', ')}. Install them with \`npm run models -- install --all\` run with the node's DATA_DIR (or TTS_MODEL_DIR), then restart the node.`,
      missingModels: missing,
    };
  });
}

/** Throws ANALYSIS_UNAVAILABLE naming the missing models when `name` is unavailable in `features`. */
export function requireFeature(features: readonly AnalysisFeature[], name: AnalysisFeatureName): void {
  const f = features.find((x) => x.name === name);
  if (f && !f.available) throw new TtsError('ANALYSIS_UNAVAILABLE', `${FEATURE_TEXT[name]} is unavailable. ${f.reason}`);
}

const FEATURE_TEXT: Readonly<Record<AnalysisFeatureName, string>> = {
  vad: 'Voice activity detection (needed to measure the speech in a clip)',
  transcription: 'Speech recognition',
  speaker_embedding: 'The speaker model',
  cloning: 'Voice cloning',
};
