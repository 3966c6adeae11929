/**
 * tts.v1.AudioAnalyzer: reference-clip analysis, transcription and watermark detection of
 * client-streamed uploads. Each call receives its upload into a temporary file, which is removed
 * whatever happens.
 */
import type { sendUnaryData, ServerReadableStream } from '@grpc/grpc-js';
import { toServiceError, TtsError } from '@tts/common';
import type { AudioAnalyzerServer, AudioUpload } from '@tts/proto/analysis';
import type { NodeContext } from '../domain/node-context.js';
import { analyzeReference, transcribeUpload } from '../analysis/reference.js';
import { receiveUpload, type ReceivedUpload } from '../analysis/upload.js';
import { detectWatermarkInUpload } from '../analysis/watermark-check.js';
import { callCancellation } from './call-cancellation.js';

type Handler<Res> = (call: ServerReadableStream<AudioUpload, Res>, callback: sendUnaryData<Res>) => void;

/** Runs `work` on the received upload and answers; errors become gRPC statuses with catalogue codes. */
function uploadHandler<Res>(ctx: NodeContext, name: string, work: (upload: ReceivedUpload, signal: AbortSignal) => Promise<Res>): Handler<Res> {
  return (call, callback) => {
    const cancellation = callCancellation(call);
    void (async () => {
      let upload: ReceivedUpload | undefined;
      try {
        upload = await receiveUpload(call, { maxBytes: ctx.analysis.maxUploadBytes, tmpDir: ctx.analysis.tmpDir });
        const result = await work(upload, cancellation.signal);
        cancellation.answered();
        callback(null, result);
      } catch (err) {
        cancellation.answered();
        const level = err instanceof TtsError && err.spec.http < 500 ? 'info' : 'warn';
        ctx.logger[level](`${name} failed`, { request_id: upload?.header.requestId, err });
        callback(toServiceError(err));
      } finally {
        await upload?.remove();
      }
    })();
  };
}

/** The AudioAnalyzer service of a node. */
export function audioAnalyzer(ctx: NodeContext): AudioAnalyzerServer {
  const a = ctx.analysis;
  return {
    analyzeReference: uploadHandler(ctx, 'analyze reference', (upload, signal) =>
      analyzeReference(upload, a.models, { transcribe: upload.header.transcribe, maxAnalysisSec: a.maxAnalysisSec, signal, features: a.features }),
    ),
    transcribe: uploadHandler(ctx, 'transcribe', (upload, signal) => transcribeUpload(upload, a.models, a.maxTranscribeSec, signal, a.features)),
    detectWatermark: uploadHandler(ctx, 'detect watermark', (upload, signal) => detectWatermarkInUpload(upload, a, signal)),
  };
}
