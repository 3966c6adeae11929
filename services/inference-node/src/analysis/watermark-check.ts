/**
 * Watermark detection of an uploaded clip with every key of the node (the active key first).
 */
import type { WatermarkDetection } from '@tts/proto/analysis';
import { detectWatermark, PATTERN_RATE } from '../watermark/index.js';
import { samplesAt } from '../audio/index.js';
import type { AnalysisContext } from './context.js';
import { decodeUpload } from './reference.js';
import type { ReceivedUpload } from './upload.js';

/** Longest part of an upload examined, seconds (the mark repeats every 0.256 s). */
const MAX_DETECT_SEC = 120;

export async function detectWatermarkInUpload(upload: ReceivedUpload, ctx: AnalysisContext, signal: AbortSignal): Promise<WatermarkDetection> {
  const { native } = await decodeUpload(upload, MAX_DETECT_SEC, signal);
  const pcm = samplesAt(native, PATTERN_RATE);
  const match = detectWatermark(pcm, ctx.watermark.all);
  return {
    detected: match.detected,
    confidence: match.confidence,
    hasPayload: match.payload !== null,
    payload: match.payload ?? 0,
    keyId: match.keyId ?? 0,
    analysedSec: pcm.length / PATTERN_RATE,
  };
}
