/**
 * Watermark detection of an uploaded clip with every key of the node.
 */
import { TtsError } from '@tts/common';
import type { WatermarkDetection } from '@tts/proto/analysis';
import type { AnalysisContext } from './context.js';
import type { ReceivedUpload } from './upload.js';

export function detectWatermarkInUpload(_upload: ReceivedUpload, _ctx: AnalysisContext, _signal: AbortSignal): Promise<WatermarkDetection> {
  return Promise.reject(new TtsError('ANALYSIS_UNAVAILABLE', 'Watermark detection is not wired yet.'));
}
