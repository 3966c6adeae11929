/**
 * Creating onnxruntime sessions from configuration: execution providers tried one at a time in the
 * configured order (a provider whose libraries are missing, e.g. CUDA on a CPU-only install, is
 * skipped), thread counts and graph optimization level. Used both on the main thread and inside
 * the ONNX worker.
 */
import type * as ort from 'onnxruntime-node';

let runtime: Promise<typeof ort> | undefined;
/**
 * onnxruntime-node, loaded with the first session: a node that runs no ONNX model (no piper voice,
 * VAD trimming off) never loads its native library, ~6 MB of its memory (bench/README.md, `memory`).
 */
export function onnxRuntime(): Promise<typeof ort> {
  runtime ??= import('onnxruntime-node');
  return runtime;
}

/** Graph optimization levels of onnxruntime. */
export type GraphOptimizationLevel = 'disabled' | 'basic' | 'extended' | 'all';

/** How sessions are created. */
export interface OnnxSessionConfig {
  /**
   * Execution providers to try, in order ("cuda", "tensorrt", "cpu", ...); the first one a session
   * can be created with is used.
   * @default ["cpu"]
   */
  readonly executionProviders?: readonly string[];
  /** Threads one operator may use; 0 lets onnxruntime pick (one per core). @default 0 */
  readonly intraOpThreads?: number;
  /** Threads running independent operators in parallel (only with parallel execution). @default 0 */
  readonly interOpThreads?: number;
  /** @default "all" */
  readonly graphOptimizationLevel?: GraphOptimizationLevel;
}

/** Element data of the tensors passed across the engine boundary. */
export type PlainTensor =
  | { readonly type: 'float32'; readonly data: Float32Array; readonly dims: readonly number[] }
  | { readonly type: 'int64'; readonly data: BigInt64Array; readonly dims: readonly number[] };

/** A session plus the provider it actually runs on. */
export interface CreatedSession {
  readonly session: ort.InferenceSession;
  readonly provider: string;
  /** Providers tried before `provider` and why each failed. */
  readonly skipped: readonly { readonly provider: string; readonly error: string }[];
}

/** Normalizes a provider list: lower-cased, trimmed, duplicates dropped; empty means ["cpu"]. */
export function normalizeProviders(providers: readonly string[] | undefined): string[] {
  const list = [...new Set((providers ?? []).map((p) => p.trim().toLowerCase()).filter((p) => p !== ''))];
  return list.length === 0 ? ['cpu'] : list;
}

/**
 * Creates a session for the model at `modelPath`, trying each configured execution provider in
 * order. Rejects with the last provider's error when none works.
 */
export async function createSession(modelPath: string, config: OnnxSessionConfig): Promise<CreatedSession> {
  const ort = await onnxRuntime();
  const skipped: { provider: string; error: string }[] = [];
  for (const provider of normalizeProviders(config.executionProviders)) {
    try {
      const session = await ort.InferenceSession.create(modelPath, {
        executionProviders: [provider],
        intraOpNumThreads: config.intraOpThreads ?? 0,
        interOpNumThreads: config.interOpThreads ?? 0,
        graphOptimizationLevel: config.graphOptimizationLevel ?? 'all',
        // Warnings about nodes placed on the CPU provider are noise for a multi-provider list.
        logSeverityLevel: 3,
      });
      return { session, provider, skipped };
    } catch (error) {
      skipped.push({ provider, error: error instanceof Error ? error.message : String(error) });
    }
  }
  const last = skipped[skipped.length - 1];
  throw new Error(`no execution provider could run ${modelPath}: ${skipped.map((s) => `${s.provider}: ${s.error}`).join('; ')}`, {
    cause: last,
  });
}

/** Runs `session` on plain tensors and returns the requested (default: all) outputs as plain tensors. */
export async function runSession(session: ort.InferenceSession, feeds: Readonly<Record<string, PlainTensor>>): Promise<Record<string, PlainTensor>> {
  const { Tensor } = await onnxRuntime();
  const ortFeeds: Record<string, ort.Tensor> = {};
  for (const [name, t] of Object.entries(feeds)) ortFeeds[name] = new Tensor(t.type, t.data, t.dims);
  const results = await session.run(ortFeeds);
  const out: Record<string, PlainTensor> = {};
  for (const [name, value] of Object.entries(results)) {
    const dims = [...value.dims];
    if (value.type === 'float32') out[name] = { type: 'float32', data: (value.data as Float32Array).slice(), dims };
    else if (value.type === 'int64') out[name] = { type: 'int64', data: (value.data as BigInt64Array).slice(), dims };
    else throw new Error(`output "${name}" has unsupported type ${value.type}`);
    value.dispose();
  }
  return out;
}
