/**
 * The job endpoints of both families end to end: facade -> scheduler (real PostgreSQL and Redis)
 * -> inference node, with owner scoping, job tokens, events and audio checked by decoding it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeWav } from '@tts/inference-node/testing';
import { solveChallenge } from '@tts/facade/testing';
import { assertSpeech, inspectClip } from './support/audio.js';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

interface JobJson { job_id: string; status: string; progress: number; links: { self: string; audio: string | null }; result: { audio_seconds: number } | null; error: { code: string } | null }
interface EventJson { event_id: number; kind: string; status: string; progress: number }

describe('API-key job family', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startPlatform({ node: { engines: ['flite', 'espeak'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt' } });
  });
  after(async () => {
    await p.stop();
  });

  test('submit answers 202 with links; the job completes; its audio is a valid WAV', async () => {
    const res = await p.post('/api/jobs/tts', { text: 'An asynchronous job. It has two sentences.', voice: 'flite:slt', format: 'wav' });
    assert.equal(res.status, 202);
    const job = (await res.json()) as JobJson;
    assert.equal(res.headers.get('location'), `/api/jobs/${job.job_id}`);
    assert.ok(['queued', 'running', 'completed'].includes(job.status));
    assert.equal(job.links.self, `/api/jobs/${job.job_id}`);
    let done: JobJson | undefined;
    await waitFor(async () => {
      done = (await (await p.get(`/api/jobs/${job.job_id}`)).json()) as JobJson;
      return done.status === 'completed' || done.status === 'failed';
    }, 20_000, 'job completion');
    assert.equal(done!.status, 'completed', JSON.stringify(done));
    assert.equal(done!.progress, 1);
    const audio = await p.get(`/api/jobs/${job.job_id}/audio`);
    assert.equal(audio.status, 200);
    assert.equal(audio.headers.get('content-type'), 'audio/wav');
    const bytes = new Uint8Array(await audio.arrayBuffer());
    assert.equal(Number(audio.headers.get('content-length')), bytes.length);
    assert.equal(decodeWav(bytes).channels, 1);
    assertSpeech(await inspectClip(bytes), 1.5, 6);
    assert.ok(Math.abs((done!.result?.audio_seconds ?? 0) - bytes.length / 2 / decodeWav(bytes).sampleRate) < 0.1);
  });

  test('another key sees 404 for the job and its audio, and the reads are audited', async () => {
    const res = await p.post('/api/jobs/tts', { text: 'Private job.', voice: 'flite:slt' });
    const job = (await res.json()) as JobJson;
    const other = await p.createKey({ name: 'other' });
    const peek = await p.get(`/api/jobs/${job.job_id}`, { 'x-api-key': other.apiKey });
    assert.equal(peek.status, 404);
    assert.equal(((await peek.json()) as { code: string }).code, 'JOB_NOT_FOUND');
    assert.equal((await p.get(`/api/jobs/${job.job_id}/audio`, { 'x-api-key': other.apiKey })).status, 404);
    const audit = (await (await fetch(`${p.url}/api/usage/job-access-audit?only_denied=true`, { headers: { 'x-admin-key': p.adminKey } })).json()) as { records: { job_id: string; requester_key_id: string; allowed: boolean; reason: string }[] };
    const denied = audit.records.filter((r) => r.job_id === job.job_id);
    assert.equal(denied.length, 2);
    assert.ok(denied.every((r) => !r.allowed && r.reason === 'not_owner' && r.requester_key_id === other.keyId));
  });

  test('audio of a job still running answers 409 JOB_NOT_READY', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `Sentence ${i + 1} of a long asynchronous job.`).join(' ');
    const job = (await (await p.post('/api/jobs/tts', { text: long, voice: 'flite:slt' })).json()) as JobJson;
    const early = await p.get(`/api/jobs/${job.job_id}/audio`);
    assert.equal(early.status, 409);
    assert.equal(((await early.json()) as { code: string }).code, 'JOB_NOT_READY');
  });

  test('unknown, malformed and failing jobs answer clear codes', async () => {
    const unknown = await p.get('/api/jobs/abcdefghijklmnop');
    assert.equal(unknown.status, 404);
    const malformed = await p.get('/api/jobs/bad!id');
    assert.equal(malformed.status, 422);
    const badVoice = await p.post('/api/jobs/tts', { text: 'Hi.', voice: 'flite:nobody' });
    assert.equal(badVoice.status, 422);
    assert.equal(((await badVoice.json()) as { code: string }).code, 'TTS_VOICE_NOT_FOUND');
    const empty = await p.post('/api/jobs/tts', { text: '   ' });
    assert.equal(empty.status, 422);
    assert.equal(((await empty.json()) as { code: string }).code, 'TTS_TEXT_EMPTY');
  });
});

describe('web job family', () => {
  let p: TestPlatform;
  let cookie: string;
  const ua = { 'user-agent': 'web-job-test/1.0' };
  before(async () => {
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt', challengeDifficulty: 6 } });
    const issued = (await (await fetch(`${p.url}/api/auth/challenge`, { headers: ua })).json()) as { challenge: string; difficulty_bits: number };
    const solution = solveChallenge(issued.challenge, issued.difficulty_bits);
    const pass = await fetch(`${p.url}/api/auth/challenge`, { method: 'POST', headers: { ...ua, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ challenge: issued.challenge, solution }).toString() });
    cookie = (pass.headers.get('set-cookie') ?? '').split(';')[0]!;
  });
  after(async () => {
    await p.stop();
  });

  async function submit(text: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const form = new FormData();
    form.set('text', text);
    form.set('voice', 'flite:slt');
    form.set('mode', 'auto');
    form.set('consent_confirmed', 'true');
    const res = await fetch(`${p.url}/api/web/jobs/tts`, { method: 'POST', headers: { ...ua, cookie }, body: form });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  test('multipart submit with the pass: ok, job_id, job_token, expiry and rate_limit', async () => {
    const { status, body } = await submit('Hello from the browser.');
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body['ok'], true);
    assert.match(String(body['job_id']), /^[A-Za-z0-9_-]{8,64}$/);
    assert.ok(String(body['job_token']).startsWith(`${String(body['job_id'])}.`));
    assert.ok(Number(body['job_token_expires_unix']) > Date.now() / 1000 + 3000);
    const rl = body['rate_limit'] as { remaining: number; limit: number; reset_unix: number; window_sec: number };
    assert.equal(rl.limit, 30);
    assert.ok(rl.remaining < 30 && rl.remaining >= 0);
    assert.equal(rl.window_sec, 60);
  });

  test('without the pass: 401 AUTH_CHALLENGE_REQUIRED', async () => {
    const form = new FormData();
    form.set('text', 'No pass.');
    const res = await fetch(`${p.url}/api/web/jobs/tts`, { method: 'POST', body: form });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { code: string }).code, 'AUTH_CHALLENGE_REQUIRED');
  });

  test('events poll to completion with increasing ids; status and audio need the job token', async () => {
    const { body } = await submit('Follow me with events. Second sentence.');
    const jobId = String(body['job_id']);
    const token = String(body['job_token']);
    const events: EventJson[] = [];
    let after = 0;
    await waitFor(async () => {
      const page = (await (await fetch(`${p.url}/api/web/jobs/${jobId}/events?token=${encodeURIComponent(token)}&after_event_id=${after}`)).json()) as { events: EventJson[]; next_after_event_id: number; done: boolean };
      events.push(...page.events);
      after = page.next_after_event_id;
      return page.done;
    }, 20_000, 'job events to completion');
    const ids = events.map((e) => e.event_id);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(ids[0], 1);
    assert.equal(events[0]?.kind, 'queued');
    assert.ok(events.some((e) => e.kind === 'running'));
    assert.equal(events[events.length - 1]?.kind, 'completed');
    assert.equal(events[events.length - 1]?.progress, 1);
    const beyond = (await (await fetch(`${p.url}/api/web/jobs/${jobId}/events?token=${encodeURIComponent(token)}&after_event_id=9999`)).json()) as { events: unknown[] };
    assert.deepEqual(beyond.events, []);

    const status = await fetch(`${p.url}/api/web/jobs/${jobId}`, { headers: { 'x-job-token': token } });
    assert.equal(status.status, 200);
    assert.equal(((await status.json()) as JobJson).status, 'completed');
    const audio = await fetch(`${p.url}/api/web/jobs/${jobId}/audio?token=${encodeURIComponent(token)}`);
    assert.equal(audio.status, 200);
    assertSpeech(await inspectClip(new Uint8Array(await audio.arrayBuffer())), 1.5, 6);

    const other = await submit('Another job.');
    const otherToken = String(other.body['job_token']);
    const wrongJob = await fetch(`${p.url}/api/web/jobs/${jobId}`, { headers: { 'x-job-token': otherToken } });
    assert.equal(wrongJob.status, 403);
    assert.equal(((await wrongJob.json()) as { code: string }).code, 'JOB_TOKEN_INVALID');
    const forged = await fetch(`${p.url}/api/web/jobs/${jobId}?token=${encodeURIComponent(token.slice(0, -4) + 'AAAA')}`);
    assert.equal(forged.status, 403);
    const missing = await fetch(`${p.url}/api/web/jobs/${jobId}/audio`);
    assert.equal(missing.status, 401);
    assert.equal(((await missing.json()) as { code: string }).code, 'JOB_TOKEN_MISSING');
  });

  test('the caller lists its own recent jobs; bounds are enforced', async () => {
    const list = (await (await fetch(`${p.url}/api/web/jobs?limit=2`, { headers: { ...ua, cookie } })).json()) as { jobs: JobJson[] };
    assert.equal(list.jobs.length, 2);
    for (const bad of ['limit=0', 'limit=201', 'limit=x']) assert.equal((await fetch(`${p.url}/api/web/jobs?${bad}`, { headers: { ...ua, cookie } })).status, 422, bad);
    const { body } = await submit('Bounds.');
    const token = encodeURIComponent(String(body['job_token']));
    for (const bad of ['after_event_id=-1', 'limit=0', 'limit=501']) {
      assert.equal((await fetch(`${p.url}/api/web/jobs/${String(body['job_id'])}/events?token=${token}&${bad}`)).status, 422, bad);
    }
  });

  test('web config and system status are public', async () => {
    const config = (await (await fetch(`${p.url}/api/web/config`)).json()) as { rate_limit: { limit: number }; job_token_ttl_sec: number; challenge: { difficulty_bits: number } };
    assert.equal(config.rate_limit.limit, 30);
    assert.equal(config.challenge.difficulty_bits, 6);
    assert.ok(config.job_token_ttl_sec >= 60);
    const status = (await (await fetch(`${p.url}/api/web/system/status`)).json()) as { status: string; nodes_ready: number; queue_depth: number };
    assert.equal(status.status, 'ok');
    assert.equal(status.nodes_ready, 1);
    assert.ok(status.queue_depth >= 0);
  });
});
