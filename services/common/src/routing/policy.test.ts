import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtsError } from '../errors/tts-error.js';
import { nodeStatusFixture, type NodeStatusFixture } from './testing.js';
import { candidates, createRoutingPolicy, estimateOn, requiredEngine, routeOrError, type RoutableNode, type RouteRequest } from './index.js';

function node(nodeId: string, o: NodeStatusFixture = {}): RoutableNode {
  return { status: nodeStatusFixture(nodeId, o), routedSinceReport: 0 };
}

/** Asserts that `fn` throws the TtsError `code`, and runs `check` on it. */
function rejects(fn: () => unknown, code: string, check: (e: TtsError) => void = () => undefined): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof TtsError);
    assert.equal(e.code, code);
    check(e);
    return true;
  });
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

  it('routes an interactive session only to a node with a free session place, TTS_OVERLOADED when none has one', () => {
    const full = node('full', { sessions: 4, maxSessions: 4 });
    const free = node('free', { sessions: 3, maxSessions: 4, queued: 50, capacity: 1 });
    assert.deepEqual(candidates([full, free], req({ session: true })).map(id), ['free']);
    assert.deepEqual(candidates([full, free], req()).map(id), ['full', 'free'], 'other requests are not held back by sessions');
    const policy = createRoutingPolicy('least-loaded-all');
    assert.equal(routeOrError([full, free], [full, free], policy, req({ session: true })).entry.status.nodeId, 'free', 'even when the full node is less loaded');
    rejects(() => routeOrError([full], [full], policy, req({ session: true })), 'TTS_OVERLOADED');
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

  it('admission: refuses with TTS_OVERLOADED when no node fits the budget, with Retry-After by the overrun, and charges no node', () => {
    // 4 s of queued work on 2 slots: 2 s ahead; 1000 characters at 1 ms: 1 s.
    const busy = node('busy', { queued: 4, capacity: 2 });
    rejects(() => routeOrError([busy], [busy], policy, req({ characters: 1000, budgetSeconds: 2.5 })), 'TTS_OVERLOADED', (e) => assert.equal(e.retryAfterSec, 1));
    rejects(() => routeOrError([busy], [busy], policy, req({ characters: 1000, budgetSeconds: 1.5 })), 'TTS_OVERLOADED', (e) => assert.equal(e.retryAfterSec, 2));
    assert.equal(busy.routedSinceReport, 0);
    assert.equal(routeOrError([busy], [busy], policy, req({ characters: 1000, budgetSeconds: 3 })).entry, busy);
  });

  it('admission: takes the node where the request finishes first when the policy\'s pick does not fit', () => {
    const rr = createRoutingPolicy('round-robin');
    const busy = node('a-busy', { queued: 10 });
    const idle = node('b-idle');
    assert.equal(id(routeOrError([busy, idle], [busy, idle], rr, req({ budgetSeconds: 1 })).entry), 'b-idle');
  });

  it('admission: a request whose own cost exceeds the budget is admitted only behind little work (a quarter of the budget)', () => {
    // 5000 characters at 1 ms: 5 s, over a 2 s budget.
    const light = node('light', { queued: 0.4 });
    assert.equal(id(routeOrError([light], [light], policy, req({ characters: 5000, budgetSeconds: 2 })).entry), 'light');
    const busy = node('busy', { queued: 10 });
    rejects(() => routeOrError([busy], [busy], policy, req({ characters: 5000, budgetSeconds: 2 })), 'TTS_OVERLOADED', (e) => assert.equal(e.retryAfterSec, 10));
  });

  it('estimates from the engine\'s own slots, queued work and speed when the node reports them', () => {
    // The node: 3 slots and 3 s of work in all; flite alone: 1 slot holding all of it, 2 ms per character.
    const n = node('n', { queued: 3, capacity: 3, engineLoad: { capacity: 1, queuedWorkSeconds: 3, secondsPerChar: 0.002 } });
    // A request naming no engine: the node's figures.
    const all = estimateOn(n, req({ voice: 'alloy', characters: 100 }));
    assert.ok(Math.abs(all.startSeconds - 1) < 1e-9 && Math.abs(all.costSeconds - 0.1) < 1e-9, JSON.stringify([all.startSeconds, all.costSeconds]));
    const d = routeOrError([n], [n], createRoutingPolicy('least-loaded-all'), req({ characters: 100 }));
    assert.ok(Math.abs(d.startSeconds - 3) < 1e-9, String(d.startSeconds));
    assert.ok(Math.abs(d.costSeconds - 0.2) < 1e-9, String(d.costSeconds));
  });
});

describe('fair sharing between tenants and engines', () => {
  /** A node with festival and espeak (1 slot each, 2.8 ms per character) and the tenants' festival work. */
  const shared = (tenants: { tenantId: string; queuedWorkSeconds: number; weight: number }[] = []): RoutableNode => {
    const status = nodeStatusFixture('n', { engines: ['festival', 'espeak'], voices: ['festival:slt', 'espeak:en'], capacity: 2, queued: tenants.reduce((a, t) => a + t.queuedWorkSeconds, 0), engineLoad: { capacity: 1, queuedWorkSeconds: 0, secondsPerChar: 0.0028 } });
    const festival = status.engines.find((e) => e.name === 'festival')!;
    festival.queuedWorkSeconds = tenants.reduce((a, t) => a + t.queuedWorkSeconds, 0);
    festival.tenants = tenants;
    return { status, routedSinceReport: 0, routedByEngine: new Map() };
  };
  const policy = createRoutingPolicy('least-loaded-all');

  it('a newcomer waits for its fair share of another tenant\'s backlog, not for all of it', () => {
    const n = shared([{ tenantId: 'flood', queuedWorkSeconds: 112, weight: 4 }]);
    const ping = req({ voice: 'festival:slt', characters: 5, budgetSeconds: 96, tenant: 'victim', tenantWeight: 4 });
    const d = routeOrError([n], [n], policy, ping);
    // Its own 14 ms, and as much of the flood's (equal weights): well under a second, not 112 s.
    assert.ok(d.startSeconds < 0.1, `start ${d.startSeconds} s`);
    // Without a tenant, behind all of it (and refused against the same budget).
    rejects(() => routeOrError([n], [n], policy, req({ voice: 'festival:slt', characters: 5, budgetSeconds: 96 })), 'TTS_OVERLOADED');
    // The flood's own next request waits behind its own backlog.
    rejects(() => routeOrError([n], [n], policy, req({ voice: 'festival:slt', characters: 5000, budgetSeconds: 96, tenant: 'flood', tenantWeight: 4 })), 'TTS_OVERLOADED');
  });

  it('counts the work routed since the report for its engine and tenant only', () => {
    const n = shared();
    // Eight requests of 5,000 characters of one tenant routed to festival since the node's last report.
    for (let i = 0; i < 8; i++) routeOrError([n], [n], policy, req({ voice: 'festival:slt', characters: 5000, tenant: 'flood', tenantWeight: 4 }));
    assert.ok(n.routedSinceReport > 100, String(n.routedSinceReport));
    // espeak: none of it is ahead.
    const espeak = routeOrError([n], [n], policy, req({ voice: 'espeak:en', characters: 5, budgetSeconds: 96, tenant: 'victim' }));
    assert.equal(espeak.startSeconds, 0);
    // festival: only the victim's share of it.
    const festival = routeOrError([n], [n], policy, req({ voice: 'festival:slt', characters: 5, budgetSeconds: 96, tenant: 'victim' }));
    assert.ok(festival.startSeconds < 0.1, `start ${festival.startSeconds} s`);
  });
});

describe('voices unloaded for idleness', () => {
  // Both nodes offer flite:v; "cold" unloaded it (its flite loads again in 0.5 s).
  const warm = (queued = 0): RoutableNode => node('warm', { queued });
  const cold = (): RoutableNode => node('cold', { voices: [], unloadedVoices: ['flite:v'], loadMs: 500 });

  for (const name of ['least-loaded', 'least-loaded-all'] as const) {
    it(`${name} prefers the node holding the voice when load is comparable, and the other one when it is busier by more than a reload`, () => {
      const policy = createRoutingPolicy(name);
      assert.equal(id(policy.choose([cold(), warm()], req())?.entry), 'warm', 'same load: the loaded node');
      assert.equal(id(policy.choose([cold(), warm(0.4)], req())?.entry), 'warm', '0.4 s busier, less than the 0.5 s reload');
      const decision = policy.choose([cold(), warm(2)], req());
      assert.equal(id(decision?.entry), 'cold', '2 s busier: reloading is sooner');
      assert.equal(decision?.costSeconds, 0.1 + 0.5, 'the cost counts the reload');
    });
  }

  it('never picks a node that does not offer the voice while one that unloaded it does', () => {
    const policy = createRoutingPolicy('least-loaded-all');
    const other = node('other', { voices: ['flite:w'] });
    assert.equal(id(policy.choose([other, cold()], req())?.entry), 'cold');
  });
});

