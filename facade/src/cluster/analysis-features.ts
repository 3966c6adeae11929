/**
 * The analysis features of the deployment (voice activity, transcription, speaker vectors, cloning)
 * as the ready inference nodes report them: a feature is available when one ready node has its
 * models installed; otherwise the reason of a node that lacks it (the models and the command that
 * installs them) is passed on. GET /api/health and GET /api/capabilities show them; the web page
 * offers cloning only when it works; a clone web job is refused at once when it cannot run.
 */
import type { NodeStatusReport } from '@tts/proto/synthesis';
import { TtsError } from '@tts/common';

/** The features, by the names the nodes report. */
export const ANALYSIS_FEATURES = ['vad', 'transcription', 'speaker_embedding', 'cloning'] as const;

/** One feature in an answer. */
export interface AnalysisFeatureJson {
  readonly available: boolean;
  readonly reason: string | null;
  readonly missing_models: string[];
}

/** Every feature in an answer. */
export type AnalysisFeaturesJson = Record<(typeof ANALYSIS_FEATURES)[number], AnalysisFeatureJson>;

/** The features over `ready` nodes (none ready: each unavailable, saying so). */
export function analysisFeaturesOf(ready: readonly NodeStatusReport[]): AnalysisFeaturesJson {
  const out = {} as Record<string, AnalysisFeatureJson>;
  for (const name of ANALYSIS_FEATURES) {
    const reports = ready.flatMap((n) => n.analysis.filter((f) => f.name === name));
    const missing = reports.find((f) => !f.available);
    if (reports.some((f) => f.available)) out[name] = { available: true, reason: null, missing_models: [] };
    else if (missing) out[name] = { available: false, reason: missing.reason, missing_models: [...missing.missingModels] };
    else out[name] = { available: false, reason: ready.length === 0 ? 'No inference node is ready.' : 'No ready inference node reports this feature.', missing_models: [] };
  }
  return out as AnalysisFeaturesJson;
}

/** Throws ANALYSIS_UNAVAILABLE with the reason when no ready node can clone. */
export function requireCloning(ready: readonly NodeStatusReport[]): void {
  const cloning = analysisFeaturesOf(ready).cloning;
  if (!cloning.available) throw new TtsError('ANALYSIS_UNAVAILABLE', `Voice cloning is unavailable: ${cloning.reason ?? ''}`.trim());
}
