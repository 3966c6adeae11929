import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nodeStatusFixture } from '@tts/common/testing';
import type { NodeEntry } from './membership.js';
import { createPlacementPolicy, type JobRouteRequest, type SlotView } from './routing.js';

function entry(nodeId: string, secondsPerChar: number, capacity: number, engines = ['flite']): NodeEntry {
  return { status: nodeStatusFixture(nodeId, { secondsPerChar, capacity, engines }), lastHeartbeatMs: 0, routedSinceReport: 0, routedByEngine: new Map() };
}

const view = (e: NodeEntry, slots: number[], foreignSeconds = 0): SlotView => ({ entry: e, slots: [...slots], foreignSeconds });
let jobs = 0;
const job = (characters: number, voice = 'flite:v', excludeNodeIds: string[] = [], jobId = `j${++jobs}`, priority = 1): JobRouteRequest => ({
  jobId,
  priority,
  voice,
  engine: '',
  characters,
  excludeNodeIds,
});
const ids = (plan: (NodeEntry | undefined)[]): (string | undefined)[] => plan.map((e) => e?.status.nodeId);

// Three nodes of two slots each; "slow" takes three times as long per character.
const fastA = entry('fast-a', 0.001, 2);
const fastB = entry('fast-b', 0.001, 2);
const slow = entry('slow', 0.003, 2);

describe('job placement', () => {
  it('least-loaded sends work to free fast nodes before the slow one', () => {
    const policy = createPlacementPolicy('least-loaded-all');
    const plan = policy.plan([job(100), job(100), job(100), job(100)], [view(fastA, [0, 0]), view(fastB, [0, 0]), view(slow, [0, 0])]);
    assert.deepEqual(ids(plan).sort(), ['fast-a', 'fast-a', 'fast-b', 'fast-b']);
  });

  it('least-loaded keeps a job queued for a fast node that frees up sooner than the slow node would finish', () => {
    const policy = createPlacementPolicy('least-loaded-all');
    // Fast nodes busy for another 0.05 s; the job costs 0.1 s there and 0.3 s on the idle slow node.
    const plan = policy.plan([job(100)], [view(fastA, [0.05, 0.08]), view(fastB, [0.06, 0.09]), view(slow, [0, 0])]);
    assert.deepEqual(ids(plan), [undefined]);
  });

  it('least-loaded uses the slow node once the backlog makes it finish sooner', () => {
    const policy = createPlacementPolicy('least-loaded-all');
    const fast = (): SlotView[] => [view(fastA, [0.05, 0.08]), view(fastB, [0.06, 0.09]), view(slow, [0, 0])];
    // Each job reserves the fast slot that frees first; the slow node (0.3 s) wins once the best
    // fast finish passes 0.3 s: jobs 1-8 finish at 0.15-0.29 s on fast nodes, job 9 at 0.36 s.
    const plan = policy.plan(Array.from({ length: 9 }, () => job(100)), fast());
    assert.deepEqual(ids(plan), [...new Array<undefined>(8).fill(undefined), 'slow']);
  });

  it('round-robin assigns jobs in turn regardless of speed; a job waits for its node, others go on', () => {
    const policy = createPlacementPolicy('round-robin');
    const plan = policy.plan([job(100), job(100), job(100)], [view(slow, [0, 0]), view(fastA, [0, 0]), view(fastB, [0, 0])]);
    assert.deepEqual(ids(plan), ['fast-a', 'fast-b', 'slow']);
    const waiting = job(100, 'flite:v', [], 'waits-for-fast-a');
    // fast-a is full: the job assigned to it waits, the next job goes to fast-b in turn.
    const second = policy.plan([waiting, job(100)], [view(slow, [0.2, 0.2]), view(fastA, [0.1, 0.1]), view(fastB, [0, 0])]);
    assert.deepEqual(ids(second), [undefined, 'fast-b']);
    // The waiting job keeps its node even when another one is free.
    const third = policy.plan([waiting], [view(slow, [0, 0]), view(fastA, [0.1, 0.1]), view(fastB, [0, 0])]);
    assert.deepEqual(ids(third), [undefined]);
    const fourth = policy.plan([waiting, job(100)], [view(slow, [0, 0]), view(fastA, [0, 0.1]), view(fastB, [0, 0])]);
    assert.deepEqual(ids(fourth), ['fast-a', 'slow'], 'the turn carries over between plans');
  });

  it('power of two choices picks the better of two free nodes and never idles a lone free one', () => {
    let r = 0;
    const draws = [0.0, 0.99]; // first candidate index 0, second the last of the others
    const policy = createPlacementPolicy('least-loaded', () => draws[r++ % draws.length]!);
    const nodes = [view(entry('n1', 0.002, 1), [0]), view(entry('n2', 0.004, 1), [0]), view(entry('n3', 0.001, 1), [0]), view(entry('n4', 0.003, 1), [0])];
    // Candidates n1 and n4: n1 is faster. n3 (fastest) was not drawn.
    assert.deepEqual(ids(policy.plan([job(100)], nodes)), ['n1']);
    const lone = policy.plan([job(100)], [view(entry('busy', 0.001, 1), [5]), view(entry('free', 0.001, 1), [0])]);
    assert.deepEqual(ids(lone), ['free']);
  });

  it('prefers nodes that have the voice loaded, and skips nodes without the engine', () => {
    const policy = createPlacementPolicy('least-loaded-all');
    const espeakOnly = entry('espeak-node', 0.0001, 2, ['espeak']);
    const flite = entry('flite-node', 0.01, 2, ['flite']);
    assert.deepEqual(ids(policy.plan([job(50, 'flite:v')], [view(espeakOnly, [0, 0]), view(flite, [0, 0])])), ['flite-node']);
    assert.deepEqual(ids(policy.plan([job(50, 'piper:x')], [view(espeakOnly, [0, 0]), view(flite, [0, 0])])), [undefined], 'no node has the engine');
    const withVoice = entry('has-voice', 0.01, 1);
    const without = { ...entry('no-voice', 0.001, 1), status: { ...entry('no-voice', 0.001, 1).status, loadedVoices: [] } };
    assert.deepEqual(ids(policy.plan([job(50, 'flite:v')], [view(without, [0]), view(withVoice, [0])])), ['has-voice']);
  });

  it('prefers a node holding the voice over one that unloaded it for idleness, unless the reload is sooner', () => {
    const policy = createPlacementPolicy('least-loaded-all');
    const warm = entry('warm', 0.001, 1);
    const cold = { ...entry('cold', 0.001, 1), status: nodeStatusFixture('cold', { voices: [], unloadedVoices: ['flite:v'], loadMs: 500 }) };
    assert.deepEqual(ids(policy.plan([job(50, 'flite:v')], [view(cold, [0]), view(warm, [0])])), ['warm'], 'both free: the loaded node');
    assert.deepEqual(ids(policy.plan([job(50, 'flite:v')], [view(cold, [0]), view(warm, [0.3])])), [undefined], 'the loaded node frees in 0.3 s, before a 0.5 s reload: the job waits for it');
    assert.deepEqual(ids(policy.plan([job(50, 'flite:v')], [view(cold, [0]), view(warm, [2])])), ['cold'], 'the loaded node is busy for 2 s: reload');
  });

  it('avoids nodes a job already failed on while another can run it', () => {
    const policy = createPlacementPolicy('least-loaded-all');
    assert.deepEqual(ids(policy.plan([job(100, 'flite:v', ['fast-a'])], [view(fastA, [0, 0]), view(slow, [0, 0])])), ['slow']);
    assert.deepEqual(ids(policy.plan([job(100, 'flite:v', ['fast-a'])], [view(fastA, [0, 0])])), ['fast-a'], 'the only node is used again');
  });

  it('starts no less urgent job while a more urgent one waits for a faster node', () => {
    const policy = createPlacementPolicy('least-loaded-all');
    // fast-a frees up in 0.05 s; the slow node is idle. The urgent job waits for fast-a (0.15 s
    // there against 0.3 s on the slow node); the less urgent job must not take the slow node first.
    const nodes = [view(fastA, [0.05, 0.06]), view(slow, [0, 0])];
    assert.deepEqual(ids(policy.plan([job(100, 'flite:v', [], 'urgent', 0), job(100, 'flite:v', [], 'later', 2)], nodes)), [undefined, undefined]);
    const same = [view(fastA, [0.05, 0.06]), view(slow, [0, 0])];
    const plan = policy.plan([job(100, 'flite:v', [], 'a', 1), ...Array.from({ length: 4 }, () => job(100))], same);
    assert.ok(plan.includes(slow), 'jobs of the same priority may still use the slow node');
  });

  it('counts foreign (synchronous) work on a node', () => {
    const policy = createPlacementPolicy('least-loaded-all');
    // fast-a has a free slot but 1 s of synchronous work queued (0.5 s per slot).
    assert.deepEqual(ids(policy.plan([job(100)], [view(fastA, [0, 0], 1), view(slow, [0, 0])])), ['slow']);
  });
});
