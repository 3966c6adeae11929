import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makePiperFixtures, tinyFixtureReference, type PiperFixtures } from '@tts/fixtures';
import { TtsError } from '@tts/common';
import { startOnnxRunner, type OnnxModelSession } from './onnx-runner.js';
import type { PlainTensor } from './onnx-session.js';
import { crashWorkerInFlight } from '../testing.js';
import type { WorkerPool } from '../workers/worker-pool.js';

let root = '';
let fixtures: PiperFixtures;

function feeds(ids: readonly number[]): Record<string, PlainTensor> {
  return {
    input: { type: 'int64', data: BigInt64Array.from(ids.map(BigInt)), dims: [1, ids.length] },
    input_lengths: { type: 'int64', data: BigInt64Array.from([BigInt(ids.length)]), dims: [1] },
    scales: { type: 'float32', data: Float32Array.from([0.667, 1, 0.8]), dims: [3] },
  };
}

function session(value: OnnxModelSession | Error | undefined): OnnxModelSession {
  if (value === undefined || value instanceof Error) throw value ?? new Error('no session');
  return value;
}

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'onnx-runner-'));
  fixtures = await makePiperFixtures(root);
  await writeFile(path.join(root, 'broken.onnx'), 'not a model');
});

after(async () => rm(root, { recursive: true, force: true }));

describe('ONNX runner', () => {
  it('runs sessions in a worker, reports each model that failed to open, and survives a worker crash', async () => {
    const runner = await startOnnxRunner([fixtures.tiny.onnxPath, path.join(root, 'broken.onnx')], { intraOpThreads: 1 });
    try {
      const tiny = session(runner.sessions[0]);
      assert.equal(tiny.provider, 'cpu');
      assert.deepEqual([...tiny.outputNames].sort(), ['output', 'output_lengths']);
      assert.ok(runner.sessions[1] instanceof Error);
      const ids = [1, 0, 20, 0, 2];
      const first = await tiny.run(feeds(ids));
      assert.deepEqual(first['output']!.data, tinyFixtureReference(ids, 1));

      await assert.rejects(crashWorkerInFlight(runner.pool as WorkerPool<unknown, unknown>), (err: unknown) => err instanceof TtsError && err.code === 'TTS_ENGINE_FAILED');
      // The replacement worker opened the sessions again.
      const again = await tiny.run(feeds(ids));
      assert.deepEqual(again['output']!.data, first['output']!.data);
    } finally {
      await runner.close();
    }
  });

  it('runs sessions on the main thread when asked', async () => {
    const runner = await startOnnxRunner([fixtures.rank3.onnxPath], { thread: 'main', graphOptimizationLevel: 'disabled' });
    try {
      const rank3 = session(runner.sessions[0]);
      const out = await rank3.run(feeds([1, 0, 2]));
      assert.deepEqual(out['output']!.dims, [1, 1, 3 * 256]);
      assert.equal(runner.pool, undefined);
      await assert.rejects(crashWorkerInFlight(runner.pool), /no worker/);
    } finally {
      await runner.close();
    }
  });
});
