/**
 * The neural (ONNX) path end to end: REST -> facade -> scheduler -> node (gRPC) -> admission ->
 * piper engine (espeak-ng phonemes) -> dynamic batcher -> ONNX session in a worker -> encoder.
 * The voices are the generated Piper-contract fixtures: the tiny ones render `ids x hop` samples
 * of tones that depend on id, length scale and speaker only, so lengths and batched-vs-unbatched
 * equality are asserted exactly on decoded audio; the heavy one keeps the model busy long enough
 * to fill queues and to cancel a waiting request.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makePiperFixtures, tinySamplesPerId, TINY_FIXTURE, type PiperFixtures } from '@tts/fixtures';
import {
  decodeWav,
  prepareText,
  createEspeakPhonemizer,
  type EspeakPhonemizer,
  phonemesToIds,
  readPiperConfig,
  splitPhonemes,
  type PiperEngine,
} from '@tts/inference-node/testing';
import { inspectClip } from './support/audio.js';
import { startPlatform, waitFor, waitForEngine, type TestPlatform } from './support/platform.js';

const TINY = 'piper:en_US-fixture_tiny-low';
const MULTI = 'piper:en_US-fixture_multi-low';
const HEAVY = 'piper:en_US-fixture_heavy-medium';
/** Settings of the node under test: small batches and queues, so that both fill with a few requests. */
const PIPER = { piperMaxBatchSize: 4, piperConcurrentBatches: 1, piperIntraOpThreads: 0, piperMaxQueueDelayMs: 100, piperMaxQueue: 3, maxQueue: 1 } as const;
/** One sentence, one chunk of the node (under its 400 characters), of several hundred phonemes: keeps the heavy fixture busy for a while. */
const LONG = `${['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'].map((n) => `the heavy voice talks about item ${n}`).join(' and then ')} and stops.`;

describe('piper voices through the whole platform', () => {
  let root = '';
  let fixtures: PiperFixtures;
  let phonemizer: EspeakPhonemizer;
  let p: TestPlatform;
  /** A key of the enterprise tier (16 concurrent jobs) for the concurrent tests. */
  let bulkKey = '';

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'piper-path-'));
    fixtures = await makePiperFixtures(root, { heavy: true });
    phonemizer = createEspeakPhonemizer();
    p = await startPlatform({
      // Without the provenance mark: these tests compare the samples of different requests, and the
      // mark names each request (tests/provenance-api.test.ts covers it).
      node: { engines: ['flite', 'piper'], defaultVoice: 'flite:slt', modelDirs: [root], vadTrim: false, watermark: false, ...PIPER },
      facade: { defaultVoice: 'flite:slt' },
    });
    bulkKey = (await p.createKey({ tier: 'enterprise' })).apiKey;
    // The node registers before its piper voices have loaded: wait until the platform serves piper.
    await waitForEngine(p, 'piper');
  });

  after(async () => {
    await p.stop();
    await phonemizer.close();
    await rm(root, { recursive: true, force: true });
  });

  /** The piper engine of the (only) node. */
  function piper(): PiperEngine {
    const engine = p.nodes[0]!.context.registry.resolve(TINY).engine;
    assert.equal(engine.name, 'piper');
    return engine as PiperEngine;
  }

  /** Samples the tiny fixture renders for `text`: the node's chunks, phonemized as the engine does, `ids x hop` each. */
  async function tinySamples(text: string, lengthScale = 1): Promise<number> {
    const idMap = (await readPiperConfig(fixtures.tiny)).phonemeIdMap;
    let total = 0;
    for (const chunk of prepareText(text, { language: 'en-US' })) {
      const sentences = await phonemizer.phonemize(chunk, 'en-us');
      assert.equal(sentences.length, 1, `"${chunk}" is one sentence`);
      total += phonemesToIds(splitPhonemes(sentences[0]!), idMap).ids.length * tinySamplesPerId(lengthScale);
    }
    return total;
  }

  async function wavOf(res: Response): Promise<Float32Array> {
    assert.equal(res.status, 200, await res.clone().text());
    const wav = decodeWav(new Uint8Array(await res.arrayBuffer()));
    assert.equal(wav.sampleRate, TINY_FIXTURE.sampleRate);
    return wav.samples;
  }

  test('POST /api/tts speaks a piper voice: the decoded length is exactly ids x hop', async () => {
    const text = 'Hello from the fixture voice.';
    const res = await p.post('/api/tts', { text, voice: TINY, format: 'wav' });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('x-tts-engine'), 'piper');
    assert.equal(res.headers.get('x-tts-voice'), TINY);
    const samples = await wavOf(res);
    assert.equal(samples.length, await tinySamples(text));
    assert.ok(samples.some((s) => Math.abs(s) > 0.5), 'audible (peak-normalized tones)');
  });

  test('speed 2 halves the length through the length scale', async () => {
    const text = 'Twice as fast, please.';
    const normal = await wavOf(await p.post('/api/tts', { text, voice: TINY, format: 'wav' }));
    const fast = await wavOf(await p.post('/api/tts', { text, voice: TINY, format: 'wav', speed: 2 }));
    assert.equal(fast.length, await tinySamples(text, 0.5));
    assert.equal(fast.length * 2, normal.length);
  });

  test('/v1/audio/speech with model piper streams the same audio', async () => {
    const text = 'Hello from the fixture voice.';
    const res = await p.post('/v1/audio/speech', { model: 'piper', input: text, voice: TINY, response_format: 'wav' });
    assert.equal(res.status, 200, await res.clone().text());
    const clip = await inspectClip(new Uint8Array(await res.arrayBuffer()));
    assert.equal(clip.sampleRate, TINY_FIXTURE.sampleRate);
    assert.ok(Math.abs(clip.durationSec - (await tinySamples(text)) / TINY_FIXTURE.sampleRate) < 0.001, `duration ${clip.durationSec}`);
  });

  test('two speakers of the multi-speaker voice differ; the same speaker is reproducible', async () => {
    const text = 'Which speaker is this?';
    const alpha = await wavOf(await p.post('/api/tts', { text, voice: `${MULTI}#alpha`, format: 'wav' }));
    const beta = await wavOf(await p.post('/api/tts', { text, voice: `${MULTI}#beta`, format: 'wav' }));
    const again = await wavOf(await p.post('/api/tts', { text, voice: `${MULTI}#alpha`, format: 'wav' }));
    assert.equal(alpha.length, await tinySamples(text));
    assert.equal(beta.length, alpha.length);
    assert.notDeepEqual(alpha, beta);
    assert.deepEqual(again, alpha);
  });

  test('engines, capabilities and health report piper, its voices, batching and device', async () => {
    const engines = (await (await p.get('/api/plugins/engines')).json()) as { engines: { name: string; ready: boolean; device: string; max_batch_size: number; voice_count: number }[] };
    const entry = engines.engines.find((e) => e.name === 'piper');
    assert.ok(entry, 'piper is listed');
    assert.equal(entry.ready, true);
    assert.equal(entry.device, 'cpu');
    assert.equal(entry.max_batch_size, PIPER.piperMaxBatchSize);
    assert.equal(entry.voice_count, 6, 'tiny, rank3, heavy and the three speakers of multi');

    const caps = (await (await p.get('/api/capabilities')).json()) as {
      engines: string[]; voices: { id: string; engine: string }[]; features: Record<string, boolean>;
      engine_details: { name: string; device: string; max_batch_size: number; batching: boolean }[];
    };
    assert.ok(caps.engines.includes('piper'));
    assert.deepEqual(caps.voices.filter((v) => v.engine === 'piper').map((v) => v.id).sort(), [
      HEAVY, `${MULTI}#alpha`, `${MULTI}#beta`, `${MULTI}#gamma`, 'piper:en_US-fixture_rank3-low', TINY,
    ]);
    assert.deepEqual(caps.engine_details.find((e) => e.name === 'piper'), { name: 'piper', device: 'cpu', max_batch_size: 4, batching: true });
    assert.deepEqual(caps.engine_details.find((e) => e.name === 'flite'), { name: 'flite', device: 'cpu', max_batch_size: 1, batching: false });
    assert.equal(caps.features['batching'], true);

    const health = (await (await p.get('/api/health')).json()) as { ready: boolean; device: string; model: string };
    assert.equal(health.ready, true);
    assert.equal(health.device, 'cpu');
    assert.equal(health.model, 'flite:slt');
  });

  test('concurrent requests run as one batch and each equals its unbatched result', async () => {
    const texts = ['The first request.', 'A second, somewhat longer request.', 'Third.'];
    const request = (text: string): Promise<Response> => p.post('/api/tts', { text, voice: TINY, format: 'wav' }, { 'x-api-key': bulkKey });
    const before = piper().stats().batcher;
    const together = await Promise.all(texts.map(async (text) => wavOf(await request(text))));
    const during = piper().stats().batcher;
    assert.equal(during.items - before.items, texts.length);
    assert.ok(during.batches - before.batches < texts.length, `a batch held more than one request (${during.batches - before.batches} batches)`);
    for (const [i, text] of texts.entries()) {
      const alone = await wavOf(await request(text));
      assert.deepEqual(together[i], alone, `request ${i} batched equals unbatched`);
      assert.equal(alone.length, await tinySamples(text));
    }
    const after = piper().stats().batcher;
    assert.equal(after.batches - during.batches, texts.length, 'sequential requests ran alone');
  });

  test('a full queue answers 503 TTS_NODE_OVERLOADED with Retry-After over REST', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const res = await p.post('/api/tts', { text: LONG, voice: HEAVY, format: 'wav' }, { 'x-api-key': bulkKey });
        const body = res.status === 200 ? undefined : ((await res.json()) as { code: string });
        if (res.status === 200) await res.arrayBuffer();
        return { status: res.status, retryAfter: res.headers.get('retry-after'), code: body?.code };
      }),
    );
    const refused = results.filter((r) => r.status !== 200);
    assert.ok(refused.length >= 1, 'some requests were refused');
    assert.ok(results.some((r) => r.status === 200), 'some requests ran');
    for (const r of refused) {
      assert.equal(r.status, 503);
      assert.equal(r.code, 'TTS_NODE_OVERLOADED');
      assert.ok(Number(r.retryAfter) >= 1, `Retry-After ${r.retryAfter}`);
    }
  });

  test('a client that disconnects while queued leaves the batch queue and never runs', async () => {
    const engine = piper();
    const start = engine.stats().batcher;
    // Speed 0.5 doubles the length scale, hence the frames the heavy model computes (several hundred ms).
    const busy = p.post('/api/tts', { text: LONG, voice: HEAVY, format: 'wav', speed: 0.5 });
    await waitFor(() => engine.stats().batcher.runningBatches === 1, 10_000, 'the long request running');
    const controller = new AbortController();
    const waiting = fetch(`${p.url}/api/tts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': p.apiKey },
      body: JSON.stringify({ text: 'Nobody will hear this sentence.', voice: HEAVY, format: 'wav' }),
      signal: controller.signal,
    });
    await waitFor(() => engine.stats().batcher.queued === 1, 10_000, 'the second request queued');
    controller.abort();
    await assert.rejects(waiting, (err: unknown) => err instanceof Error && err.name === 'AbortError');
    await waitFor(() => engine.stats().batcher.cancelled === start.cancelled + 1, 5000, 'the queued request cancelled');
    assert.equal(engine.stats().batcher.queued, 0);
    const res = await busy;
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const end = engine.stats().batcher;
    assert.equal(end.items - start.items, 1, 'only the long request reached the model');
    assert.equal(end.batches - start.batches, 1);
    await waitFor(() => p.nodes[0]!.context.admission.inFlight() === 0, 5000, 'the node idle');
  });
});
