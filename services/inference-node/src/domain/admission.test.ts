/**
 * The order in which pieces get an engine's slot: tenants share it by weighted fair queuing; every
 * request's first piece first, then, within a tenant, the other pieces by their request's arrival,
 * so a request is not slowed by its tenant's later ones (admission.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtsError } from '@tts/common';
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

  /** Queues `pieces` while the slot is held, then frees it; the names in the order they got the slot. */
  async function order(admission: Admission, pieces: readonly (readonly [string, SlotPriority])[]): Promise<string[]> {
    const holder = await admission.acquire('e');
    const granted: string[] = [];
    const all = pieces.map(([name, priority]) => admission.acquire('e', undefined, priority).then((release) => {
      granted.push(name);
      release();
    }));
    holder();
    await Promise.all(all);
    return granted;
  }

  it('a second tenant\'s request is served next, not after the first tenant\'s backlog', async () => {
    const admission = new Admission({ maxQueue: 64 });
    admission.addEngine('e', 1);
    const flood = [admission.nextRequest(), admission.nextRequest(), admission.nextRequest()];
    const pieces: [string, SlotPriority][] = [];
    // Tenant A: three long requests, their later sentences queued (their first ones are rendering).
    for (const [r, request] of flood.entries()) {
      for (let i = 2; i <= 5; i++) pieces.push([`a${r}.${i}`, { request, first: false, tenant: 'A', characters: 120 }]);
    }
    // Tenant B arrives afterwards with a short request of two sentences.
    const b = admission.nextRequest();
    pieces.push(['b1', { request: b, first: true, tenant: 'B', characters: 5 }], ['b2', { request: b, first: false, tenant: 'B', characters: 40 }]);
    const granted = await order(admission, pieces);
    // b1 is a first piece; b2 has used less of its share than A when it arrives: both within A's next piece.
    assert.equal(granted[0], 'b1');
    assert.ok(granted.indexOf('b2') <= 2, `b2 was served as number ${granted.indexOf('b2') + 1} of ${granted.length}: ${granted.join(' ')}`);
    // Within tenant A, its requests keep their arrival order.
    const a = granted.filter((n) => n.startsWith('a'));
    assert.deepEqual(a, [...a].sort());
  });

  it('busy tenants share the slot by weight, in characters', async () => {
    const admission = new Admission({ maxQueue: 64 });
    admission.addEngine('e', 1);
    const [x, y] = [admission.nextRequest(), admission.nextRequest()];
    const pieces: [string, SlotPriority][] = [];
    for (let i = 0; i < 12; i++) {
      pieces.push([`x${i}`, { request: x, first: false, tenant: 'X', weight: 1, characters: 100 }]);
      pieces.push([`y${i}`, { request: y, first: false, tenant: 'Y', weight: 2, characters: 100 }]);
    }
    const granted = await order(admission, pieces);
    // In the first 12 grants, Y (twice X's weight) has about twice X's pieces.
    const ys = granted.slice(0, 12).filter((n) => n.startsWith('y')).length;
    assert.ok(ys >= 7 && ys <= 9, `Y had ${ys} of the first 12 grants: ${granted.join(' ')}`);
  });

  it('reports each tenant\'s accepted work per engine, and forgets a tenant once it is done', () => {
    const admission = new Admission({ maxQueue: 16 });
    admission.addEngine('e', 2);
    admission.addEngine('other', 1);
    admission.trackChars('e', 1000, 'A', 1);
    admission.trackChars('e', 10, 'B', 2);
    const load = admission.engineLoad('e')!;
    const byTenant = Object.fromEntries(load.tenants.map((t) => [t.tenantId, t]));
    assert.ok(byTenant['A']!.queuedWorkSeconds > 0 && byTenant['A']!.queuedWorkSeconds === 100 * byTenant['B']!.queuedWorkSeconds);
    assert.equal(byTenant['B']!.weight, 2);
    assert.ok(Math.abs(load.queuedWorkSeconds - byTenant['A']!.queuedWorkSeconds - byTenant['B']!.queuedWorkSeconds) < 1e-9);
    // Another engine's figures hold none of this work.
    assert.equal(admission.engineLoad('other')!.queuedWorkSeconds, 0);
    assert.deepEqual(admission.engineLoad('other')!.tenants, []);
    admission.trackChars('e', -1000, 'A', 1);
    assert.deepEqual(admission.engineLoad('e')!.tenants.map((t) => t.tenantId), ['B']);
  });

  it('admits interactive sessions up to maxSessions; a release gives the place back once', () => {
    const admission = new Admission({ maxQueue: 16, maxSessions: 2 });
    const a = admission.openSession();
    admission.openSession();
    assert.equal(admission.sessions(), 2);
    assert.throws(() => admission.openSession(), (e: unknown) => e instanceof TtsError && e.code === 'TTS_NODE_OVERLOADED' && e.retryAfterSec === 1);
    a();
    a();
    assert.equal(admission.sessions(), 1, 'a second release of the same place changes nothing');
    admission.openSession();
    assert.equal(admission.sessions(), admission.maxSessions());
  });
});
