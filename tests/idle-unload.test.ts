/**
 * Idle unload (TTS_VOICE_IDLE_UNLOAD_SEC) through the whole platform, with real engines: festival
 * and flite unused for a second are unloaded (festival's processes end and their memory returns;
 * NodeStatus and GET /api/plugins/engines show them unloaded), the next /api/tts loads festival
 * again and reports the load in Server-Timing, and espeak, the default voice's engine, stays loaded.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { NodeRouter } from '@tts/facade/testing';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';
import { commandOf, descendants } from './support/processes.js';

/** Proportional set size of `pid` in kB (0 when it is gone). */
function pssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Festival processes under this test process. */
const festivalPids = (): number[] => descendants(process.pid).filter((pid) => /\bfestival\b/.test(commandOf(pid)));

interface EngineJson {
  name: string;
  nodes_ready: number;
  nodes_loaded: number;
  idle_unload_sec: number;
  loaded_voices: string[];
  unloaded_voices: string[];
}

describe('idle unload', () => {
  let platform: TestPlatform;

  before(async () => {
    platform = await startPlatform({
      node: {
        engines: ['festival', 'flite', 'espeak'],
        defaultVoice: 'espeak:en-us',
        festivalProcesses: 2,
        idleUnload: { defaultSec: 1, perEngine: { flite: 2 }, unloadDefaultVoice: false },
      },
    });
  });

  after(async () => {
    await platform?.stop();
  });

  const engines = async (): Promise<EngineJson[]> => {
    const res = await platform.get('/api/plugins/engines');
    assert.equal(res.status, 200);
    return ((await res.json()) as { engines: EngineJson[] }).engines;
  };

  it('unloads idle engines, returns their memory and reports them unloaded, keeps the default voice', async (t) => {
    const node = platform.nodes[0]!;
    const registry = node.context.registry;
    // Starting the platform may outlast the idle time: use festival once, so it is loaded now.
    await registry.use('festival', () => Promise.resolve());
    const before = festivalPids();
    assert.equal(before.length, 2, 'two festival processes hold the HTS voice');
    const pssBefore = before.reduce((kb, pid) => kb + pssKb(pid), 0);
    assert.ok(pssBefore > 10_000, `festival processes hold ${pssBefore} kB`);

    await waitFor(() => registry.residencyOf('festival')?.loaded === false, 5000, 'festival unloaded');
    assert.deepEqual(festivalPids(), [], 'the festival processes ended');
    await waitFor(() => registry.residencyOf('flite')?.loaded === false, 5000, 'flite unloaded');
    t.diagnostic(`festival PSS ${pssBefore} kB -> 0 kB (2 processes ended)`);
    assert.equal(registry.residencyOf('espeak')?.loaded, true, 'the default voice stays loaded');
    assert.equal(registry.residencyOf('espeak')?.idleUnloadSec, 0);
    assert.equal(registry.residencyOf('flite')?.idleUnloadSec, 2, 'TTS_FLITE_IDLE_UNLOAD_SEC overrides the default');

    // The scheduler's view (heartbeats) and the facade's engine list follow.
    await waitFor(() => {
      const status = platform.scheduler.context.membership.ready().find((e) => e.status.nodeId === node.nodeId)?.status;
      return status !== undefined && !status.loadedVoices.includes('festival:slt') && status.unloadedVoices.includes('festival:slt');
    }, 5000, 'NodeStatus without festival:slt');
    const status = platform.scheduler.context.membership.ready().find((e) => e.status.nodeId === node.nodeId)!.status;
    assert.ok(status.loadedVoices.includes('espeak:en-us'));
    assert.equal(status.engines.find((e) => e.name === 'festival')?.loaded, false);
    assert.ok((status.engines.find((e) => e.name === 'festival')?.loadMs ?? 0) > 0, 'the start-up load time is reported');
    let listed: EngineJson[] = [];
    await waitFor(async () => {
      listed = await engines();
      return listed.find((e) => e.name === 'festival')?.nodes_loaded === 0;
    }, 5000, 'festival unloaded in /api/plugins/engines');
    const festival = listed.find((e) => e.name === 'festival')!;
    assert.equal(festival.nodes_ready, 1, 'an unloaded engine is still ready');
    assert.deepEqual(festival.unloaded_voices, ['festival:slt']);
    assert.deepEqual(festival.loaded_voices, []);
    assert.equal(festival.idle_unload_sec, 1);
    const espeak = listed.find((e) => e.name === 'espeak')!;
    assert.equal(espeak.nodes_loaded, 1);
    assert.ok(espeak.loaded_voices.includes('espeak:en-us'));
  });

  it('loads the voice again on the next request and reports the load in Server-Timing', async () => {
    const registry = platform.nodes[0]!.context.registry;
    await waitFor(() => registry.residencyOf('festival')?.loaded === false, 5000, 'festival unloaded');
    const res = await platform.post('/api/tts', { text: 'The birch canoe slid on the smooth planks.', voice: 'festival:slt', format: 'wav' });
    assert.equal(res.status, 200, await res.clone().text());
    const audio = new Uint8Array(await res.arrayBuffer());
    assert.ok(audio.byteLength > 16_000, `${audio.byteLength} bytes of audio`);
    const timing = res.headers.get('server-timing') ?? '';
    const load = /\bload;dur=([\d.]+)/.exec(timing);
    assert.ok(load, `Server-Timing has the load: ${timing}`);
    assert.ok(Number(load[1]) > 50, `loading festival's HTS voice took ${load[1]} ms`);
    assert.equal(registry.residencyOf('festival')?.loaded, true);
    assert.equal(festivalPids().length, 2, 'the festival processes run again');
    assert.ok(Math.abs(registry.residencyOf('festival')!.lastLoadMs - Number(load[1])) < 5, 'NodeStatus reports that load time');

    // Loaded now: the next request loads nothing.
    const again = await platform.post('/api/tts', { text: 'Glue the sheet to the dark blue background.', voice: 'festival:slt', format: 'wav' });
    assert.equal(again.status, 200);
    await again.arrayBuffer();
    assert.doesNotMatch(again.headers.get('server-timing') ?? '', /\bload;dur=/);

    // The default voice never unloaded.
    assert.equal(registry.residencyOf('espeak')?.unloads, 0);
    const def = await platform.post('/api/tts', { text: 'Hello there.', format: 'wav' });
    assert.equal(def.status, 200);
    await def.arrayBuffer();
    assert.doesNotMatch(def.headers.get('server-timing') ?? '', /\bload;dur=/);
  });

  it('routes a voice to a node that holds it over one that unloaded it, both idle', async () => {
    const cold = platform.nodes[0]!;
    // A second node that never unloads.
    const warm = await platform.addNode({ engines: ['festival', 'flite', 'espeak'], defaultVoice: 'espeak:en-us', festivalProcesses: 1 });
    await waitFor(() => cold.context.registry.residencyOf('flite')?.loaded === false, 5000, 'flite unloaded on the first node');
    await waitFor(() => {
      const status = platform.scheduler.context.membership.ready().find((e) => e.status.nodeId === cold.nodeId)?.status;
      return status?.unloadedVoices.includes('flite:slt') === true;
    }, 5000, 'the scheduler sees flite unloaded');
    const router = new NodeRouter({ schedulerAddress: platform.scheduler.address, refreshMs: 60_000 });
    try {
      const picks: string[] = [];
      for (let i = 0; i < 3; i++) picks.push((await router.pick({ voice: 'flite:slt', engine: '', characters: 40 }, [])).nodeId);
      assert.deepEqual(picks, [warm.nodeId, warm.nodeId, warm.nodeId], 'flite on the cold node would first load for seconds');
      // A voice both hold loaded (the default voice): no preference, the picks spread over both.
      const spread = new Set<string>();
      for (let i = 0; i < 20; i++) spread.add((await router.pick({ voice: 'espeak:en-us', engine: '', characters: 40 }, [])).nodeId);
      assert.deepEqual([...spread].sort(), [cold.nodeId, warm.nodeId].sort());
    } finally {
      router.close();
    }
  });
});

