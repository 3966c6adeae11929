/**
 * Idle unload in the engine registry, on real engines: the Piper engine on the generated fixture
 * voices (its ONNX sessions are released, the worker thread holding them ends) and flite beside it.
 * An engine unused for its idle time unloads, its voices stay listed but unloaded, the next lease
 * loads it again and says how long that took (with the same audio as before), a held lease keeps an
 * engine loaded, and the default voice's engine stays loaded unless configured otherwise.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makePiperFixtures } from '@tts/fixtures';
import { createLogger, setLogSink, TtsError } from '@tts/common';
import type { Phonemizer } from './engine.js';
import { createPiperEngine } from './piper/index.js';
import { EngineRegistry, type EngineSettings } from './registry.js';
import type { IdleUnloadSettings } from './residency.js';

setLogSink(() => undefined);

/** Returns the text itself as the IPA of one sentence (the fixture maps letters). */
const passThrough: Phonemizer = { phonemize: async (text) => [text] };
const TINY = 'piper:en_US-fixture_tiny-low';
const SETTINGS = { fliteWorkers: 1 } as EngineSettings;

let root = '';
const registries: EngineRegistry[] = [];

/** A registry of flite and the fixture Piper voices (heavy one included) with `idle` settings. */
async function registry(idle: Partial<IdleUnloadSettings>, defaultVoice = 'flite:slt', voiceDir = root): Promise<EngineRegistry> {
  const piper = createPiperEngine({ voiceDirs: [voiceDir], phonemizer: passThrough, normalizeAudio: false, intraOpThreads: 1 });
  const r = await EngineRegistry.load(['flite'], SETTINGS, createLogger('residency-test'), {
    defaultVoice,
    extra: [piper],
    idleUnload: { defaultSec: 1, perEngine: {}, unloadDefaultVoice: false, ...idle },
  });
  registries.push(r);
  return r;
}

/** Synthesizes `text` with `voice` under a lease, as the pipeline does; resolves to the samples and the load time. */
async function speak(r: EngineRegistry, voice: string, text = 'hello world.'): Promise<{ samples: Float32Array; loadMs: number }> {
  const { engine, voice: v } = r.resolve(voice);
  const lease = await r.acquire(engine.name);
  try {
    const [out] = await engine.synthesize([{ text, voice: v.id, speed: 1 }]);
    return { samples: out!.audio.samples, loadMs: lease.loadMs };
  } finally {
    lease.release();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` holds, polling every 25 ms, or fails after `ms`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'residency-'));
  await makePiperFixtures(root, { heavy: true });
});

after(async () => {
  await Promise.all(registries.map((r) => r.close()));
  await rm(root, { recursive: true, force: true });
});

describe('idle unload', () => {
  it('unloads an idle engine, releases its sessions and loads it again on the next use with the same audio', async (t) => {
    const r = await registry({ perEngine: { flite: 0 } });
    const piper = r.resolve(TINY).engine;
    const first = await speak(r, TINY);
    assert.equal(first.loadMs, 0, 'loaded: nothing to load');
    const voiceCount = r.voicesOf('piper').length;
    assert.ok(r.voicesOf('piper').every((v) => r.isLoaded(v)));
    const rssLoaded = process.memoryUsage().rss;

    await until(() => r.residencyOf('piper')?.loaded === false, 3000, 'piper unloaded');
    global.gc?.();
    const rssUnloaded = process.memoryUsage().rss;
    t.diagnostic(`node RSS with the piper fixture sessions ${(rssLoaded / 2 ** 20).toFixed(1)} MiB, unloaded ${(rssUnloaded / 2 ** 20).toFixed(1)} MiB`);
    assert.equal(r.residencyOf('piper')?.unloads, 1);
    assert.equal(r.voicesOf('piper').length, voiceCount, 'unloaded voices stay offered');
    assert.ok(r.voicesOf('piper').every((v) => !r.isLoaded(v)), 'and are reported unloaded');
    assert.equal(piper.voices().length, 0, 'the engine holds no voice');
    await assert.rejects(piper.synthesize([{ text: 'a', voice: TINY, speed: 1 }]), (err: unknown) => err instanceof TtsError && err.code === 'TTS_ENGINE_UNAVAILABLE', 'its sessions are released');
    assert.equal(r.residencyOf('flite')?.loaded, true, 'TTS_FLITE_IDLE_UNLOAD_SEC=0 keeps flite');

    const again = await speak(r, TINY);
    assert.ok(again.loadMs > 0, `the lease reports the reload (${again.loadMs} ms)`);
    assert.equal(r.residencyOf('piper')?.loaded, true);
    assert.ok(Math.abs(r.residencyOf('piper')!.lastLoadMs - again.loadMs) < 5, 'NodeStatus reports that load time');
    assert.deepEqual(again.samples, first.samples, 'the same audio as before the unload');
    assert.equal((await speak(r, TINY)).loadMs, 0, 'loaded again: the next use loads nothing');
  });

  it('keeps an engine loaded while a lease holds it, and counts the idle time from its release', async () => {
    const r = await registry({});
    const lease = await r.acquire('piper');
    await sleep(1600);
    await r.unloadIdle();
    assert.equal(r.residencyOf('piper')?.loaded, true, 'in use for longer than the idle time');
    lease.release();
    await sleep(400);
    await r.unloadIdle();
    assert.equal(r.residencyOf('piper')?.loaded, true, 'released 0.4 s ago');
    await until(() => r.residencyOf('piper')?.loaded === false, 3000, 'piper unloaded');
  });

  it('loads once for requests arriving together after an unload', async () => {
    const r = await registry({});
    await until(() => r.residencyOf('piper')?.loaded === false, 3000, 'piper unloaded');
    const results = await Promise.all([speak(r, TINY), speak(r, TINY, 'ok?'), speak(r, 'piper:en_US-fixture_multi-low#beta')]);
    assert.ok(results.every((x) => x.loadMs > 0), 'each waited for the load and says so');
    assert.equal(r.residencyOf('piper')?.reloads, 1, 'one load, shared');
  });

  it('keeps the default voice loaded unless TTS_DEFAULT_VOICE_IDLE_UNLOAD', async () => {
    const kept = await registry({}, TINY);
    const unloaded = await registry({ unloadDefaultVoice: true }, TINY);
    assert.equal(kept.residencyOf('piper')?.idleUnloadSec, 0);
    await until(() => unloaded.residencyOf('piper')?.loaded === false && kept.residencyOf('flite')?.loaded === false, 3000, 'unloads');
    assert.equal(kept.residencyOf('piper')?.loaded, true, 'the default voice stays loaded');
    assert.equal(kept.residencyOf('piper')?.unloads, 0);
    assert.equal((await speak(kept, TINY)).loadMs, 0);
  });

  it('answers TTS_ENGINE_UNAVAILABLE when the engine cannot load again, and loads on a later request once it can', async () => {
    const dir = path.join(root, 'movable');
    await makePiperFixtures(dir);
    const r = await registry({}, 'flite:slt', dir);
    await until(() => r.residencyOf('piper')?.loaded === false, 3000, 'piper unloaded');
    await rename(dir, `${dir}-gone`);
    await assert.rejects(r.acquire('piper'), (err: unknown) => err instanceof TtsError && err.code === 'TTS_ENGINE_UNAVAILABLE' && err.retryAfterSec === 5);
    assert.equal(r.residencyOf('piper')?.loaded, false);
    await rename(`${dir}-gone`, dir);
    assert.ok((await speak(r, TINY)).loadMs > 0);
    assert.equal(r.residencyOf('piper')?.loaded, true);
  });
});
