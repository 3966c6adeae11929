/**
 * Runs ONNX models off the node's event loop. onnxruntime-node's `session.run` executes
 * synchronously on the thread that calls it (it only defers the call by one `setImmediate`), so a
 * 100 ms batch would stall gRPC, health checks and cancellations. The runner keeps the sessions
 * in one worker thread and exchanges plain tensors with it (buffers transferred, not copied).
 * A worker that dies is replaced on the next call; sessions are re-opened transparently.
 * `thread: 'main'` runs sessions in-process instead (for debugging or tiny models).
 */
import { Worker } from 'node:worker_threads';
import type ort from 'onnxruntime-node';
import { createSession, runSession, type OnnxSessionConfig, type PlainTensor } from './onnx-session.js';

/** A message to the ONNX worker. */
export type WorkerRequest =
  | { readonly kind: 'open'; readonly requestId: number; readonly modelPath: string }
  | { readonly kind: 'run'; readonly requestId: number; readonly sessionId: number; readonly feeds: Readonly<Record<string, PlainTensor>> }
  | { readonly kind: 'release'; readonly requestId: number; readonly sessionId: number };

/** A message from the ONNX worker. */
export type WorkerReply =
  | {
    readonly kind: 'opened'; readonly requestId: number; readonly sessionId: number; readonly provider: string;
    readonly skippedProviders: { provider: string; error: string }[]; readonly inputNames: string[]; readonly outputNames: string[];
  }
  | { readonly kind: 'ran'; readonly requestId: number; readonly outputs: Record<string, PlainTensor> }
  | { readonly kind: 'released'; readonly requestId: number }
  | { readonly kind: 'failed'; readonly requestId: number; readonly message: string };

/** Options of an ONNX runner. */
export interface OnnxRunnerOptions extends OnnxSessionConfig {
  /** Where sessions run: a worker thread (default) or the calling thread. @default "worker" */
  readonly thread?: 'worker' | 'main';
}

/** One opened model. */
export interface OnnxModelSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** Execution provider the session runs on ("cpu", "cuda", ...). */
  readonly provider: string;
  /** Providers tried before `provider` and why each failed. */
  readonly skippedProviders: readonly { readonly provider: string; readonly error: string }[];
  /** Runs the model on `feeds`; resolves with every output. */
  run(feeds: Readonly<Record<string, PlainTensor>>): Promise<Record<string, PlainTensor>>;
  /** Frees the session. */
  release(): Promise<void>;
}

/** Opens models and runs them off the main thread. */
export interface OnnxRunner {
  /** Creates a session for `modelPath` with the runner's providers and thread settings. */
  open(modelPath: string): Promise<OnnxModelSession>;
  /** Releases every session and stops the worker. */
  close(): Promise<void>;
}

/** Creates an ONNX runner; see the module comment. */
export function createOnnxRunner(options: OnnxRunnerOptions = {}): OnnxRunner {
  return options.thread === 'main' ? new MainThreadRunner(options) : new WorkerRunner(options);
}

class MainThreadRunner implements OnnxRunner {
  private readonly sessions = new Set<ort.InferenceSession>();
  constructor(private readonly config: OnnxSessionConfig) {}

  async open(modelPath: string): Promise<OnnxModelSession> {
    const { session, provider, skipped } = await createSession(modelPath, this.config);
    this.sessions.add(session);
    return {
      inputNames: [...session.inputNames],
      outputNames: [...session.outputNames],
      provider,
      skippedProviders: skipped,
      run: (feeds) => runSession(session, feeds),
      release: async () => {
        if (this.sessions.delete(session)) await session.release();
      },
    };
  }

  async close(): Promise<void> {
    const all = [...this.sessions];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.release()));
  }
}

interface Pending {
  readonly resolve: (reply: WorkerReply) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Starts the worker file next to this one: `onnx-worker.js` when built. When running from source
 * (tsx), a worker does not inherit the TypeScript loader on Node 20, so the worker first registers
 * tsx and then imports `onnx-worker.ts`.
 */
function startWorker(config: OnnxSessionConfig): Worker {
  const workerData = { ...config } satisfies OnnxSessionConfig;
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./onnx-worker.js', import.meta.url), { workerData });
  const entry = new URL('./onnx-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}

class WorkerRunner implements OnnxRunner {
  private worker: Worker | undefined;
  private generation = 0;
  private nextRequestId = 1;
  private readonly pending = new Map<number, Pending>();
  private closed = false;

  constructor(private readonly config: OnnxSessionConfig) {}

  async open(modelPath: string): Promise<OnnxModelSession> {
    let remote = await this.openRemote(modelPath);
    return {
      inputNames: remote.inputNames,
      outputNames: remote.outputNames,
      provider: remote.provider,
      skippedProviders: remote.skippedProviders,
      run: async (feeds) => {
        // A replaced worker has none of the old sessions: open this one again first.
        if (remote.generation !== this.generation || this.worker === undefined) remote = await this.openRemote(modelPath);
        const reply = await this.request({ kind: 'run', requestId: 0, sessionId: remote.sessionId, feeds }, transferables(feeds));
        if (reply.kind !== 'ran') throw new Error(`unexpected worker reply ${reply.kind}`);
        return reply.outputs;
      },
      release: async () => {
        if (remote.generation === this.generation && this.worker !== undefined && !this.closed) {
          await this.request({ kind: 'release', requestId: 0, sessionId: remote.sessionId });
        }
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) await worker.terminate();
    this.failAll(new Error('ONNX runner closed'));
  }

  private async openRemote(modelPath: string): Promise<{
    sessionId: number; generation: number; provider: string; skippedProviders: { provider: string; error: string }[]; inputNames: string[]; outputNames: string[];
  }> {
    const reply = await this.request({ kind: 'open', requestId: 0, modelPath });
    if (reply.kind !== 'opened') throw new Error(`unexpected worker reply ${reply.kind}`);
    const { sessionId, provider, skippedProviders, inputNames, outputNames } = reply;
    return { sessionId, generation: this.generation, provider, skippedProviders, inputNames, outputNames };
  }

  private ensureWorker(): Worker {
    if (this.closed) throw new Error('ONNX runner closed');
    if (this.worker !== undefined) return this.worker;
    const worker = startWorker(this.config);
    this.generation++;
    worker.on('message', (reply: WorkerReply) => {
      const pending = this.pending.get(reply.requestId);
      if (pending === undefined) return;
      this.pending.delete(reply.requestId);
      if (reply.kind === 'failed') pending.reject(new Error(reply.message));
      else pending.resolve(reply);
    });
    const lost = (error: Error): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failAll(error);
    };
    worker.on('error', (error) => lost(error));
    worker.on('exit', (code) => lost(new Error(`ONNX worker exited with code ${code}`)));
    // An idle worker must not keep the process alive.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private request(message: WorkerRequest, transfer: ArrayBuffer[] = []): Promise<WorkerReply> {
    return new Promise((resolve, reject) => {
      const worker = this.ensureWorker();
      const requestId = this.nextRequestId++;
      this.pending.set(requestId, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ ...message, requestId }, transfer);
    }).finally(() => {
      if (this.pending.size === 0) this.worker?.unref();
    }) as Promise<WorkerReply>;
  }

  private failAll(error: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(error);
  }
}

/** Buffers of `feeds` that can be moved to the worker (whole buffers only; views are copied by structured clone). */
function transferables(feeds: Readonly<Record<string, PlainTensor>>): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const t of Object.values(feeds)) {
    const buffer = t.data.buffer;
    if (buffer instanceof ArrayBuffer && t.data.byteOffset === 0 && t.data.byteLength === buffer.byteLength) out.add(buffer);
  }
  return [...out];
}
