import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtsError } from '@tts/common';
import { SlotPool, type PoolSlot } from './slot-pool.js';

/** A trivial slot: records its id, can be killed from the test. */
class TestSlot implements PoolSlot {
  disposed = false;
  constructor(
    readonly id: number,
    readonly die: (cause: unknown) => void,
  ) {}
  async dispose(): Promise<void> {
    this.disposed = true;
  }
}

function isCode(code: string) {
  return (err: unknown): boolean => err instanceof TtsError && err.code === code;
}

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function makePool(size: number, failStarts = 0) {
  const created: TestSlot[] = [];
  let attempts = 0;
  const pool = new SlotPool<TestSlot>({
    name: 'test',
    size,
    restartBackoffMs: 5,
    create: async (onDeath) => {
      attempts += 1;
      if (created.length >= size && attempts <= size + failStarts) throw new Error(`start failure ${attempts}`);
      const slot = new TestSlot(created.length, onDeath);
      created.push(slot);
      return slot;
    },
  });
  return { pool, created };
}

describe('SlotPool', () => {
  it('runs at most one task per slot, in FIFO order', async () => {
    const { pool } = makePool(2);
    await pool.start();
    const gates = Array.from({ length: 5 }, () => deferred<void>());
    const started: number[] = [];
    let running = 0;
    let maxRunning = 0;
    const results = gates.map((gate, i) =>
      pool.run(async () => {
        started.push(i);
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await gate.promise;
        running -= 1;
        return i;
      }),
    );
    for (const gate of gates) {
      await new Promise((r) => setImmediate(r));
      gate.resolve();
    }
    assert.deepEqual(await Promise.all(results), [0, 1, 2, 3, 4]);
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
    assert.equal(maxRunning, 2);
    await pool.close();
  });

  it('fails the task of a dying slot with TTS_ENGINE_FAILED and replaces the slot', async () => {
    const { pool, created } = makePool(1);
    await pool.start();
    const never = deferred<void>();
    const doomed = pool.run(async () => never.promise);
    await new Promise((r) => setImmediate(r));
    created[0]!.die(new Error('boom'));
    await assert.rejects(doomed, isCode('TTS_ENGINE_FAILED'));
    assert.equal(created[0]!.disposed, true);
    assert.equal(await pool.run(async (slot) => slot.id), 1, 'the next task runs on the replacement');
    assert.equal(pool.replacements, 1);
    await pool.close();
  });

  it('fails queued tasks fast while replacements keep failing to start', async () => {
    const { pool, created } = makePool(1, 100);
    await pool.start();
    created[0]!.die(new Error('boom'));
    const queued = pool.run(async () => 'never');
    await assert.rejects(queued, (err: unknown) => isCode('TTS_ENGINE_FAILED')(err) && /keep failing/.test((err as Error).message));
    await assert.rejects(pool.run(async () => 'never'), isCode('TTS_ENGINE_FAILED'));
    await pool.close();
  });

  it('drops a cancelled task from the queue', async () => {
    const { pool } = makePool(1);
    await pool.start();
    const gate = deferred<void>();
    const first = pool.run(async () => gate.promise);
    const controller = new AbortController();
    let ran = false;
    const second = pool.run(async () => {
      ran = true;
    }, { signal: controller.signal });
    controller.abort();
    await assert.rejects(second, isCode('TTS_CANCELLED'));
    gate.resolve();
    await first;
    await pool.run(async () => undefined);
    assert.equal(ran, false);
    await assert.rejects(pool.run(async () => undefined, { signal: AbortSignal.abort() }), isCode('TTS_CANCELLED'));
    await pool.close();
  });

  it('rejects queued and new tasks once closed, and disposes its slots', async () => {
    const { pool, created } = makePool(1);
    await pool.start();
    const gate = deferred<void>();
    const running = pool.run(async () => gate.promise);
    const queued = pool.run(async () => undefined);
    await pool.close();
    await assert.rejects(running, isCode('TTS_ENGINE_UNAVAILABLE'));
    await assert.rejects(queued, isCode('TTS_ENGINE_UNAVAILABLE'));
    await assert.rejects(pool.run(async () => undefined), isCode('TTS_ENGINE_UNAVAILABLE'));
    assert.ok(created.every((s) => s.disposed));
  });

  it('start() rejects and stops the started slots when one fails', async () => {
    let n = 0;
    const slots: TestSlot[] = [];
    const pool = new SlotPool<TestSlot>({
      name: 'test',
      size: 2,
      create: async (onDeath) => {
        n += 1;
        if (n === 2) throw new Error('no luck');
        const s = new TestSlot(n, onDeath);
        slots.push(s);
        return s;
      },
    });
    await assert.rejects(pool.start(), /no luck/);
    assert.ok(slots.every((s) => s.disposed));
  });
});
