/** Small statistics and timing helpers for the benchmarks. */
import { performance } from 'node:perf_hooks';

/** Percentile (0..100) of `values` by nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** p50/p95/p99/mean of a sample. */
export function summary(values: readonly number[]): { n: number; p50: number; p95: number; p99: number; mean: number } {
  const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  return { n: values.length, p50: percentile(values, 50), p95: percentile(values, 95), p99: percentile(values, 99), mean };
}

/** Milliseconds taken by `fn`. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Runs `fn` `total` times with `concurrency` workers; returns per-call latencies and wall time. */
export async function load(concurrency: number, total: number, fn: () => Promise<unknown>): Promise<{ latencies: number[]; wallMs: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        latencies.push(await timeMs(fn));
      }
    }),
  );
  return { latencies, wallMs: performance.now() - started };
}

/** Rounds for tables. */
export function r(n: number, digits = 2): number {
  return Number(n.toFixed(digits));
}

/** Lower-case words of a text (letters and apostrophes), for word error rates. */
export function words(text: string): string[] {
  return text.toLowerCase().replace(/[^a-z' ]/g, ' ').split(/\s+/).filter((w) => w !== '');
}

/** Word-level edit distance between a reference text and a transcript (substitutions, insertions, deletions). */
export function wordEdits(reference: string, transcript: string): number {
  const ref = words(reference);
  const hyp = words(transcript);
  const d = Array.from({ length: ref.length + 1 }, (_, i) => [i, ...Array<number>(hyp.length).fill(0)]);
  for (let j = 1; j <= hyp.length; j++) d[0]![j] = j;
  for (let i = 1; i <= ref.length; i++) for (let j = 1; j <= hyp.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
  return d[ref.length]![hyp.length]!;
}

/** Answers by status and error code ("200", "503 TTS_OVERLOADED", ...). */
export function answersOf(outcomes: readonly { readonly status: number; readonly code: string | undefined }[]): Record<string, number> {
  const byAnswer: Record<string, number> = {};
  for (const o of outcomes) {
    const key = o.code === undefined ? String(o.status) : `${o.status} ${o.code}`;
    byAnswer[key] = (byAnswer[key] ?? 0) + 1;
  }
  return byAnswer;
}
