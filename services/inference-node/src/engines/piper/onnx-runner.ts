/**
 * Runs ONNX models off the node's event loop. onnxruntime-node's `session.run` executes
 * synchronously on the thread that calls it (it only defers the call by one `setImmediate`), so a
 * 100 ms batch would stall gRPC, health checks and cancellations. The runner opens the sessions in
 * worker threads (a `WorkerPool`; each worker holds one session per model) and exchanges plain
 * tensors with them, buffers transferred rather than copied. A worker that dies fails its
 * in-flight run with TTS_ENGINE_FAILED and is replaced; the replacement re-opens the sessions.
 * `thread: 'main'` runs the sessions in-process instead (debugging, tiny models).
 */
import type ort from 'onnxruntime-node';
import { siblingModule, WorkerPool } from '../workers/worker-pool.js';
import type { OnnxModelDescription, OnnxRequest, OnnxResponse, OnnxWorkerData } from './onnx-worker.js';
import { createSession, runSession, type OnnxSessionConfig, type PlainTensor } from './onnx-session.js';

/** Options of an ONNX runner. */
export interface OnnxRunnerOptions extends OnnxSessionConfig {
  /** Where sessions run: worker threads (default) or the calling thread. @default "worker" */
  readonly thread?: 'worker' | 'main';
  /**
   * Worker threads, each with its own copy of every session (memory grows accordingly); runs are
   * spread over them.
   * @default 1
   */
  readonly workers?: number;
}

/** One opened model. */
export interface OnnxModelSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** Execution provider the session runs on ("cpu", "cuda", ...). */
  readonly provider: string;
  /** Providers tried before `provider` and why each failed. */
  readonly skippedProviders: readonly { readonly provider: string; readonly error: string }[];
  /** Runs the model on `feeds` and resolves with every output. In worker mode the feed buffers are transferred (detached). */
  run(feeds: Readonly<Record<string, PlainTensor>>): Promise<Record<string, PlainTensor>>;
}

/** Sessions for a fixed list of models. */
export interface OnnxRunner {
  /** Entry i answers model i: its session, or the error that kept it from opening. */
  readonly sessions: readonly (OnnxModelSession | Error)[];
  /** Releases every session and stops the workers. */
  close(): Promise<void>;
  /** The worker pool running the sessions; undefined when they run on the main thread. */
  readonly pool: WorkerPool<OnnxRequest, OnnxResponse> | undefined;
}

/** Opens one session per model in `modelPaths`; see the module comment. */
export async function startOnnxRunner(modelPaths: readonly string[], options: OnnxRunnerOptions = {}): Promise<OnnxRunner> {
  const config: OnnxSessionConfig = {
    ...(options.executionProviders ? { executionProviders: [...options.executionProviders] } : {}),
    ...(options.intraOpThreads !== undefined ? { intraOpThreads: options.intraOpThreads } : {}),
    ...(options.interOpThreads !== undefined ? { interOpThreads: options.interOpThreads } : {}),
    ...(options.graphOptimizationLevel ? { graphOptimizationLevel: options.graphOptimizationLevel } : {}),
  };
  return options.thread === 'main' ? startInProcess(modelPaths, config) : startInWorkers(modelPaths, config, options.workers ?? 1);
}

async function startInProcess(modelPaths: readonly string[], config: OnnxSessionConfig): Promise<OnnxRunner> {
  const opened: ort.InferenceSession[] = [];
  const sessions: (OnnxModelSession | Error)[] = [];
  for (const modelPath of modelPaths) {
    try {
      const { session, provider, skipped } = await createSession(modelPath, config);
      opened.push(session);
      sessions.push({
        inputNames: [...session.inputNames], outputNames: [...session.outputNames], provider, skippedProviders: skipped,
        run: (feeds) => runSession(session, feeds),
      });
    } catch (error) {
      sessions.push(error instanceof Error ? error : new Error(String(error)));
    }
  }
  return {
    sessions,
    close: async () => {
      await Promise.all(opened.splice(0).map((s) => s.release()));
    },
    pool: undefined,
  };
}

async function startInWorkers(modelPaths: readonly string[], config: OnnxSessionConfig, workers: number): Promise<OnnxRunner> {
  const pool = new WorkerPool<OnnxRequest, OnnxResponse>({
    name: 'onnx',
    script: siblingModule(import.meta.url, 'onnx-worker'),
    size: workers,
    workerData: { config, modelPaths: [...modelPaths] } satisfies OnnxWorkerData,
    startTimeoutMs: 120_000,
  });
  await pool.start();
  let described: readonly OnnxModelDescription[];
  try {
    const reply = await pool.run({ kind: 'describe' });
    if (reply.kind !== 'described') throw new Error(`unexpected worker reply ${reply.kind}`);
    described = reply.models;
  } catch (error) {
    await pool.close();
    throw error;
  }
  const sessions = described.map((d, model): OnnxModelSession | Error => {
    if (!d.ok) return new Error(d.error);
    return {
      inputNames: d.inputNames, outputNames: d.outputNames, provider: d.provider, skippedProviders: d.skippedProviders,
      run: async (feeds) => {
        const reply = await pool.run({ kind: 'run', model, feeds }, { transfer: transferables(feeds) });
        if (reply.kind !== 'ran') throw new Error(`unexpected worker reply ${reply.kind}`);
        return reply.outputs;
      },
    };
  });
  return {
    sessions,
    close: () => pool.close(),
    pool,
  };
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
