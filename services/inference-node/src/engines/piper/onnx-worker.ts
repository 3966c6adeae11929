/**
 * Worker-thread entry of the ONNX runner: owns onnxruntime sessions so that `session.run` (which
 * onnxruntime-node executes synchronously on the calling thread) never blocks the node's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type ort from 'onnxruntime-node';
import type { WorkerReply, WorkerRequest } from './onnx-runner.js';
import { createSession, runSession, type OnnxSessionConfig, type PlainTensor } from './onnx-session.js';

const port = parentPort;
if (port === null) throw new Error('onnx-worker must run in a worker thread');
const config = workerData as OnnxSessionConfig;
const sessions = new Map<number, ort.InferenceSession>();
let nextSessionId = 1;

function transferList(tensors: Readonly<Record<string, PlainTensor>>): ArrayBuffer[] {
  return Object.values(tensors).map((t) => t.data.buffer as ArrayBuffer);
}

async function handle(request: WorkerRequest): Promise<void> {
  try {
    switch (request.kind) {
      case 'open': {
        const created = await createSession(request.modelPath, config);
        const sessionId = nextSessionId++;
        sessions.set(sessionId, created.session);
        const reply: WorkerReply = {
          kind: 'opened', requestId: request.requestId, sessionId, provider: created.provider, skippedProviders: [...created.skipped],
          inputNames: [...created.session.inputNames], outputNames: [...created.session.outputNames],
        };
        port!.postMessage(reply);
        return;
      }
      case 'run': {
        const session = sessions.get(request.sessionId);
        if (session === undefined) throw new Error(`session ${request.sessionId} is not open`);
        const outputs = await runSession(session, request.feeds);
        const reply: WorkerReply = { kind: 'ran', requestId: request.requestId, outputs };
        port!.postMessage(reply, transferList(outputs));
        return;
      }
      case 'release': {
        await sessions.get(request.sessionId)?.release();
        sessions.delete(request.sessionId);
        const reply: WorkerReply = { kind: 'released', requestId: request.requestId };
        port!.postMessage(reply);
        return;
      }
    }
  } catch (error) {
    const reply: WorkerReply = { kind: 'failed', requestId: request.requestId, message: error instanceof Error ? error.message : String(error) };
    port!.postMessage(reply);
  }
}

port.on('message', (request: WorkerRequest) => {
  void handle(request);
});
