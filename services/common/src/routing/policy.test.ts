import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtsError } from '../errors/tts-error.js';
import { nodeStatusFixture, type NodeStatusFixture } from './testing.js';
import { candidates, createRoutingPolicy, requiredEngine, routeOrError, type RoutableNode, type RouteRequest } from './index.js';

function node(nodeId: string, o: NodeStatusFixture = {}): RoutableNode {
  return { status: nodeStatusFixture(nodeId, o), routedSinceReport: 0 };
}

const req = (o: Partial<RouteRequest> = {}): RouteRequest => ({ voice: 'flite:v', engine: '', characters: 100, excludeNodeIds: [], ...o });
const id = (n: RoutableNode | undefined): string | undefined => n?.status.nodeId;

describe('requiredEngine and candidates', () => {
  it('takes the explicit engine (espeak-ng is espeak), else the voice prefix, else none', () => {
    assert.equal(requiredEngine(req({ engine: 'Flite' })), 'flite');
    assert.equal(requiredEngine(req({ engine: 'espeak-ng' })), 'espeak');
    assert.equal(requiredEngine(req({ voice: 'Piper:amy' })), 'piper');
    assert.equal(requiredEngine(req({ voice: 'alloy' })), '');
  });

  it('keeps nodes with the engine ready that the request has not failed on', () => {
    const a = node('a');
    const b = node('b', { engines: ['espeak'] });
    const c = node('c', { engineReady: false });
    const d = node('d');
    assert.deepEqual(candidates([a, b, c, d], req({ excludeNodeIds: ['d'] })).map(id), ['a']);
    assert.deepEqual(candidates([a, b, c, d], req({ voice: '' })).map(id), ['a', 'b', 'c', 'd']);
  });
});

describe('routing policies', () => {
  it('least-loaded-all minimises queued work per slot plus the request cost, counting work routed since the report', () => {
    const policy = createRoutingPolicy('least-loaded-all');
    const busy = node('busy', { queued: 2, capacity: 2 }); // 1 s ahead per slot
    const slow = node('slow', { secondsPerChar: 0.005 }); // 0.5 s for 100 characters
    const idle = node('idle');
    const first = policy.choose([busy, slow, idle], req());
    assert.equal(id(first?.entry), 'idle');
    assert.equal(first?.startSeconds, 0);
    assert.ok(Math.abs((first?.costSeconds ?? 0) - 0.1) < 1e-9);
    idle.routedSinceReport = 0.6;
    assert.equal(id(policy.choose([busy, slow, idle], req())?.entry), 'slow', 'routed work counts as queued work');
  });

  it('least-loaded compares two random candidates (power of two choices)', () => {
    const draws = [0.0, 0.99];
    let r = 0;
    const policy = createRoutingPolicy('least-loaded', () => draws[r++ % draws.length]!);
    const nodes = [node('n1', { secondsPerChar: 0.002 }), node('n2', { secondsPerChar: 0.004 }), node('n3', { secondsPerChar: 0.001 }), node('n4', { secondsPerChar: 0.003 })];
    // Candidates n1 and n4: n1 is faster. n3 (fastest) was not drawn.
    assert.equal(id(policy.choose(nodes, req())?.entry), 'n1');
  });

  it('prefers nodes that have the voice loaded', () => {
    const policy = createRoutingPolicy('least-loaded-all');
    const withVoice = node('has-voice', { secondsPerChar: 0.01 });
    const without = node('no-voice', { voices: [] });
    assert.equal(id(policy.choose([without, withVoice], req())?.entry), 'has-voice');
    assert.equal(id(policy.choose([without, withVoice], req({ voice: 'flite:other' }))?.entry), 'no-voice');
  });

  it('round-robin takes the nodes in turn by id', () => {
    const policy = createRoutingPolicy('round-robin');
    const nodes = [node('c'), node('a'), node('b')];
    assert.deepEqual([1, 2, 3, 4].map(() => id(policy.choose(nodes, req())?.entry)), ['a', 'b', 'c', 'a']);
    assert.equal(policy.choose([], req()), undefined);
  });
});

describe('routeOrError', () => {
  const policy = createRoutingPolicy('least-loaded-all');
  const rejects = (fn: () => unknown, code: string, check: (e: TtsError) => void = () => undefined): void => {
    assert.throws(fn, (e: unknown) => {
      assert.ok(e instanceof TtsError);
      assert.equal(e.code, code);
      check(e);
      return true;
    });
  };

  it('charges the chosen node with the request cost', () => {
    const a = node('a');
    const decision = routeOrError([a], [a], policy, req({ characters: 200 }));
    assert.equal(decision.entry, a);
    assert.ok(Math.abs(a.routedSinceReport - 0.2) < 1e-9);
  });

  it('an engine no node ever offered does not exist (engine or voice, by what the request named)', () => {
    const a = node('a');
    rejects(() => routeOrError([a], [a], policy, req({ engine: 'piper' })), 'TTS_ENGINE_NOT_FOUND', (e) => assert.deepEqual(e.loc, ['engine']));
    rejects(() => routeOrError([a], [a], policy, req({ voice: 'piper:amy' })), 'TTS_VOICE_NOT_FOUND', (e) => assert.deepEqual(e.loc, ['voice']));
  });

  it('a known engine that no ready node can serve is unavailable; no ready node at all is no node', () => {
    const flite = node('flite-node');
    const espeak = node('espeak-node', { engines: ['espeak'] });
    rejects(() => routeOrError([flite, espeak], [flite], policy, req({ voice: 'espeak:en' })), 'TTS_ENGINE_UNAVAILABLE', (e) => assert.equal(e.retryAfterSec, 5));
    rejects(() => routeOrError([flite], [], policy, req()), 'TTS_NO_NODE_AVAILABLE', (e) => assert.equal(e.retryAfterSec, 2));
    rejects(() => routeOrError([flite], [flite], policy, req({ voice: '', excludeNodeIds: ['flite-node'] })), 'TTS_NO_NODE_AVAILABLE');
  });
});
