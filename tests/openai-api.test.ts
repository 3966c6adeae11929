/**
 * The OpenAI-compatible surface, driven with the official `openai` npm client and raw HTTP.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { assertSpeech, inspectClip } from './support/audio.js';
import { startPlatform, type TestPlatform } from './support/platform.js';

const PARAGRAPH =
  'The quick brown fox jumps over the lazy dog. Then it runs into the forest and hides behind a tree. ' +
  'Nobody knows where it went, and the dog goes back to sleep. Later that evening, the fox returns home to its family. ' +
  'They eat dinner together and tell stories until the stars come out.';

describe('OpenAI-compatible API', () => {
  let p: TestPlatform;
  let client: OpenAI;
  before(async () => {
    p = await startPlatform();
    client = new OpenAI({ baseURL: `${p.url}/v1`, apiKey: p.apiKey, maxRetries: 0 });
  });
  after(async () => {
    await p.stop();
  });

  test('official client: audio.speech.create returns playable mp3', async () => {
    const res = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello world! This is the OpenAI client speaking.', response_format: 'mp3' });
    const bytes = new Uint8Array(await res.arrayBuffer());
    const clip = await inspectClip(bytes);
    assert.match(clip.codec, /^mp3/);
    assertSpeech(clip, 1.5, 7);
  });

  test('official client: every response_format decodes', async () => {
    for (const format of ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const) {
      const res = await client.audio.speech.create({ model: 'tts-1', voice: 'coral', input: 'Testing the format.', response_format: format, speed: 1.0 });
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (format === 'pcm') {
        assert.ok(bytes.length > 24000, 'pcm has at least half a second at 24 kHz');
        continue;
      }
      const clip = await inspectClip(bytes);
      assertSpeech(clip, 0.6, 4);
    }
  });

  test('OpenAI voice names map to distinct platform voices', async () => {
    const res = await fetch(`${p.url}/v1/audio/voices`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { voices: { id: string; engine: string; gender: string }[]; openai_aliases: Record<string, string>; default_voice: string };
    assert.ok(body.voices.some((v) => v.engine === 'festival'));
    assert.ok(body.voices.some((v) => v.engine === 'flite'));
    assert.ok(body.voices.some((v) => v.engine === 'espeak'));
    const aliases = Object.keys(body.openai_aliases);
    assert.deepEqual(aliases.sort(), ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse']);
    assert.ok(new Set(Object.values(body.openai_aliases)).size >= 6, JSON.stringify(body.openai_aliases));
    for (const id of Object.values(body.openai_aliases)) assert.ok(body.voices.some((v) => v.id === id), id);
  });

  test('a platform voice id works as the voice; an engine name works as the model', async () => {
    const a = await p.post(`/v1/audio/speech`, { model: 'tts-1', input: 'Hi there.', voice: 'flite:rms', response_format: 'wav' });
    assert.equal(a.status, 200);
    assert.equal(a.headers.get('x-tts-voice'), 'flite:rms');
    const b = await p.post(`/v1/audio/speech`, { model: 'espeak-ng', input: 'Hi there.', voice: 'alloy', response_format: 'wav' });
    assert.equal(b.status, 200);
    assert.equal(b.headers.get('x-tts-engine'), 'espeak');
  });

  test('stream_format audio: the first chunk arrives well before the last', async () => {
    const started = performance.now();
    const res = await p.post(`/v1/audio/speech`, { model: 'tts-1', input: PARAGRAPH, voice: 'flite:slt', response_format: 'pcm' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
    const reader = res.body!.getReader();
    let first = 0;
    let total = 0;
    let chunks = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (chunks === 0) first = performance.now() - started;
      chunks++;
      total += value.length;
    }
    const all = performance.now() - started;
    assert.ok(chunks >= 3, `chunks ${chunks}`);
    assert.ok(first < all * 0.6, `first chunk at ${first.toFixed(0)} ms of ${all.toFixed(0)} ms`);
    assert.ok(total / 2 / 24000 > 8, 'paragraph is more than 8 s of audio');
  });

  test('stream_format sse: speech.audio.delta events then speech.audio.done with usage', async () => {
    const res = await p.post(`/v1/audio/speech`, { model: 'tts-1', input: 'Hello. Second sentence here.', voice: 'nova', response_format: 'mp3', stream_format: 'sse' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const text = await res.text();
    const events = text.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => JSON.parse(e.slice(6)) as { type: string; audio?: string; usage?: { input_tokens: number; output_tokens: number; total_tokens: number } });
    const deltas = events.filter((e) => e.type === 'speech.audio.delta');
    const done = events.filter((e) => e.type === 'speech.audio.done');
    assert.ok(deltas.length >= 1);
    assert.equal(done.length, 1);
    assert.equal(events[events.length - 1]?.type, 'speech.audio.done');
    assert.ok((done[0]?.usage?.input_tokens ?? 0) > 0);
    const audio = Buffer.concat(deltas.map((d) => Buffer.from(d.audio ?? '', 'base64')));
    assertSpeech(await inspectClip(audio), 1, 6);
  });

  test('GET /v1/models lists the compatibility ids and the engines; models.retrieve answers each of them', async () => {
    const models = await client.models.list();
    const ids = models.data.map((m) => m.id);
    for (const id of ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'festival', 'flite', 'espeak']) assert.ok(ids.includes(id), id);
    for (const id of ids) {
      const model = await client.models.retrieve(id);
      assert.deepEqual(model, models.data.find((m) => m.id === id));
    }
    await assert.rejects(client.models.retrieve('no-such-model'), (err: unknown) => {
      assert.ok(err instanceof OpenAI.NotFoundError);
      assert.equal(err.code, 'model_not_found');
      assert.equal((err.error as { platform_code?: string }).platform_code, 'TTS_MODEL_NOT_FOUND');
      return true;
    });
  });

  test('errors use the OpenAI shape with OpenAI codes, and the client raises the right classes', async () => {
    await assert.rejects(client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: '' }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.UnprocessableEntityError);
      assert.equal(err.status, 422);
      assert.equal(err.param, 'input');
      assert.match(err.message, /input/);
      return true;
    });
    await assert.rejects(client.audio.speech.create({ model: 'no-such-model', voice: 'alloy', input: 'Hi.' }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.NotFoundError);
      assert.equal(err.code, 'model_not_found');
      assert.equal(err.type, 'invalid_request_error');
      return true;
    });
    const wrongKey = new OpenAI({ baseURL: `${p.url}/v1`, apiKey: 'tts_nope_nope', maxRetries: 0 });
    await assert.rejects(wrongKey.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hi.' }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.AuthenticationError);
      assert.equal(err.code, 'invalid_api_key');
      assert.equal((err.error as { platform_code?: string }).platform_code, 'AUTH_KEY_INVALID');
      return true;
    });
    const res = await p.post(`/v1/audio/speech`, { model: 'tts-1', input: 'x'.repeat(4097), voice: 'alloy' });
    assert.equal(res.status, 422);
    const body = (await res.json()) as { error: { message: string; type: string; param: string | null; code: string | null; platform_code: string }; detail: { loc: (string | number)[]; msg: string; type: string }[] };
    assert.equal(body.error.type, 'invalid_request_error');
    assert.equal(body.error.param, 'input');
    assert.equal(body.error.code, 'string_above_max_length');
    assert.equal(body.error.platform_code, 'VALIDATION_FAILED');
    assert.deepEqual(body.detail[0]?.loc, ['body', 'input']);
    assert.equal(body.detail[0]?.type, 'string_too_long');
    assert.equal(body.error.message, body.detail[0]?.msg);
  });

  test('bad speed, format and voice answer 422 naming the parameter', async () => {
    const cases: [Record<string, unknown>, string, string, string][] = [
      [{ speed: 0.1 }, 'speed', 'invalid_value', 'VALIDATION_FAILED'],
      [{ response_format: 'ogg' }, 'response_format', 'invalid_value', 'VALIDATION_FAILED'],
      [{ voice: 'flite:nobody' }, 'voice', 'invalid_value', 'TTS_VOICE_NOT_FOUND'],
      [{ stream_format: 'websocket' }, 'stream_format', 'invalid_value', 'VALIDATION_FAILED'],
      [{ model: undefined }, 'model', 'missing_required_parameter', 'VALIDATION_FAILED'],
    ];
    for (const [patch, param, code, platformCode] of cases) {
      const res = await p.post(`/v1/audio/speech`, { model: 'tts-1', input: 'Hi.', voice: 'alloy', ...patch });
      assert.equal(res.status, 422, JSON.stringify(patch));
      const body = (await res.json()) as { error: { param: string | null; code: string | null; platform_code: string }; detail: unknown[] };
      assert.equal(body.error.param, param, JSON.stringify(patch));
      assert.equal(body.error.code, code, JSON.stringify(patch));
      assert.equal(body.error.platform_code, platformCode, JSON.stringify(patch));
      assert.ok(body.detail.length >= 1);
    }
  });

  test('an unknown query parameter is a documented 422 on public operations too', async () => {
    for (const path of ['/v1/models?x=1', '/api/health?x=1']) {
      const res = await fetch(`${p.url}${path}`);
      assert.equal(res.status, 422, path);
    }
  });
});
