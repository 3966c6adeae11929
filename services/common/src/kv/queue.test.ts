import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { openWorkQueue, type QueueEntry } from './index.js';
import { kvBackends } from './testing.js';

const items = (list: readonly QueueEntry[]): string[] => list.map((e) => e.item);

for (const backend of kvBackends()) {
  describe(`work queue (${backend.name})`, () => {
    it('delivers by priority, oldest first within a priority, each entry once', async (t) => {
      const q = await openWorkQueue(await backend.open(t), { name: 'jobs' });
      assert.equal(q.backend, backend.name);
      await q.add('free-1', 2);
      await q.add('web-1', 3);
      await q.add('ent-1', 0);
      await q.add('free-2', 2);
      await q.add('pro-1', 1);
      await q.add('ent-2', 0);
      assert.deepEqual(await q.stats(), { waiting: 6, pending: 0 });
      assert.deepEqual(items(await q.waiting()), ['ent-1', 'ent-2', 'pro-1', 'free-1', 'free-2', 'web-1']);
      const first = await q.take('c1', 3);
      assert.deepEqual(items(first), ['ent-1', 'ent-2', 'pro-1']);
      assert.deepEqual(first.map((e) => e.priority), [0, 0, 1]);
      const second = await q.take('c2', 10);
      assert.deepEqual(items(second), ['free-1', 'free-2', 'web-1']);
      assert.deepEqual(await q.take('c1', 5), [], 'nothing is delivered twice');
      await q.add('web-2', 3);
      await q.add('pro-2', 1);
      assert.deepEqual(items(await q.take('c1', 5, 2)), ['pro-2'], 'maxPriority leaves less urgent entries waiting');
      assert.deepEqual(items(await q.take('c1', 5, 2)), []);
      assert.deepEqual(items(await q.take('c1', 5)), ['web-2']);
      assert.deepEqual(await q.stats(), { waiting: 0, pending: 8 });
      assert.deepEqual(await q.waiting(), []);
    });

    it('gives entries ids unique across priorities, even when added in the same millisecond', async (t) => {
      const q = await openWorkQueue(await backend.open(t), { name: 'jobs' });
      const added = await Promise.all(Array.from({ length: 40 }, (_, i) => q.add(`x${i}`, i % 4)));
      assert.equal(new Set(added.map((e) => e.id)).size, 40);
      const taken = await q.take('c', 40);
      assert.deepEqual(taken.map((e) => e.id).sort(), added.map((e) => e.id).sort());
      await q.ack(taken.slice(0, 20));
      assert.deepEqual(await q.stats(), { waiting: 0, pending: 20 });
      assert.deepEqual((await q.pendingOf('c')).map((e) => e.id).sort(), taken.slice(20).map((e) => e.id).sort());
    });

    it('clamps priorities to the levels and rejects bad options', async (t) => {
      const kv = await backend.open(t);
      const q = await openWorkQueue(kv, { name: 'clamp', priorities: 2 });
      assert.equal((await q.add('low', 9)).priority, 1);
      assert.equal((await q.add('high', -3)).priority, 0);
      assert.deepEqual(items(await q.take('c', 2)), ['high', 'low']);
      await assert.rejects(openWorkQueue(kv, { name: 'bad name' }), RangeError);
      await assert.rejects(openWorkQueue(kv, { name: 'x', priorities: 0 }), RangeError);
    });

    it('keeps taken entries pending until acked; ack removes them for good', async (t) => {
      const q = await openWorkQueue(await backend.open(t), { name: 'jobs' });
      await q.add('a', 1);
      await q.add('b', 1);
      const taken = await q.take('c1', 2);
      assert.deepEqual(items(await q.pendingOf('c1')), ['a', 'b']);
      assert.deepEqual(await q.pendingOf('c2'), []);
      await q.ack([taken[0]!]);
      assert.deepEqual(items(await q.pendingOf('c1')), ['b']);
      assert.deepEqual(await q.stats(), { waiting: 0, pending: 1 });
      await q.ack([taken[0]!]); // twice is harmless
      await q.ack(taken);
      assert.deepEqual(await q.stats(), { waiting: 0, pending: 0 });
      const waitingEntry = await q.add('never-taken', 0);
      await q.ack([waitingEntry]);
      assert.deepEqual(await q.take('c1', 5), [], 'an acked waiting entry is gone');
    });

    it('lists every unacknowledged entry, waiting or pending for any consumer, by priority then age', async (t) => {
      const q = await openWorkQueue(await backend.open(t), { name: 'jobs' });
      assert.deepEqual(await q.unacked(), []);
      for (const [item, p] of [['low-1', 3], ['high-1', 0], ['low-2', 3], ['high-2', 0], ['mid', 1]] as const) await q.add(item, p);
      const taken = await q.take('c1', 2);
      await q.take('c2', 1);
      assert.deepEqual(items(await q.unacked()), ['high-1', 'high-2', 'mid', 'low-1', 'low-2']);
      await q.ack(taken);
      assert.deepEqual(items(await q.unacked()), ['mid', 'low-1', 'low-2']);
      assert.deepEqual((await q.unacked()).map((e) => e.priority), [1, 3, 3]);
    });

    it('lets another consumer claim entries left idle by a dead one, not fresh or touched ones', async (t) => {
      const q = await openWorkQueue(await backend.open(t), { name: 'jobs' });
      for (const x of ['a', 'b', 'c']) await q.add(x, 2);
      const held = await q.take('dead', 2);
      const live = await q.take('alive', 1);
      assert.deepEqual(await q.claimStale('rescuer', 10_000, 10), [], 'nothing is idle long enough');
      await sleep(150);
      await q.touch('alive', live);
      await q.touch('rescuer', held); // touching entries one does not hold changes nothing
      const claimed = await q.claimStale('rescuer', 120, 10);
      assert.deepEqual(items(claimed).sort(), ['a', 'b']);
      assert.deepEqual(claimed.map((e) => e.id).sort(), held.map((e) => e.id).sort());
      assert.deepEqual(await q.pendingOf('dead'), []);
      assert.deepEqual(items(await q.pendingOf('rescuer')).sort(), ['a', 'b']);
      assert.deepEqual(items(await q.pendingOf('alive')), ['c']);
      assert.deepEqual(await q.claimStale('other', 120, 10), [], 'a claim renews the lease');
      await q.ack(claimed);
      assert.deepEqual(await q.stats(), { waiting: 0, pending: 1 });
    });

    it('claims at most `count` stale entries', async (t) => {
      const q = await openWorkQueue(await backend.open(t), { name: 'jobs' });
      for (let i = 0; i < 5; i++) await q.add(`x${i}`, i % 2);
      await q.take('dead', 5);
      await sleep(60);
      assert.equal((await q.claimStale('r', 50, 3)).length, 3);
      assert.equal((await q.claimStale('r2', 50, 10)).length, 2);
    });

    if (backend.shared) {
      it('survives its consumer: a new connection sees waiting and pending entries (restart)', async (t) => {
        const kv = await backend.open(t);
        const before = await openWorkQueue(kv, { name: 'jobs' });
        for (let i = 0; i < 4; i++) await before.add(`job-${i}`, 2);
        await before.take('scheduler-a', 1);
        const after = await openWorkQueue(await backend.open(t, kv.prefix), { name: 'jobs' });
        assert.deepEqual(items(await after.pendingOf('scheduler-a')), ['job-0'], 'the same consumer name finds its pending entries');
        assert.deepEqual(items(await after.waiting()), ['job-1', 'job-2', 'job-3']);
        assert.deepEqual(items(await after.take('scheduler-a', 10)), ['job-1', 'job-2', 'job-3']);
        assert.deepEqual(await after.stats(), { waiting: 0, pending: 4 });
      });

      it('delivers each entry to exactly one of many concurrent consumers', async (t) => {
        const kv = await backend.open(t);
        const a = await openWorkQueue(kv, { name: 'jobs' });
        const b = await openWorkQueue(await backend.open(t, kv.prefix), { name: 'jobs' });
        for (let i = 0; i < 200; i++) await a.add(`j${i}`, i % 4);
        const batches = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).take(`c${i % 5}`, 7)));
        const all = batches.flat().map((e) => e.item);
        assert.equal(all.length, 200);
        assert.equal(new Set(all).size, 200);
      });
    }
  });
}
