/**
 * Metering written behind the response: a synthesis request waits for no database write, the
 * quota of the next request already counts the previous one, and stopping the facade writes every
 * buffered usage event and consent record (real PostgreSQL, real facade, node and scheduler).
 * Every path that synthesizes counts the seconds of audio it delivered: each path's usage (summary
 * and cost views) is within a few % of its decoded audio's duration.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase, type Database } from '@tts/common/data';
import { TEST_DATABASE_URL } from '@tts/common/testing';
import { decodeWithFfmpeg } from '@tts/inference-node/testing';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

describe('metering behind the response', () => {
  let p: TestPlatform;
  let db: Database;

  before(async () => {
    // A flush interval longer than the test: records stay buffered until the facade stops.
    p = await startPlatform({ facade: { meteringFlushMs: 600_000 } });
    db = await openDatabase({ url: TEST_DATABASE_URL, schema: p.facade.deps.config.dbSchema });
  });
  after(async () => {
    await db.close();
    await p.stop();
  });

  const count = async (table: 'usage_events' | 'consent_audit', keyId: string): Promise<number> =>
    Number((await db.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM ${table} WHERE key_id = $1::text`, [keyId]))[0]!.n);

  test('answers before writing, counts buffered usage in the quota, and writes it all on stop', async () => {
    const { keyId, apiKey } = await p.createKey({ name: 'metered', tier: 'pro', daily_char_quota: 100 });
    const speak = (chars: number, voice = 'flite:slt') => p.post('/api/tts', { text: 'a'.repeat(chars - 1) + '.', voice, consent_confirmed: true }, { 'x-api-key': apiKey });

    const first = await speak(60);
    assert.equal(first.status, 200, first.status === 200 ? '' : await first.clone().text());
    assert.equal(first.headers.get('x-quota-stage'), 'ok');
    await first.arrayBuffer();
    const failed = await speak(5, 'flite:nobody');
    assert.equal(failed.status, 422);
    assert.equal(((await failed.json()) as { code: string }).code, 'TTS_VOICE_NOT_FOUND');
    assert.equal(await count('usage_events', keyId), 0, 'nothing is written on the request path');
    assert.equal(await count('consent_audit', keyId), 0);

    // 60 buffered + 30 = 90 of 100: the quota sees the first request though it is not written yet.
    const second = await speak(30);
    assert.equal(second.status, 200);
    assert.equal(second.headers.get('x-quota-stage'), 'warning');
    await second.arrayBuffer();

    await p.facade.stop(2000);
    assert.equal(await count('usage_events', keyId), 3, 'stop writes every buffered usage event');
    assert.equal(await count('consent_audit', keyId), 3, 'and every consent record');
    const daily = await db.query<{ characters: number; requests: number }>('SELECT characters::int8 AS characters, requests::int8 AS requests FROM usage_daily WHERE key_id = $1::text', [keyId]);
    assert.deepEqual(daily.map((r) => [Number(r.characters), Number(r.requests)]), [[90, 2]], 'the daily rollup counts the successful requests once');
  });
});

describe('audio seconds of every path that synthesizes', () => {
  let p: TestPlatform;
  const admin = (): Record<string, string> => ({ 'x-admin-key': p.adminKey });
  // Several sentences, so streamed answers arrive in several chunks.
  const TEXT = [
    'The quarterly report is ready for review.',
    'Sales grew in every region except the north, where a late winter slowed deliveries.',
    'The board meets on Thursday to discuss the new warehouse.',
    'Please send your comments before Wednesday noon.',
    'Thank you all for a strong quarter.',
  ].join(' ');

  before(async () => {
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt', meteringFlushMs: 20 } });
  });
  after(async () => {
    await p.stop();
  });

  /** Seconds of decoded audio in `bytes` (any container the platform writes). */
  const seconds = async (bytes: Uint8Array): Promise<number> => {
    const pcm = await decodeWithFfmpeg(bytes);
    return pcm.samples.length / pcm.sampleRate;
  };
  const ok = async (res: Response): Promise<Response> => {
    assert.ok([200, 201, 202].includes(res.status), `${res.status} ${await res.clone().text()}`);
    return res;
  };
  const form = (path: string, fields: Record<string, string>, headers: Record<string, string>): Promise<Response> =>
    fetch(`${p.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  /** The completed audio of a job (API or web, with its token). */
  const jobAudio = async (self: string, headers: Record<string, string>, query = ''): Promise<Uint8Array> => {
    await waitFor(async () => ((await (await p.get(`${self}${query}`, headers)).json()) as { status: string }).status === 'completed', 60_000, `${self} completed`);
    const res = await ok(await p.get(`${self}/audio${query}`, headers));
    return new Uint8Array(await res.arrayBuffer());
  };
  const studioGuest = async (): Promise<{ token: string; userId: string }> => {
    const s = (await (await fetch(`${p.url}/api/studio/auth/guest`, { method: 'POST' })).json()) as { token: string; user: { user_id: string } };
    return { token: s.token, userId: s.user.user_id };
  };

  /** Asserts that the usage views count `expected` seconds of audio (decoded) for `keyId`. */
  const assertCounted = async (keyId: string, expected: number, what: string, costView = true): Promise<void> => {
    assert.ok(expected > 5, `${what}: ${expected.toFixed(2)} s of audio decoded`);
    await p.facade.deps.metering.drain();
    const near = (value: number): boolean => Math.abs(value - expected) <= 0.03 * expected;
    let counted = -1;
    await waitFor(async () => {
      const summary = (await (await p.get(`/api/usage/summary?key_id=${encodeURIComponent(keyId)}`, admin())).json()) as { totals: { audio_seconds: number } };
      counted = summary.totals.audio_seconds;
      return near(counted);
    }, 10_000, `${what}: usage summary counts ${expected.toFixed(2)} s (counted ${counted})`).catch(() => undefined);
    assert.ok(near(counted), `${what}: the usage summary counts ${counted} s of ${expected.toFixed(2)} s decoded`);
    if (!costView) return;
    const cost = (await (await p.get(`/api/usage/cost-dashboard?key_id=${encodeURIComponent(keyId)}`, admin())).json()) as { rows: { key_id: string; audio_minutes: number }[] };
    const minutes = cost.rows.find((r) => r.key_id === keyId)?.audio_minutes ?? 0;
    assert.ok(near(minutes * 60), `${what}: the cost dashboard counts ${(minutes * 60).toFixed(2)} s of ${expected.toFixed(2)} s decoded`);
  };

  test('REST /api/tts: whole WAV and the timestamps JSON', async () => {
    const whole = await p.createKey({ name: 'rest-whole' });
    const res = await ok(await p.post('/api/tts', { text: TEXT, voice: 'flite:slt', format: 'wav' }, { 'x-api-key': whole.apiKey }));
    await assertCounted(whole.keyId, await seconds(new Uint8Array(await res.arrayBuffer())), 'POST /api/tts');

    const timed = await p.createKey({ name: 'rest-timestamps' });
    const json = (await (await ok(await p.post('/api/tts', { text: TEXT, voice: 'flite:slt', format: 'mp3', timestamps: true }, { 'x-api-key': timed.apiKey }))).json()) as { audio: string };
    await assertCounted(timed.keyId, await seconds(Buffer.from(json.audio, 'base64')), 'POST /api/tts with timestamps');
  });

  test('OpenAI /v1/audio/speech: streamed bytes, server-sent events, and what the web page sends (streamed mp3 at a speed)', async () => {
    const bytes = await p.createKey({ name: 'openai-bytes' });
    const res = await ok(await p.post('/v1/audio/speech', { model: 'tts-1', input: TEXT, voice: 'flite:slt', response_format: 'opus' }, { 'x-api-key': bytes.apiKey }));
    await assertCounted(bytes.keyId, await seconds(new Uint8Array(await res.arrayBuffer())), 'POST /v1/audio/speech');

    const sse = await p.createKey({ name: 'openai-sse' });
    const events = await (await ok(await p.post('/v1/audio/speech', { model: 'tts-1', input: TEXT, voice: 'flite:slt', response_format: 'mp3', stream_format: 'sse' }, { 'x-api-key': sse.apiKey }))).text();
    const audio = Buffer.concat(
      events.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => JSON.parse(e.slice(6)) as { type: string; audio?: string })
        .filter((e) => e.type === 'speech.audio.delta').map((e) => Buffer.from(e.audio ?? '', 'base64')),
    );
    await assertCounted(sse.keyId, await seconds(audio), 'POST /v1/audio/speech as server-sent events');

    // The web page streams long texts too: minutes of audio in many chunks.
    const page = await p.createKey({ name: 'web-page' });
    const streamed = await ok(await p.post('/v1/audio/speech', { model: 'tts-1', input: Array.from({ length: 8 }, () => TEXT).join(' '), voice: 'flite:slt', response_format: 'mp3', speed: 1.25, stream_format: 'audio' }, { 'x-api-key': page.apiKey, accept: 'audio/mpeg' }));
    await assertCounted(page.keyId, await seconds(new Uint8Array(await streamed.arrayBuffer())), 'the web page\'s streamed mp3');
  });

  test('studio synthesis: POST /api/tts with a studio session and its preset', async () => {
    const user = await studioGuest();
    const preset = (await (await ok(await p.post('/api/studio/presets', { name: 'Brisk', voice: 'flite:slt', speed: 1.5, format: 'wav' }, { 'x-studio-token': user.token }))).json()) as { preset_id: string };
    const res = await ok(await p.post('/api/tts', { text: TEXT, preset_id: preset.preset_id }, { 'x-studio-token': user.token }));
    // Studio usage is counted under studio:<user id>, which the cost dashboard of API keys leaves out.
    await assertCounted(`studio:${user.userId}`, await seconds(new Uint8Array(await res.arrayBuffer())), 'studio POST /api/tts', false);
  });

  test('jobs: API jobs, web jobs and studio jobs count the audio of their completion', async () => {
    const api = await p.createKey({ name: 'api-jobs' });
    const submitted = (await (await ok(await p.post('/api/jobs/tts', { text: TEXT, voice: 'flite:slt', format: 'mp3' }, { 'x-api-key': api.apiKey }))).json()) as { job_id: string };
    await assertCounted(api.keyId, await seconds(await jobAudio(`/api/jobs/${submitted.job_id}`, { 'x-api-key': api.apiKey })), 'API job');

    const web = await p.createKey({ name: 'web-jobs' });
    const webJob = (await (await ok(await form('/api/web/jobs/tts', { text: TEXT, voice: 'flite:slt', format: 'wav' }, { 'x-api-key': web.apiKey }))).json()) as { job_id: string; job_token: string };
    await assertCounted(web.keyId, await seconds(await jobAudio(`/api/web/jobs/${webJob.job_id}`, {}, `?token=${encodeURIComponent(webJob.job_token)}`)), 'web job');

    const user = await studioGuest();
    const studioJob = (await (await ok(await form('/api/web/jobs/tts', { text: TEXT, voice: 'flite:slt', format: 'opus' }, { 'x-studio-token': user.token }))).json()) as { job_id: string; job_token: string };
    await assertCounted(`studio:${user.userId}`, await seconds(await jobAudio(`/api/web/jobs/${studioJob.job_id}`, {}, `?token=${encodeURIComponent(studioJob.job_token)}`)), 'studio web job', false);
  });
});
