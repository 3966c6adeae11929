/**
 * The analysis functions with the installed models, in-process (benches only).
 */
import type { Logger } from '@tts/common';
import type { ReferenceAnalysis, Transcription } from '@tts/proto/analysis';
import { loadNodeConfig } from '../config.js';
import { createAnalysisContext } from './context.js';
import { analyzeReference, transcribeUpload, type SpeechModels } from './reference.js';
import { loadSpeechModels } from './speech-models.js';
import type { ReceivedUpload } from './upload.js';

/** Validation and transcription of files, as a node runs them. */
export async function analysisForBench(logger: Logger): Promise<{ validate(u: ReceivedUpload): Promise<ReferenceAnalysis>; transcribe(u: ReceivedUpload): Promise<Transcription>; close(): Promise<void> }> {
  const config = loadNodeConfig();
  const ctx = await createAnalysisContext(config, logger, {});
  const signal = new AbortController().signal;
  return {
    validate: (u) => analyzeReference(u, ctx.models, { transcribe: false, maxAnalysisSec: ctx.maxAnalysisSec, signal }),
    transcribe: (u) => transcribeUpload(u, ctx.models, ctx.maxTranscribeSec, signal),
    close: () => ctx.close(),
  };
}

/** The installed speech recognizer as a node loads it (throws when it is not installed). */
export async function speechModelsForBench(logger: Logger): Promise<SpeechModels> {
  const speech = await loadSpeechModels(loadNodeConfig(), logger);
  if (!speech) throw new Error('speech recognition is not installed (npm run models -- install --all)');
  return speech;
}
