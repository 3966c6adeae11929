/**
 * The Piper engine on the generated fixture voices: the fixture's audio is an exact function of
 * the ids, length scale and speaker, so these tests compare sample for sample. The phonemizer here
 * passes text through as "IPA" (letters and punctuation are in the Piper symbol table), which
 * isolates the engine from espeak; piper-espeak.test.ts runs the real phonemizer.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makePiperFixtures, tinyFixtureReference, tinySamplesPerId, TINY_FIXTURE, type PiperFixtures } from '@tts/fixtures';
import { TtsError } from '@tts/common';
import type { Logger } from '@tts/common';
import type { EngineOutput, Phonemizer } from '../engine.js';
import { phonemesToIds, splitPhonemes } from './phoneme-ids.js';
import { createPiperEngine, type PiperEngine, type PiperEngineOptions } from './piper-engine.js';
import { readPiperConfig } from './voice-config.js';

/** Returns the text itself as the IPA of one sentence per line. */
const passThrough: Phonemizer = { phonemize: async (text) => text.split('\n') };

let root = '';
/** Tiny voices only (fast to load). */
let tinyDir = '';
/** Tiny voices plus the heavy one (slow enough to keep a request waiting in the queue). */
let heavyDir = '';
let fixtures: PiperFixtures;
let idMap: ReadonlyMap<string, readonly number[]>;
const engines: PiperEngine[] = [];
/** One engine with default options, shared by the tests that do not need their own. */
let shared: PiperEngine;

async function engine(options: Partial<PiperEngineOptions> = {}): Promise<PiperEngine> {
  const e = createPiperEngine({ voiceDirs: [tinyDir], phonemizer: passThrough, normalizeAudio: false, intraOpThreads: 1, ...options });
  engines.push(e);
  await e.load();
  return e;
}

function idsOf(text: string): number[] {
  return phonemesToIds(splitPhonemes(text), idMap).ids;
}

function samplesOf(outputs: readonly EngineOutput[]): Float32Array[] {
  return outputs.map((o) => o.audio.samples);
}

const TEXTS = ['hello world.', 'a', 'the quick brown fox jumps over the lazy dog', 'ok?', 'batching is fun, really', 'zz'];

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'piper-engine-'));
  tinyDir = path.join(root, 'tiny');
  heavyDir = path.join(root, 'heavy');
  fixtures = await makePiperFixtures(tinyDir);
  await makePiperFixtures(heavyDir, { heavy: true });
  idMap = (await readPiperConfig(fixtures.tiny)).phonemeIdMap;
  shared = await engine();
});

after(async () => {
  await Promise.all(engines.map((e) => e.close()));
  await rm(root, { recursive: true, force: true });
});

describe('piper engine', () => {
  it('lists each single-speaker voice and each speaker of a multi-speaker voice', async () => {
    const e = await engine({ voiceDirs: [heavyDir] });
    const ids = e.voices().map((v) => v.id).sort();
    assert.deepEqual(ids, [
      'piper:en_US-fixture_heavy-medium',
      'piper:en_US-fixture_multi-low#alpha',
      'piper:en_US-fixture_multi-low#beta',
      'piper:en_US-fixture_multi-low#gamma',
      'piper:en_US-fixture_rank3-low',
      'piper:en_US-fixture_tiny-low',
    ]);
    const tiny = e.voices().find((v) => v.id === 'piper:en_US-fixture_tiny-low')!;
    assert.equal(tiny.engine, 'piper');
    assert.equal(tiny.language, 'en-US');
    assert.equal(tiny.sampleRate, TINY_FIXTURE.sampleRate);
    assert.equal(tiny.quality, 'low');
    assert.equal(e.device, 'cpu');
    assert.ok(e.features.includes('multi-speaker'));
    assert.equal(e.maxBatchSize, 8);
    assert.deepEqual(e.stats().providers['en_US-fixture_tiny-low'], 'cpu');
  });

  it('renders the ids Piper would feed: audio equals the fixture reference, duration = ids x hop', async () => {
    const e = shared;
    const [out] = await e.synthesize([{ text: 'hello world.', voice: 'piper:en_US-fixture_tiny-low', speed: 1 }]);
    const ids = idsOf('hello world.');
    assert.equal(ids.length, 2 + 2 * 12 + 1);
    assert.equal(out!.audio.sampleRate, 22050);
    assert.equal(out!.audio.samples.length, ids.length * TINY_FIXTURE.hopSamples);
    assert.deepEqual(out!.audio.samples, tinyFixtureReference(ids, 1));
    assert.equal(out!.speedApplied, true);
  });

  it('renders IPA given as phonemes (SSML <phoneme>) without the phonemizer, and says so in its features', async () => {
    const phonemizer: Phonemizer = { phonemize: async () => assert.fail('the phonemizer was called for IPA input') };
    const e = await engine({ phonemizer });
    assert.ok(e.features.includes('ipa-input'));
    const [out] = await e.synthesize([{ text: 'tomato', phonemes: 'hello world.', voice: 'piper:en_US-fixture_tiny-low', speed: 1 }]);
    assert.deepEqual(out!.audio.samples, tinyFixtureReference(idsOf('hello world.'), 1));
  });

  it('says parts with IPA (lexicon entries) inline: the words phonemized, the IPA as it is, one utterance', async () => {
    const asked: string[] = [];
    const phonemizer: Phonemizer = { phonemize: async (text) => (asked.push(text), [text.trim()]) };
    const e = await engine({ phonemizer });
    const parts = [{ text: 'say ' }, { text: 'tomato', ipa: 'təˈmɑːtoʊ' }, { text: ' now.' }];
    const [out] = await e.synthesize([{ text: 'say tomato now.', parts, voice: 'piper:en_US-fixture_tiny-low', speed: 1 }]);
    // The IPA never reaches the phonemizer; the whole sentence is one inference of the joined phonemes.
    assert.deepEqual(asked, ['say ', ' now.']);
    assert.deepEqual(out!.audio.samples, tinyFixtureReference(idsOf('say təˈmɑːtoʊ now.'.normalize('NFD')), 1));
  });

  it('maps speed to the length scale within nativeSpeed and leaves other speeds to the node', async () => {
    const e = shared;
    const voice = 'piper:en_US-fixture_tiny-low';
    const ids = idsOf('speed');
    const [fast, slow, extreme] = await e.synthesize([
      { text: 'speed', voice, speed: 2 },
      { text: 'speed', voice, speed: 0.5 },
      { text: 'speed', voice, speed: 4 },
    ]);
    assert.equal(fast!.audio.samples.length, ids.length * tinySamplesPerId(0.5));
    assert.deepEqual(fast!.audio.samples, tinyFixtureReference(ids, 0.5));
    assert.equal(slow!.audio.samples.length, ids.length * tinySamplesPerId(2));
    assert.equal(extreme!.speedApplied, false);
    assert.equal(extreme!.audio.samples.length, ids.length * TINY_FIXTURE.hopSamples);
  });

  it('gives each speaker of a multi-speaker voice its own audio', async () => {
    const e = shared;
    const base = 'piper:en_US-fixture_multi-low';
    const [alpha, beta, betaById] = samplesOf(await e.synthesize([
      { text: 'same text', voice: `${base}#alpha`, speed: 1 },
      { text: 'same text', voice: `${base}#beta`, speed: 1 },
      { text: 'same text', voice: `${base}#1`, speed: 1 },
    ]));
    const ids = idsOf('same text');
    assert.deepEqual(alpha, tinyFixtureReference(ids, 1, 0));
    assert.deepEqual(beta, tinyFixtureReference(ids, 1, 1));
    assert.notDeepEqual(alpha, beta);
    assert.deepEqual(betaById, beta);
  });

  it('batched output equals unbatched output, item for item', async () => {
    const unbatched = await engine({ batching: { maxBatchSize: 1 } });
    const batched = await engine({ batching: { maxBatchSize: 8, maxQueueDelayMs: 30 } });
    const inputs = TEXTS.flatMap((text, i) => [
      { text, voice: 'piper:en_US-fixture_tiny-low', speed: 1 },
      { text, voice: `piper:en_US-fixture_multi-low#${['alpha', 'beta', 'gamma'][i % 3]}`, speed: 1 },
      { text, voice: 'piper:en_US-fixture_rank3-low', speed: 1 },
    ]);
    const one = samplesOf(await unbatched.synthesize(inputs));
    const many = samplesOf(await batched.synthesize(inputs));
    assert.equal(unbatched.stats().batcher.batches, inputs.length);
    const stats = batched.stats().batcher;
    assert.equal(stats.items, inputs.length);
    assert.ok(stats.batches <= 3, `expected one batch per voice model, got ${stats.batches}`);
    for (let i = 0; i < inputs.length; i++) assert.deepEqual(many[i], one[i], `item ${i} (${inputs[i]!.voice})`);
    // Items really differ in length, so padding had to be cut away correctly.
    assert.deepEqual(one[1], tinyFixtureReference(idsOf(TEXTS[0]!), 1, 0));
    assert.deepEqual(one[3], tinyFixtureReference(idsOf(TEXTS[1]!), 1));
  });

  it('cuts padded output by trailing silence when the model has no output_lengths ([B,1,T] output)', async () => {
    const e = await engine({ batching: { maxBatchSize: 4, maxQueueDelayMs: 20 } });
    const voice = 'piper:en_US-fixture_rank3-low';
    const outs = samplesOf(await e.synthesize([{ text: 'a', voice, speed: 1 }, { text: 'a much longer sentence', voice, speed: 1 }]));
    assert.equal(e.stats().batcher.batches, 1);
    assert.deepEqual(outs[0], tinyFixtureReference(idsOf('a'), 1));
    assert.deepEqual(outs[1], tinyFixtureReference(idsOf('a much longer sentence'), 1));
  });

  it('joins the sentences of one input with sentence silence and normalizes peaks as Piper does', async () => {
    const e = await engine({ normalizeAudio: true, sentenceSilenceSec: 0.1 });
    const [out] = await e.synthesize([{ text: 'one.\ntwo.', voice: 'piper:en_US-fixture_tiny-low', speed: 1 }]);
    const a = idsOf('one.').length * TINY_FIXTURE.hopSamples;
    const b = idsOf('two.').length * TINY_FIXTURE.hopSamples;
    const samples = out!.audio.samples;
    assert.equal(samples.length, a + 2205 + b);
    assert.ok(samples.subarray(a, a + 2205).every((s) => s === 0));
    const peak = samples.reduce((m, s) => Math.max(m, Math.abs(s)), 0);
    assert.ok(Math.abs(peak - 1) < 1e-6, `peak ${peak}`);
  });

  it('skips and counts phonemes missing from the id map', async () => {
    const e = shared;
    const [out] = await e.synthesize([{ text: 'a★b★', voice: 'piper:en_US-fixture_tiny-low', speed: 1 }]);
    assert.deepEqual(out!.audio.samples, tinyFixtureReference(idsOf('ab'), 1));
    assert.equal(e.stats().missingPhonemes['★'], 2);
  });

  it('refuses unknown voices with TTS_VOICE_NOT_FOUND', async () => {
    const e = shared;
    await assert.rejects(e.synthesize([{ text: 'x', voice: 'piper:nope', speed: 1 }]), (err: unknown) => err instanceof TtsError && err.code === 'TTS_VOICE_NOT_FOUND');
  });

  it('refuses work beyond the batch queue with TTS_NODE_OVERLOADED and a Retry-After', async () => {
    const e = await engine({ voiceDirs: [heavyDir], batching: { maxBatchSize: 1, maxQueue: 1 } });
    const voice = 'piper:en_US-fixture_heavy-medium';
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => e.synthesize([{ text: 'overload test sentence', voice, speed: 1 }])));
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.ok(refused.length >= 1, 'some requests were refused');
    assert.ok(results.some((r) => r.status === 'fulfilled'), 'some requests ran');
    for (const r of refused) {
      assert.ok(r.reason instanceof TtsError && r.reason.code === 'TTS_NODE_OVERLOADED');
      assert.ok((r.reason.retryAfterSec ?? 0) >= 1);
    }
  });

  it('drops a request cancelled while queued: it is rejected at once and never reaches the model', async () => {
    const e = await engine({ voiceDirs: [heavyDir], batching: { maxBatchSize: 1 } });
    const voice = 'piper:en_US-fixture_heavy-medium';
    const long = 'this sentence keeps the heavy model busy for a while, long enough to queue another one behind it';
    const running = e.synthesize([{ text: long, voice, speed: 1 }]);
    const controller = new AbortController();
    const cancelled = e.synthesize([{ text: 'cancel me', voice, speed: 1, signal: controller.signal }]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(e.stats().batcher.queued, 1);
    controller.abort();
    await assert.rejects(cancelled, (err: unknown) => err instanceof TtsError && err.code === 'TTS_CANCELLED');
    await running;
    const stats = e.stats().batcher;
    assert.equal(stats.items, 1, 'only the first request ran');
    assert.equal(stats.cancelled, 1);
  });

  it('tries execution providers in order and reports the one in use', async () => {
    const warnings: Record<string, unknown>[] = [];
    const logger: Logger = {
      debug: () => undefined, info: () => undefined, error: () => undefined,
      warn: (_msg, fields) => { warnings.push(fields ?? {}); },
      child: () => logger,
    };
    const e = await engine({ executionProviders: ['cuda', 'cpu'], logger });
    // No CUDA libraries are installed here, so the CPU provider is what runs.
    assert.equal(e.device, 'cpu');
    assert.ok(warnings.length >= 1 && warnings.every((w) => w['provider'] === 'cuda'), 'the skipped provider is logged');
    const [out] = await e.synthesize([{ text: 'gpu?', voice: 'piper:en_US-fixture_tiny-low', speed: 1 }]);
    assert.deepEqual(out!.audio.samples, tinyFixtureReference(idsOf('gpu?'), 1));
  });

  it('fails to load when no provider works or no voice is installed', async () => {
    await assert.rejects(engine({ executionProviders: ['no-such-provider'] }), /No Piper voice could be loaded/);
    const empty = await mkdtemp(path.join(tmpdir(), 'piper-empty-'));
    try {
      await assert.rejects(engine({ voiceDirs: [empty] }), (err: unknown) => err instanceof TtsError && err.code === 'MODEL_NOT_INSTALLED');
    } finally {
      await rm(empty, { recursive: true });
    }
  });

  it('gives the same audio with sessions on the main thread', async () => {
    const main = await engine({ inferenceThread: 'main', graphOptimizationLevel: 'basic' });
    const [out] = await main.synthesize([{ text: 'main thread', voice: 'piper:en_US-fixture_multi-low#gamma', speed: 1 }]);
    assert.deepEqual(out!.audio.samples, tinyFixtureReference(idsOf('main thread'), 1, 2));
  });
});
