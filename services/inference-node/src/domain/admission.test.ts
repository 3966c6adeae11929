/**
 * The order in which pieces get an engine's slot: every request's first piece first, then the
 * other pieces by their request's arrival, so a request is not slowed by later ones (admission.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Admission, type SlotPriority } from './admission.js';

describe('admission queue order', () => {
  it('first pieces first, then the pieces of earlier requests before those of later ones', async () => {
    const admission = new Admission({ maxQueue: 16 });
    admission.addEngine('e', 1);
    const [a, b, c] = [admission.nextRequest(), admission.nextRequest(), admission.nextRequest()];
    const holder = await admission.acquire('e', undefined, { request: a, first: true });
    const granted: string[] = [];
    // Each piece, once it has the slot, notes its name and hands the slot on.
    const wait = (name: string, priority?: SlotPriority): Promise<void> =>
      admission.acquire('e', undefined, priority).then((release) => {
        granted.push(name);
        release();
      });
    // Queued in this order while the slot is busy.
    const all = [
      wait('c2', { request: c, first: false }),
      wait('unnumbered'), // behind every request numbered so far
      wait('b2', { request: b, first: false }),
      wait('a2', { request: a, first: false }),
      wait('a3', { request: a, first: false }),
      wait('c1', { request: c, first: true }),
      wait('b1', { request: b, first: true }),
    ];
    assert.equal(admission.queueDepth(), 7);
    holder();
    await Promise.all(all);
    assert.deepEqual(granted, ['b1', 'c1', 'a2', 'a3', 'b2', 'c2', 'unnumbered']);
    assert.equal(admission.queueDepth(), 0);
    assert.equal(admission.inFlight(), 0);
  });
});
