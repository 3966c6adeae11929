import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamSlots } from './stream-slots.js';

describe('StreamSlots', () => {
  it('gives each holder at most max slots, and a released slot back once', () => {
    const slots = new StreamSlots(2);
    const a1 = slots.acquire('a');
    const a2 = slots.acquire('a');
    assert.ok(a1 && a2);
    assert.equal(slots.acquire('a'), undefined);
    assert.ok(slots.acquire('b'), 'another holder has its own slots');
    a1();
    a1();
    assert.equal(slots.openOf('a'), 1, 'a second release of the same slot frees nothing more');
    assert.ok(slots.acquire('a'));
    assert.equal(slots.acquire('a'), undefined);
  });
});
