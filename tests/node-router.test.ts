/**
 * Lookaside routing in the facade: the NodeRouter against a real scheduler and two real inference
 * nodes on loopback. Picks come from the router's cached view (one background ListNodes, not one
 * call per request), follow readiness changes after a refresh, spread work by what was routed since
 * each node's last report, and survive the scheduler going away.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NodeState } from '@tts/proto/synthesis';
import { ClusterView, NodeRouter, type NodeRouterOptions } from '@tts/facade/testing';
import { TtsError, closeAllClients, setLogSink } from '@tts/common';
import { start as startNode, type RunningNode } from '@tts/inference-node';
import { start as startScheduler, type RunningScheduler } from '@tts/scheduler';
import { openJobStorage, type JobStorage } from '@tts/scheduler/testing';
import { freePort } from './support/processes.js';
import { waitFor } from './support/platform.js';

if (process.env['TEST_LOGS'] !== '1') setLogSink(() => undefined);

const FLITE = { voice: 'flite:slt', engine: '', characters: 100 };

/** Asserts that `promise` rejects with the catalogue code `code`; returns the error. */
async function rejectsWith(promise: Promise<unknown>, code: string): Promise<TtsError> {
  let caught: unknown;
  await promise.then(
    () => assert.fail(`expected ${code}`),
    (err: unknown) => {
      caught = err;
    },
  );
  assert.ok(caught instanceof TtsError, String(caught));
  assert.equal(caught.code, code);
  return caught;
}

describe('NodeRouter (lookaside routing)', () => {
  let storage: JobStorage;
  let scheduler: RunningScheduler;
  let schedulerStopped = false;
  let a: RunningNode;
  let b: RunningNode;
  const routers: NodeRouter[] = [];
  const router = (o: Partial<NodeRouterOptions> = {}): NodeRouter => {
    const r = new NodeRouter({ schedulerAddress: scheduler.address, ...o });
    routers.push(r);
    return r;
  };
  /** Resolves once a ListNodes that started after this call has completed. */
  const freshFetch = async (r: NodeRouter): Promise<void> => {
    const { fetches, refreshing } = r.stats();
    // A refresh under way started before: wait for the one invalidate() adds after it.
    const target = fetches + (refreshing ? 2 : 1);
    r.invalidate();
    await waitFor(() => r.stats().fetches >= target, 5000, 'a refresh of the routing view');
  };

  before(async () => {
    storage = await openJobStorage();
    scheduler = await startScheduler({
      host: '127.0.0.1', port: await freePort(), heartbeatMs: 200, nodeTimeoutMs: 1500, staticNodes: [], discovery: 'self',
      database: storage.database, kv: storage.kv,
    });
    const node = (id: string): Promise<RunningNode> =>
      startNode({ host: '127.0.0.1', port: 0, nodeId: `${id}-${process.pid}`, engines: ['flite'], fliteWorkers: 1, schedulerAddress: scheduler.address, heartbeatMs: 200 });
    [a, b] = await Promise.all([node('router-a'), node('router-b')]);
    await waitFor(() => scheduler.context.membership.ready().length === 2, 10_000, 'both nodes ready');
  });

  after(async () => {
    for (const r of routers) r.close();
    await Promise.all([a.stop(1000), b.stop(1000)]);
    if (!schedulerStopped) await scheduler.stop(1000);
    closeAllClients();
    await storage.close();
  });

  test('picks a ready node from the cached view: one ListNodes for many picks', async () => {
    const r = router({ refreshMs: 60_000 });
    const picked = new Map<string, string>();
    for (let i = 0; i < 100; i++) {
      const node = await r.pick(FLITE, []);
      picked.set(node.nodeId, node.address);
    }
    assert.equal(r.stats().fetches, 1, 'only the first pick waited for the scheduler');
    assert.deepEqual([...picked].sort(), [[a.nodeId, a.address], [b.nodeId, b.address]].sort());
  });

  test('the cluster view shares the router\'s ListNodes', async () => {
    const r = router({ refreshMs: 60_000 });
    await r.pick(FLITE, []);
    const snap = await new ClusterView(r).snapshot();
    assert.deepEqual(snap.ready.map((n) => n.nodeId).sort(), [a.nodeId, b.nodeId].sort());
    assert.ok(snap.voices.some((v) => v.id === 'flite:slt'));
    assert.equal(r.stats().fetches, 1, 'the recent view was reused');
  });

  test('with two equal nodes, a stream of picks spreads over both (work routed since the last report)', async () => {
    const r = router({ refreshMs: 60_000 });
    const counts = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const node = await r.pick(FLITE, []);
      counts.set(node.nodeId, (counts.get(node.nodeId) ?? 0) + 1);
    }
    // Without the accounting every pick would go to the node that looked best in the one view.
    assert.ok((counts.get(a.nodeId) ?? 0) >= 10 && (counts.get(b.nodeId) ?? 0) >= 10, JSON.stringify([...counts]));
  });

  test('routed work is kept across refreshes of the same report and reset by a report written well after it', async () => {
    const r = router({ refreshMs: 60_000 });
    const reportOfA = async (): Promise<number> => (await r.listNodes(Number.POSITIVE_INFINITY)).find((n) => n.status?.nodeId === a.nodeId)!.lastHeartbeatUnixMs;
    const chargeA = async (): Promise<number> => {
      let last = 0;
      for (let i = 0; i < 10; i++) last = (await r.pick(FLITE, [b.nodeId])).estimatedStartSeconds;
      return last;
    };
    const charged = await chargeA();
    assert.ok(charged > 0, 'the picks queue work ahead of the next one');
    let chargedAtMs = Date.now();
    let kept = false;
    let reset = false;
    for (let attempt = 0; attempt < 20 && !(kept && reset); attempt++) {
      const before = await reportOfA();
      const estimateBefore = (await r.pick(FLITE, [b.nodeId])).estimatedStartSeconds;
      // A newer report arrives every 200 ms: refresh at once to see the same one, or after 800 ms
      // to see one written after the work routed in the 500 ms before it (which it may not count
      // yet, so the router carries it over) has gone by.
      if (kept) await new Promise((resolve) => setTimeout(resolve, 800));
      await freshFetch(r);
      const now = (await r.pick(FLITE, [b.nodeId])).estimatedStartSeconds;
      if ((await reportOfA()) === before) {
        assert.ok(now > estimateBefore, `kept: ${now} after ${estimateBefore}`);
        kept = true;
      } else {
        // A report written within the carry-over (500 ms) after the picks still carries them: only a
        // later one must show the idle node.
        if ((await reportOfA()) > chargedAtMs + 600) {
          assert.equal(now, 0, 'reset: the idle node has no queued work in its newer report');
          reset = true;
        }
        await chargeA();
        chargedAtMs = Date.now();
      }
    }
    assert.ok(kept && reset, `kept ${kept}, reset ${reset}`);
  });

  test('exclusion: a node the request failed on is skipped; excluding every node leaves none', async () => {
    const r = router({ refreshMs: 60_000 });
    for (let i = 0; i < 10; i++) assert.equal((await r.pick(FLITE, [a.nodeId])).nodeId, b.nodeId);
    const err = await rejectsWith(r.pick(FLITE, [a.nodeId, b.nodeId]), 'TTS_ENGINE_UNAVAILABLE');
    assert.equal(err.retryAfterSec, 5);
  });

  test('an engine or voice no node offers does not exist', async () => {
    const r = router({ refreshMs: 60_000 });
    const engine = await rejectsWith(r.pick({ voice: '', engine: 'nosuch', characters: 10 }, []), 'TTS_ENGINE_NOT_FOUND');
    assert.deepEqual(engine.loc, ['engine']);
    const voice = await rejectsWith(r.pick({ voice: 'nosuch:voice', engine: '', characters: 10 }, []), 'TTS_VOICE_NOT_FOUND');
    assert.deepEqual(voice.loc, ['voice']);
  });

  test('a node that reports not ready leaves the picks after a refresh, and comes back when ready', async () => {
    const r = router({ refreshMs: 50 });
    await r.pick(FLITE, []);
    a.context.state = NodeState.NODE_STATE_DRAINING;
    try {
      await waitFor(() => scheduler.context.membership.get(a.nodeId)?.status.state === NodeState.NODE_STATE_DRAINING, 5000, 'the draining report');
      await freshFetch(r);
      for (let i = 0; i < 20; i++) assert.equal((await r.pick(FLITE, [])).nodeId, b.nodeId);
    } finally {
      a.context.state = NodeState.NODE_STATE_READY;
    }
    await waitFor(() => scheduler.context.membership.ready().length === 2, 5000, 'node a ready again');
    await freshFetch(r);
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) seen.add((await r.pick(FLITE, [])).nodeId);
    assert.ok(seen.has(a.nodeId));
  });

  test('a node a call could not reach is skipped until it reports again; with every node suspect, one is still tried', async () => {
    const r = router({ refreshMs: 60_000 });
    await r.pick(FLITE, []);
    r.suspect(a.nodeId);
    // Picks answer from the cached view (no I/O), so they all run before the refresh triggered above.
    for (let i = 0; i < 20; i++) assert.equal((await r.pick(FLITE, [])).nodeId, b.nodeId);
    r.suspect(b.nodeId);
    assert.ok([a.nodeId, b.nodeId].includes((await r.pick(FLITE, [])).nodeId), 'every node suspect: still routed');
    // Both keep heart-beating: once the view holds newer reports, both are picked again.
    const reported = scheduler.context.membership.get(a.nodeId)!.lastHeartbeatMs;
    await waitFor(() => scheduler.context.membership.get(a.nodeId)!.lastHeartbeatMs > reported && scheduler.context.membership.get(b.nodeId)!.lastHeartbeatMs > reported, 5000, 'newer reports');
    await freshFetch(r);
    // Load-based picks promise no spread over healthy nodes, so each node's return is shown by
    // suspecting the other one: every pick then lands on the node that was suspect before.
    r.suspect(b.nodeId);
    for (let i = 0; i < 20; i++) assert.equal((await r.pick(FLITE, [])).nodeId, a.nodeId, 'a is trusted again after a newer report');
    const reportedB = scheduler.context.membership.get(b.nodeId)!.lastHeartbeatMs;
    await waitFor(() => scheduler.context.membership.get(b.nodeId)!.lastHeartbeatMs > reportedB, 5000, 'a newer report of b');
    await freshFetch(r);
    r.suspect(a.nodeId);
    for (let i = 0; i < 20; i++) assert.equal((await r.pick(FLITE, [])).nodeId, b.nodeId, 'b is trusted again after a newer report');
  });

  test('a removed node leaves the picks after a refresh', async () => {
    const r = router({ refreshMs: 50 });
    await r.pick(FLITE, []);
    await a.stop(1000);
    scheduler.context.membership.remove(a.nodeId);
    await freshFetch(r);
    assert.ok(!(await r.listNodes(Number.POSITIVE_INFINITY)).some((n) => n.status?.nodeId === a.nodeId));
    for (let i = 0; i < 20; i++) assert.equal((await r.pick(FLITE, [])).nodeId, b.nodeId);
  });

  test('with the scheduler down: picks go on from the last view; with no view at all, TTS_NO_NODE_AVAILABLE', async () => {
    const r = router({ refreshMs: 50, staleAfterMs: 300 });
    await r.pick(FLITE, []);
    await scheduler.stop(1000);
    schedulerStopped = true;
    const failures = r.stats().failures;
    // Past the staleness limit and older than the 1 s the cluster view accepts.
    await waitFor(() => r.stats().failures > failures && r.stats().stale && Date.now() - r.stats().fetchedAtMs! > 1100, 5000, 'failing refreshes and a stale view');
    const fetches = r.stats().fetches;
    for (let i = 0; i < 10; i++) assert.equal((await r.pick(FLITE, [])).nodeId, b.nodeId);
    assert.ok(r.stats().fetches - fetches <= 2, 'picks do not wait for the scheduler');
    // The cluster view (health, voices) does report the scheduler as unreachable.
    await rejectsWith(new ClusterView(r).snapshot(), 'TTS_NO_NODE_AVAILABLE');

    const cold = router({ refreshMs: 50 });
    const err = await rejectsWith(cold.pick(FLITE, []), 'TTS_NO_NODE_AVAILABLE');
    assert.equal(err.retryAfterSec, 2);
    assert.ok(cold.stats().fetches >= 1);
  });
});
