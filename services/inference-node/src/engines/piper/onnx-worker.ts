/**
 * Worker-thread entry of the ONNX runner: opens one onnxruntime session per model at start-up and
 * runs them on request, so that `session.run` (which onnxruntime-node executes synchronously on
 * the calling thread) never blocks the node's event loop. A replacement worker re-opens them.
 */
import type ort from 'onnxruntime-node';
import { serveWorker } from '../workers/worker-runtime.js';
import { createSession, runSession, type OnnxSessionConfig, type PlainTensor } from './onnx-session.js';

/** Data the runner hands to each worker. */
export interface OnnxWorkerData {
  readonly config: OnnxSessionConfig;
  readonly modelPaths: readonly string[];
}

/** How a model's session came out: its provider and names, or why it could not be opened. */
export type OnnxModelDescription =
  | {
    readonly ok: true;
    readonly provider: string;
    readonly skippedProviders: readonly { readonly provider: string; readonly error: string }[];
    readonly inputNames: readonly string[];
    readonly outputNames: readonly string[];
  }
  | { readonly ok: false; readonly error: string };

/** A request to the ONNX worker. */
export type OnnxRequest =
  | { readonly kind: 'describe' }
  | { readonly kind: 'run'; readonly model: number; readonly feeds: Readonly<Record<string, PlainTensor>> };

/** The ONNX worker's answer; output buffers arrive by transfer. */
export type OnnxResponse =
  | { readonly kind: 'described'; readonly models: readonly OnnxModelDescription[] }
  | { readonly kind: 'ran'; readonly outputs: Record<string, PlainTensor> };

serveWorker<OnnxRequest, OnnxResponse>(async (data) => {
  const { config, modelPaths } = data as OnnxWorkerData;
  const sessions: (ort.InferenceSession | null)[] = [];
  const models: OnnxModelDescription[] = [];
  for (const modelPath of modelPaths) {
    try {
      const created = await createSession(modelPath, config);
      sessions.push(created.session);
      models.push({
        ok: true, provider: created.provider, skippedProviders: created.skipped,
        inputNames: [...created.session.inputNames], outputNames: [...created.session.outputNames],
      });
    } catch (error) {
      sessions.push(null);
      models.push({ ok: false, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return async (request) => {
    if (request.kind === 'describe') return { result: { kind: 'described', models } };
    const session = sessions[request.model];
    if (session === undefined || session === null) throw new Error(`model ${request.model} has no session`);
    const outputs = await runSession(session, request.feeds);
    return { result: { kind: 'ran', outputs }, transfer: Object.values(outputs).map((t) => t.data.buffer as ArrayBuffer) };
  };
});
