import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { TtsError } from '@tts/common';
import { isTtsError } from '@tts/common/testing';
import { DynamicBatcher } from './dynamic-batcher.js';

/** A run function that records its batches and can be held until released. */
function recorder<I>(options: { holdMs?: number } = {}) {
  const batches: I[][] = [];
  const run = async (batch: readonly I[]): Promise<string[]> => {
    batches.push([...batch]);
    if (options.holdMs !== undefined) await sleep(options.holdMs);
    return batch.map((item) => `out:${String(item)}`);
  };
  return { batches, run };
}

describe('DynamicBatcher', () => {
  it('groups requests up to maxBatchSize and answers each with its own result', async () => {
    const { batches, run } = recorder<number>({ holdMs: 5 });
    const batcher = new DynamicBatcher<number, string>({ maxBatchSize: 2, maxQueue: 10, run });
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.submit(n)));
    assert.deepEqual(results, ['out:1', 'out:2', 'out:3', 'out:4', 'out:5']);
    assert.deepEqual(batches, [[1, 2], [3, 4], [5]]);
    assert.equal(batcher.stats.batches, 3);
    assert.equal(batcher.stats.items, 5);
  });

  it('waits up to maxQueueDelayMs for company, then runs a partial batch', async () => {
    const { batches, run } = recorder<string>();
    const batcher = new DynamicBatcher<string, string>({ maxBatchSize: 4, maxQueueDelayMs: 60, maxQueue: 10, run });
    const started = performance.now();
    const first = batcher.submit('a');
    await sleep(15);
    const second = batcher.submit('b');
    assert.deepEqual(await Promise.all([first, second]), ['out:a', 'out:b']);
    const elapsed = performance.now() - started;
    assert.deepEqual(batches, [['a', 'b']]);
    assert.ok(elapsed >= 55, `partial batch ran after ${elapsed.toFixed(1)} ms, before the 60 ms delay`);
    assert.ok(elapsed < 500, `partial batch waited ${elapsed.toFixed(1)} ms`);
  });

  it('runs a full batch at once without waiting for the delay', async () => {
    const { batches, run } = recorder<number>();
    const batcher = new DynamicBatcher<number, string>({ maxBatchSize: 3, maxQueueDelayMs: 10_000, maxQueue: 10, run });
    const started = performance.now();
    await Promise.all([1, 2, 3].map((n) => batcher.submit(n)));
    assert.ok(performance.now() - started < 1000);
    assert.deepEqual(batches, [[1, 2, 3]]);
  });

  it('batches only requests with the same key', async () => {
    const { batches, run } = recorder<string>({ holdMs: 5 });
    const batcher = new DynamicBatcher<string, string>({ maxBatchSize: 4, maxQueue: 10, run, batchKey: (s) => s.slice(0, 1) });
    await Promise.all(['a1', 'b1', 'a2', 'b2', 'a3'].map((s) => batcher.submit(s)));
    assert.deepEqual(batches, [['a1', 'a2', 'a3'], ['b1', 'b2']]);
  });

  it('with a similarity measure, batches the oldest request with the closest ones', async () => {
    const { batches, run } = recorder<number>({ holdMs: 20 });
    const batcher = new DynamicBatcher<number, string>({ maxBatchSize: 3, maxQueue: 10, run, similarity: (n) => n });
    const busy = batcher.submit(1000);
    await sleep(5);
    const rest = [50, 5, 48, 6, 52, 7].map((n) => batcher.submit(n));
    await Promise.all([busy, ...rest]);
    assert.deepEqual(batches, [[1000], [50, 48, 52], [5, 6, 7]]);
  });

  it('refuses a request when the queue is full with TTS_NODE_OVERLOADED and a Retry-After', async () => {
    const { run } = recorder<number>({ holdMs: 40 });
    const batcher = new DynamicBatcher<number, string>({ maxBatchSize: 1, maxQueue: 2, run });
    const running = batcher.submit(0);
    await sleep(5); // item 0 now runs; the queue is empty
    const waiting = [batcher.submit(1), batcher.submit(2)];
    const error = await batcher.submit(3).then(() => null, (e: unknown) => e);
    assert.ok(error instanceof TtsError);
    assert.equal(error.code, 'TTS_NODE_OVERLOADED');
    assert.equal(error.spec.grpc, 'RESOURCE_EXHAUSTED');
    assert.ok([429, 503].includes(error.spec.http));
    assert.ok(error.retryAfterSec !== undefined && error.retryAfterSec >= 1);
    assert.equal(batcher.stats.rejected, 1);
    assert.deepEqual(await Promise.all([running, ...waiting]), ['out:0', 'out:1', 'out:2']);
  });

  it('removes a cancelled queued request: it is rejected with TTS_CANCELLED and never runs', async () => {
    const { batches, run } = recorder<string>({ holdMs: 30 });
    const batcher = new DynamicBatcher<string, string>({ maxBatchSize: 8, maxQueue: 10, run });
    const first = batcher.submit('busy');
    await sleep(5);
    const controller = new AbortController();
    const cancelled = batcher.submit('gone', controller.signal);
    const kept = batcher.submit('kept');
    assert.equal(batcher.queued, 2);
    controller.abort();
    await assert.rejects(cancelled, isTtsError('TTS_CANCELLED'));
    assert.equal(batcher.queued, 1);
    assert.deepEqual(await Promise.all([first, kept]), ['out:busy', 'out:kept']);
    assert.deepEqual(batches, [['busy'], ['kept']]);
    assert.equal(batcher.stats.cancelled, 1);
  });

  it('rejects an already aborted request without queueing it', async () => {
    const { batches, run } = recorder<string>();
    const batcher = new DynamicBatcher<string, string>({ maxBatchSize: 2, maxQueue: 2, run });
    await assert.rejects(batcher.submit('x', AbortSignal.abort()), isTtsError('TTS_CANCELLED'));
    await sleep(5);
    assert.equal(batches.length, 0);
  });

  it('answers a request cancelled while its batch runs at once, and the others normally', async () => {
    const { run } = recorder<string>({ holdMs: 150 });
    const batcher = new DynamicBatcher<string, string>({ maxBatchSize: 2, maxQueue: 4, run });
    const controller = new AbortController();
    const cancelled = batcher.submit('a', controller.signal);
    const other = batcher.submit('b');
    await sleep(10);
    const abortedAt = performance.now();
    controller.abort();
    await assert.rejects(cancelled, isTtsError('TTS_CANCELLED'));
    assert.ok(performance.now() - abortedAt < 100, 'the cancelled caller did not wait for the batch');
    assert.equal(await other, 'out:b');
  });

  it('rejects every request of a failing batch with the run error', async () => {
    const batcher = new DynamicBatcher<number, number>({
      maxBatchSize: 4, maxQueue: 4, run: async () => { throw new Error('boom'); },
    });
    const results = await Promise.allSettled([1, 2].map((n) => batcher.submit(n)));
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
    assert.match(String((results[0] as PromiseRejectedResult).reason), /boom/);
    // The batcher keeps serving after a failure.
    const ok = new DynamicBatcher<number, number>({ maxBatchSize: 1, maxQueue: 1, run: async (b) => b.map((n) => n * 2) });
    assert.equal(await ok.submit(21), 42);
  });

  it('runs up to maxConcurrentBatches batches at once', async () => {
    let running = 0;
    let peak = 0;
    const batcher = new DynamicBatcher<number, number>({
      maxBatchSize: 1, maxQueue: 10, maxConcurrentBatches: 2,
      run: async (batch) => { running++; peak = Math.max(peak, running); await sleep(20); running--; return [...batch]; },
    });
    await Promise.all([1, 2, 3, 4].map((n) => batcher.submit(n)));
    assert.equal(peak, 2);
  });

  it('rejects waiting requests on close and refuses new ones', async () => {
    const { run } = recorder<number>({ holdMs: 20 });
    const batcher = new DynamicBatcher<number, string>({ maxBatchSize: 1, maxQueue: 4, run });
    const running = batcher.submit(1);
    await sleep(2);
    const waiting = assert.rejects(batcher.submit(2), isTtsError('SERVICE_SHUTTING_DOWN'));
    await batcher.close();
    assert.equal(await running, 'out:1');
    await waiting;
    await assert.rejects(batcher.submit(3), isTtsError('SERVICE_SHUTTING_DOWN'));
  });

  it('adds well under 1 ms per request at concurrency 1 with maxQueueDelayMs 0', async (t) => {
    const run = async (batch: readonly number[]): Promise<number[]> => batch.map((n) => n + 1);
    const batcher = new DynamicBatcher<number, number>({ maxBatchSize: 8, maxQueueDelayMs: 0, maxQueue: 64, run });
    const rounds = 2000;
    for (let i = 0; i < 200; i++) await batcher.submit(i); // warm-up
    let started = performance.now();
    for (let i = 0; i < rounds; i++) await run([i]);
    const direct = (performance.now() - started) / rounds;
    started = performance.now();
    for (let i = 0; i < rounds; i++) assert.equal(await batcher.submit(i), i + 1);
    const batched = (performance.now() - started) / rounds;
    const overheadMs = batched - direct;
    assert.ok(overheadMs < 1, `batcher overhead ${overheadMs.toFixed(4)} ms per request`);
    t.diagnostic(`batcher overhead at concurrency 1: ${(overheadMs * 1000).toFixed(1)} µs per request`);
  });

  it('validates its options', () => {
    const run = async (b: readonly number[]) => [...b];
    assert.throws(() => new DynamicBatcher({ maxBatchSize: 0, maxQueue: 1, run }), RangeError);
    assert.throws(() => new DynamicBatcher({ maxBatchSize: 1, maxQueue: 0, run }), RangeError);
    assert.throws(() => new DynamicBatcher({ maxBatchSize: 1, maxQueue: 1, maxQueueDelayMs: -1, run }), RangeError);
  });
});
