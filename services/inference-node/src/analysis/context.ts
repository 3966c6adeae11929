/**
 * What the AudioAnalyzer handlers share: the upload limits and the analysis models, each loaded
 * on first use and kept (Silero VAD; the Vosk recognizer and speaker model), and the thread the
 * clips are measured on.
 */
import type { Logger } from '@tts/common';
import type { AnalysisFeature } from '@tts/proto/synthesis';
import type { NodeConfig } from '../config.js';
import { createSileroVad, type SileroVad } from '../vad/index.js';
import type { AnalysisModels, SpeechModels } from './reference.js';
import { ClipMeasurer } from './clip-measurements.js';
import { analysisFeatures, installCommand } from './features.js';
import { loadSpeechModels } from './speech-models.js';
import { loadWatermarkKeys, type WatermarkKeyring } from './watermark-keys.js';

/** The analysis side of a node. */
export interface AnalysisContext {
  readonly models: AnalysisModels;
  readonly maxUploadBytes: number;
  readonly tmpDir: string;
  readonly maxAnalysisSec: number;
  readonly maxTranscribeSec: number;
  readonly watermark: WatermarkKeyring;
  /** Each analysis feature and whether its models are installed (features.ts), found at start. */
  readonly features: readonly AnalysisFeature[];
  close(): Promise<void>;
}

/** Builds the analysis context; models load on first use, so a node without them still synthesizes. */
export async function createAnalysisContext(config: NodeConfig, logger: Logger, shared: { vad?: SileroVad }): Promise<AnalysisContext> {
  let vad: Promise<SileroVad | undefined> | undefined;
  let speech: Promise<SpeechModels | undefined> | undefined;
  const ownVad = shared.vad === undefined;
  const features = Object.freeze(await analysisFeatures(config));
  const missing = features.filter((f) => !f.available);
  if (missing.length > 0) {
    logger.warn('analysis features unavailable: their models are not installed', { features: missing.map((f) => f.name), models: [...new Set(missing.flatMap((f) => f.missingModels))], install: installCommand(config.modelDirs) });
  }
  const measurer = new ClipMeasurer();
  const models: AnalysisModels = {
    vad(): Promise<SileroVad | undefined> {
      vad ??= shared.vad !== undefined
        ? Promise.resolve(shared.vad)
        : config.vadModel === undefined
          ? Promise.resolve(undefined)
          : createSileroVad(config.vadModel).catch((err: unknown) => {
            logger.warn('analysis VAD could not load', { model: config.vadModel, err });
            return undefined;
          });
      return vad;
    },
    speech(): Promise<SpeechModels | undefined> {
      speech ??= loadSpeechModels(config, logger);
      return speech;
    },
    measure: (req, signal) => measurer.measure(req, signal),
    pitch: (req, signal) => measurer.pitch(req, signal),
  };
  return {
    models,
    maxUploadBytes: config.maxUploadBytes,
    tmpDir: config.uploadTmpDir,
    maxAnalysisSec: config.maxAnalysisSec,
    maxTranscribeSec: config.maxTranscribeSec,
    watermark: await loadWatermarkKeys(config, logger),
    features,
    async close() {
      if (ownVad) await (await vad)?.close();
      await (await speech)?.close?.();
      await measurer.close();
    },
  };
}
