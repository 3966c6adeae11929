/**
 * The facade's way to audio analysis: uploads are streamed from their temporary file (or a stored
 * clip's bytes) to an inference node's AudioAnalyzer, picked by the same lookaside router as
 * synthesis. Decoding, VAD, recognition and watermark detection run on the node, never here.
 */
import { createReadStream } from 'node:fs';
import type { ReferenceAnalysis, Transcription, UploadHeader, WatermarkDetection } from '@tts/proto/analysis';
import { audioAnalyzerClient, callUpload, fromServiceError, type ErrorCode, type TtsError } from '@tts/common';
import type { NodeRouter, RoutedNode } from '../cluster/node-router.js';

/** Bytes to upload: a file on disk or bytes in memory. */
export type UploadSource = { readonly path: string } | { readonly bytes: Uint8Array };

/** Failures worth one more try on another node: the node, not the clip, was at fault. */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['TTS_NODE_OVERLOADED', 'SERVICE_SHUTTING_DOWN', 'TTS_NO_NODE_AVAILABLE', 'TTS_ENGINE_UNAVAILABLE']);

/** Options of the gateway. */
export interface AnalysisGatewayOptions {
  readonly router: NodeRouter;
  /** Deadline of one analysis call, ms. */
  readonly timeoutMs: number;
}

/** What the header of an upload says besides the bytes. */
export type UploadInfo = Pick<UploadHeader, 'requestId' | 'filename' | 'contentType' | 'sizeBytes'> & { readonly transcribe?: boolean };

/** Calls the AudioAnalyzer of a node. */
export class AnalysisGateway {
  constructor(private readonly options: AnalysisGatewayOptions) {}

  analyzeReference(source: UploadSource, info: UploadInfo, signal: AbortSignal): Promise<ReferenceAnalysis> {
    return this.call(source, info, signal, (client) => client.analyzeReference.bind(client));
  }

  transcribe(source: UploadSource, info: UploadInfo, signal: AbortSignal): Promise<Transcription> {
    return this.call(source, info, signal, (client) => client.transcribe.bind(client));
  }

  detectWatermark(source: UploadSource, info: UploadInfo, signal: AbortSignal): Promise<WatermarkDetection> {
    return this.call(source, info, signal, (client) => client.detectWatermark.bind(client));
  }

  private async call<Res>(source: UploadSource, info: UploadInfo, signal: AbortSignal, method: (client: ReturnType<typeof audioAnalyzerClient>) => Parameters<typeof callUpload<Res>>[0]): Promise<Res> {
    const header: UploadHeader = { requestId: info.requestId, filename: info.filename, contentType: info.contentType, sizeBytes: info.sizeBytes, transcribe: info.transcribe ?? false };
    const exclude: string[] = [];
    for (let attempt = 0; ; attempt++) {
      const node: RoutedNode = await this.options.router.pick({ voice: '', engine: '', characters: 0 }, exclude);
      try {
        return await callUpload(method(audioAnalyzerClient(node.address)), header, chunksOf(source), { timeoutMs: this.options.timeoutMs, signal });
      } catch (err) {
        const e: TtsError = fromServiceError(err);
        if (attempt >= 1 || !RETRYABLE.has(e.code)) throw e;
        this.options.router.invalidate();
        exclude.push(node.nodeId);
      }
    }
  }
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

function chunksOf(source: UploadSource): AsyncIterable<Uint8Array> {
  if ('bytes' in source) return once(source.bytes);
  return createReadStream(source.path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>;
}
