/**
 * POST /api/tts end to end: facade -> scheduler -> inference node over real gRPC, real engines,
 * real encoders; every assertion is on decoded audio or on the documented error bodies.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeWav } from '@tts/inference-node/testing';
import { assertSpeech, inspectClip } from './support/audio.js';
import { startPlatform, type TestPlatform } from './support/platform.js';

const SENTENCE = 'Please call Stella and ask her to bring these things with her from the store.';

describe('POST /api/tts', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startPlatform();
  });
  after(async () => {
    await p.stop();
  });

  test('the seed request returns a WAV of the sentence spoken by the default voice', async () => {
    const res = await p.post(`/api/tts`, { text: SENTENCE, voice: 'festival:slt', mode: 'auto', format: 'wav', consent_confirmed: true });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'audio/wav');
    assert.equal(res.headers.get('x-tts-engine'), 'festival');
    assert.ok(res.headers.get('x-request-id'));
    // Server-Timing nests: the facade's total holds its gRPC call, which holds the node's time.
    const timing = Object.fromEntries([...String(res.headers.get('server-timing')).matchAll(/(\w+);dur=([0-9.]+)/g)].map((m) => [m[1]!, Number(m[2])]));
    assert.deepEqual(Object.keys(timing), ['total', 'grpc', 'node', 'synth', 'queue']);
    assert.ok(timing['total']! >= timing['grpc']! && timing['grpc']! >= timing['node']! && timing['node']! >= timing['synth']! && timing['synth']! > 0, JSON.stringify(timing));
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(Number(res.headers.get('content-length')), bytes.length);
    const wav = decodeWav(bytes);
    assert.equal(wav.channels, 1);
    assert.equal(wav.bitsPerSample, 16);
    assertSpeech(await inspectClip(bytes), 2.5, 8);
  });

  test('leading and trailing silence is trimmed to a short pad, for every engine', async () => {
    for (const voice of ['festival:slt', 'flite:slt', 'espeak:en-us']) {
      const res = await p.post(`/api/tts`, { text: 'Hello there.', voice, format: 'wav' });
      const wav = decodeWav(new Uint8Array(await res.arrayBuffer()));
      const threshold = 0.02 * Math.max(...wav.samples.map(Math.abs));
      const first = wav.samples.findIndex((x) => Math.abs(x) > threshold) / wav.sampleRate;
      let last = wav.samples.length - 1;
      while (last > 0 && Math.abs(wav.samples[last]!) <= threshold) last--;
      const tail = (wav.samples.length - 1 - last) / wav.sampleRate;
      assert.ok(first < 0.15, `${voice}: ${first.toFixed(3)} s of leading silence`);
      assert.ok(tail < 0.15, `${voice}: ${tail.toFixed(3)} s of trailing silence`);
    }
  });

  test('with no voice the platform default voice speaks', async () => {
    const res = await p.post(`/api/tts`, { text: 'Hello there.' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-tts-voice'), 'festival:slt');
  });

  for (const voice of ['flite:slt', 'flite:rms', 'flite:awb', 'flite:kal16', 'espeak:en-us']) {
    test(`voice ${voice} speaks`, async () => {
      const res = await p.post(`/api/tts`, { text: SENTENCE, voice });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(res.headers.get('x-tts-voice'), voice);
      assertSpeech(await inspectClip(new Uint8Array(await res.arrayBuffer())), 2, 9);
    });
  }

  const codecs: Record<string, { type: string; codec: RegExp }> = {
    mp3: { type: 'audio/mpeg', codec: /^mp3/ },
    opus: { type: 'audio/ogg', codec: /^opus$/ },
    aac: { type: 'audio/aac', codec: /^aac$/ },
    flac: { type: 'audio/flac', codec: /^flac$/ },
  };
  test('every container decodes to the same speech as the WAV', async () => {
    const wavRes = await p.post(`/api/tts`, { text: SENTENCE, voice: 'flite:slt', format: 'wav' });
    const wav = await inspectClip(new Uint8Array(await wavRes.arrayBuffer()));
    for (const [format, want] of Object.entries(codecs)) {
      const res = await p.post(`/api/tts`, { text: SENTENCE, voice: 'flite:slt', format });
      assert.equal(res.status, 200, format);
      assert.equal(res.headers.get('content-type'), want.type, format);
      const clip = await inspectClip(new Uint8Array(await res.arrayBuffer()));
      assert.match(clip.codec, want.codec, format);
      assert.ok(Math.abs(clip.durationSec - wav.durationSec) < 0.15, `${format}: ${clip.durationSec} vs wav ${wav.durationSec}`);
      assertSpeech(clip, 2, 9);
    }
  });

  test('pcm is raw 16-bit mono at 24 kHz', async () => {
    const res = await p.post(`/api/tts`, { text: 'Hello world.', voice: 'flite:slt', format: 'pcm' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'audio/pcm');
    assert.equal(res.headers.get('x-audio-sample-rate'), '24000');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(bytes.length % 2, 0);
    const seconds = bytes.length / 2 / 24000;
    assert.ok(seconds > 0.5 && seconds < 3, `pcm length ${seconds}s`);
    const samples = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
    let sum = 0;
    for (const s of samples) sum += (s / 32768) ** 2;
    assert.ok(Math.sqrt(sum / samples.length) > 0.01);
  });

  test('sample_rate sets the output rate', async () => {
    const res = await p.post(`/api/tts`, { text: 'Hello world.', voice: 'flite:slt', format: 'wav', sample_rate: 22050 });
    assert.equal(res.status, 200);
    assert.equal(decodeWav(new Uint8Array(await res.arrayBuffer())).sampleRate, 22050);
  });

  for (const voice of ['flite:slt', 'festival:slt', 'espeak:en-us']) {
    test(`speed 2.0 roughly halves the duration (${voice})`, async () => {
      const normal = await inspectClip(new Uint8Array(await (await p.post(`/api/tts`, { text: SENTENCE, voice })).arrayBuffer()));
      const fast = await inspectClip(new Uint8Array(await (await p.post(`/api/tts`, { text: SENTENCE, voice, speed: 2 })).arrayBuffer()));
      const ratio = fast.durationSec / normal.durationSec;
      assert.ok(ratio > 0.38 && ratio < 0.65, `ratio ${ratio.toFixed(2)}`);
      assertSpeech(fast, 0.8, 5);
    });
  }

  test('numbers, currency and dates are spoken, not skipped', async () => {
    const plain = await inspectClip(new Uint8Array(await (await p.post(`/api/tts`, { text: 'It costs money.', voice: 'flite:slt' })).arrayBuffer()));
    const withNumbers = await inspectClip(new Uint8Array(await (await p.post(`/api/tts`, { text: 'It costs $1,234.56 on 2024-01-15.', voice: 'flite:slt' })).arrayBuffer()));
    assert.ok(withNumbers.durationSec > plain.durationSec + 2, `${withNumbers.durationSec} vs ${plain.durationSec}`);
  });
});

describe('POST /api/tts bad input', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startPlatform();
  });
  after(async () => {
    await p.stop();
  });

  const cases: { name: string; body: unknown; loc: (string | number)[]; code: string }[] = [
    { name: 'missing text', body: { voice: 'flite:slt' }, loc: ['body', 'text'], code: 'VALIDATION_FAILED' },
    { name: 'empty text', body: { text: '' }, loc: ['body', 'text'], code: 'VALIDATION_FAILED' },
    { name: 'white-space text', body: { text: '  \n\t ' }, loc: ['body', 'text'], code: 'TTS_TEXT_EMPTY' },
    { name: 'punctuation-only text', body: { text: '...!?' }, loc: ['body', 'text'], code: 'TTS_TEXT_EMPTY' },
    { name: 'text over the limit', body: { text: 'a'.repeat(10_001) }, loc: ['body', 'text'], code: 'VALIDATION_FAILED' },
    { name: 'unknown voice', body: { text: 'Hi.', voice: 'flite:nobody' }, loc: ['body', 'voice'], code: 'TTS_VOICE_NOT_FOUND' },
    { name: 'unknown bare voice', body: { text: 'Hi.', voice: 'nobody' }, loc: ['body', 'voice'], code: 'TTS_VOICE_NOT_FOUND' },
    { name: 'unknown engine', body: { text: 'Hi.', engine: 'vall-e' }, loc: ['body', 'engine'], code: 'TTS_ENGINE_NOT_FOUND' },
    { name: 'voice of another engine', body: { text: 'Hi.', engine: 'flite', voice: 'festival:slt' }, loc: ['body', 'voice'], code: 'TTS_ENGINE_VOICE_MISMATCH' },
    { name: 'unknown format', body: { text: 'Hi.', format: 'ogg' }, loc: ['body', 'format'], code: 'VALIDATION_FAILED' },
    { name: 'speed too high', body: { text: 'Hi.', speed: 4.5 }, loc: ['body', 'speed'], code: 'VALIDATION_FAILED' },
    { name: 'speed not a number', body: { text: 'Hi.', speed: 'fast' }, loc: ['body', 'speed'], code: 'VALIDATION_FAILED' },
    { name: 'unknown mode', body: { text: 'Hi.', mode: 'clone-everything' }, loc: ['body', 'mode'], code: 'VALIDATION_FAILED' },
    { name: 'opus at an unsupported rate', body: { text: 'Hi.', format: 'opus', sample_rate: 44100 }, loc: ['body', 'sample_rate'], code: 'TTS_SAMPLE_RATE_INVALID' },
    { name: 'text is not a string', body: { text: 42 }, loc: ['body', 'text'], code: 'VALIDATION_FAILED' },
  ];
  for (const c of cases) {
    test(`${c.name}: 422 naming the field`, async () => {
      const res = await p.post(`/api/tts`, c.body);
      assert.equal(res.status, 422);
      const body = (await res.json()) as { detail: { loc: (string | number)[]; msg: string; type: string }[]; code: string; request_id: string };
      assert.equal(body.code, c.code);
      assert.ok(body.request_id);
      assert.ok(body.detail.length >= 1);
      assert.ok(body.detail.some((d) => JSON.stringify(d.loc) === JSON.stringify(c.loc)), JSON.stringify(body.detail));
      assert.ok(body.detail.every((d) => typeof d.msg === 'string' && typeof d.type === 'string'));
    });
  }

  test('malformed JSON: 422 json_invalid', async () => {
    const res = await fetch(`${p.url}/api/tts`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': p.apiKey }, body: '{"text": "hi",' });
    assert.equal(res.status, 422);
    const body = (await res.json()) as { code: string; detail: { type: string }[] };
    assert.equal(body.code, 'REQUEST_JSON_MALFORMED');
    assert.equal(body.detail[0]?.type, 'json_invalid');
  });

  test('wrong content type: 415 with a stable code', async () => {
    const res = await fetch(`${p.url}/api/tts`, { method: 'POST', headers: { 'content-type': 'text/plain', 'x-api-key': p.apiKey }, body: 'hello' });
    assert.equal(res.status, 415);
    const body = (await res.json()) as { code: string; message: string; request_id: string };
    assert.equal(body.code, 'REQUEST_CONTENT_TYPE_UNSUPPORTED');
    assert.ok(body.request_id);
  });

  test('oversize body: 413', async () => {
    const res = await p.post(`/api/tts`, { text: 'a'.repeat(2 * 1024 * 1024) });
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as { code: string }).code, 'REQUEST_BODY_TOO_LARGE');
  });

  test('unknown route: 404 ROUTE_NOT_FOUND; wrong method: 405', async () => {
    const res = await fetch(`${p.url}/api/nothing-here`);
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { code: string }).code, 'ROUTE_NOT_FOUND');
    const wrong = await fetch(`${p.url}/api/tts`, { method: 'GET' });
    assert.equal(wrong.status, 405);
    assert.equal(((await wrong.json()) as { code: string }).code, 'METHOD_NOT_ALLOWED');
  });

  test('the platform makes every request id; a client\'s well-formed id comes back as X-Correlation-Id only', async () => {
    const ok = await p.post(`/api/tts`, { text: '' }, { 'x-request-id': 'abc-123' });
    const id = ok.headers.get('x-request-id');
    assert.notEqual(id, 'abc-123');
    assert.match(id ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(ok.headers.get('x-correlation-id'), 'abc-123');
    assert.equal(((await ok.json()) as { request_id: string }).request_id, id);
    const named = await p.post(`/api/tts`, { text: '' }, { 'x-correlation-id': 'corr-1', 'x-request-id': 'abc-123' });
    assert.equal(named.headers.get('x-correlation-id'), 'corr-1', 'X-Correlation-Id wins over X-Request-Id');
    await named.arrayBuffer();
    const bad = await p.post(`/api/tts`, { text: '' }, { 'x-request-id': 'bad id with spaces' });
    assert.notEqual(bad.headers.get('x-request-id'), 'bad id with spaces');
    assert.equal(bad.headers.get('x-correlation-id'), null, 'a malformed id is dropped');
    await bad.arrayBuffer();
  });

  test('after all that bad input the service still synthesizes', async () => {
    const res = await p.post(`/api/tts`, { text: 'Still here.', voice: 'flite:slt' });
    assert.equal(res.status, 200);
  });
});
