/**
 * The provenance watermark end to end against a real platform: audio of POST /api/tts, of a
 * streamed OpenAI-compatible MP3 and of a job carries the mark naming its request; detection
 * finds it (and an administrator the request behind it); audio the platform did not make is not
 * detected. The platform makes every request id itself (a client's X-Request-Id is only echoed as
 * X-Correlation-Id) and keys the payload with a server secret: another tenant that sends a known
 * id gets its own id and its own payload.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { payloadHex } from '@tts/common';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

interface Detection { detected: boolean; confidence: number; payload: string | null; key_id: number | null; origin: { request_id: string; endpoint: string; key_id: string | null }[] | null }

describe('provenance watermark', () => {
  let p: TestPlatform;
  let work: string;

  const detect = async (bytes: Uint8Array, name: string, headers: Record<string, string> = { 'x-api-key': p.apiKey }): Promise<Detection> => {
    const form = new FormData();
    form.append('audio', new Blob([bytes]), name);
    const res = await fetch(`${p.url}/api/provenance/watermark/detect`, { method: 'POST', body: form, headers });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return JSON.parse(text) as Detection;
  };

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'tts-provenance-'));
    p = await startPlatform({ facade: { meteringFlushMs: 20 } });
  });
  after(async () => {
    await p.stop();
    await rm(work, { recursive: true, force: true });
  });

  /** The payload the platform marks a request's audio with (keyed with its provenance secret). */
  const payloadOf = (requestId: string): string => payloadHex(p.facade.deps.provenance.payloadOf(requestId));
  /** The first four bytes of an unkeyed SHA-256 of an id: what anyone who knows the id can compute. */
  const unkeyed = (requestId: string): string => createHash('sha256').update(requestId, 'utf8').digest().subarray(0, 4).toString('hex');

  const TEXT = 'Please call Stella and ask her to bring these things with her from the store. Six spoons of fresh snow peas.';

  test('synchronous WAV: detected, the payload names the request, an administrator sees it', async () => {
    const res = await p.post('/api/tts', { text: TEXT, voice: 'flite:slt', consent_confirmed: true });
    assert.equal(res.status, 200);
    const requestId = res.headers.get('x-request-id')!;
    const audio = new Uint8Array(await res.arrayBuffer());
    const d = await detect(audio, 'speech.wav');
    assert.equal(d.detected, true, JSON.stringify(d));
    assert.ok(d.confidence > 0.9);
    assert.equal(d.payload, payloadOf(requestId));
    assert.equal(d.key_id, 1);
    assert.equal(d.origin, null, 'only administrators see the request');
    await waitFor(async () => ((await detect(audio, 'speech.wav', { 'x-admin-key': p.adminKey })).origin ?? []).length > 0, 10_000, 'the consent record');
    const asAdmin = await detect(audio, 'speech.wav', { 'x-admin-key': p.adminKey });
    assert.deepEqual(asAdmin.origin?.map((o) => [o.request_id, o.endpoint]), [[requestId, 'POST /api/tts']]);
  });

  test('a streamed MP3 of the OpenAI endpoint and a job carry the mark too', async () => {
    const speech = await p.post('/v1/audio/speech', { model: 'tts-1', input: TEXT, voice: 'flite:slt', response_format: 'mp3' });
    assert.equal(speech.status, 200);
    const mp3 = await detect(new Uint8Array(await speech.arrayBuffer()), 'speech.mp3');
    assert.equal(mp3.detected, true);
    assert.equal(mp3.payload, payloadOf(speech.headers.get('x-request-id')!));

    const submitted = await p.post('/api/jobs/tts', { text: TEXT, voice: 'flite:slt', format: 'opus' });
    assert.equal(submitted.status, 202);
    const job = (await submitted.json()) as { job_id: string };
    await waitFor(async () => ((await (await p.get(`/api/jobs/${job.job_id}`)).json()) as { status: string }).status === 'completed', 20_000, 'the job');
    const audio = await p.get(`/api/jobs/${job.job_id}/audio`);
    const d = await detect(new Uint8Array(await audio.arrayBuffer()), 'job.ogg');
    assert.equal(d.detected, true, JSON.stringify(d));
    assert.equal(d.payload, payloadOf(submitted.headers.get('x-request-id')!), 'a job names its submitting request');
  });

  test('a client-chosen X-Request-Id is only a correlation id: another key that sends a victim\'s id gets its own id, payload and origin', async () => {
    const admin = { 'x-admin-key': p.adminKey };
    const victim = await p.post('/api/tts', { text: TEXT, voice: 'flite:slt', consent_confirmed: true }, { 'x-request-id': 'victim-chosen-id' });
    assert.equal(victim.status, 200);
    const victimId = victim.headers.get('x-request-id')!;
    assert.notEqual(victimId, 'victim-chosen-id', 'the platform makes its own request id');
    assert.equal(victim.headers.get('x-correlation-id'), 'victim-chosen-id', 'the client\'s id comes back as the correlation id');
    const victimAudio = new Uint8Array(await victim.arrayBuffer());

    const attacker = await p.createKey({ name: 'attacker' });
    const spoofs: { id: string; audio: Uint8Array }[] = [];
    for (const sent of ['victim-chosen-id', victimId]) {
      const res = await p.post('/api/tts', { text: TEXT, voice: 'flite:slt', consent_confirmed: true }, { 'x-api-key': attacker.apiKey, 'x-request-id': sent });
      assert.equal(res.status, 200);
      const id = res.headers.get('x-request-id')!;
      assert.ok(id !== victimId && id !== sent, `the attacker's request got ${id} after sending ${sent}`);
      assert.equal(res.headers.get('x-correlation-id'), sent);
      spoofs.push({ id, audio: new Uint8Array(await res.arrayBuffer()) });
    }

    const v = await detect(victimAudio, 'victim.wav');
    assert.equal(v.payload, payloadOf(victimId));
    assert.notEqual(v.payload, unkeyed(victimId), 'the payload is keyed: knowing an id does not give its payload');
    for (const spoof of spoofs) {
      await waitFor(async () => ((await detect(spoof.audio, 'spoof.wav', admin)).origin ?? []).length > 0, 10_000, 'the consent record');
      const d = await detect(spoof.audio, 'spoof.wav', admin);
      assert.equal(d.detected, true);
      assert.notEqual(d.payload, v.payload, 'the attacker\'s audio does not carry the victim\'s payload');
      assert.deepEqual(d.origin?.map((o) => [o.request_id, o.key_id]), [[spoof.id, attacker.keyId]], 'the origin is the attacker\'s request only');
    }
    await waitFor(async () => ((await detect(victimAudio, 'victim.wav', admin)).origin ?? []).length > 0, 10_000, 'the consent record');
    const victimOrigin = (await detect(victimAudio, 'victim.wav', admin)).origin ?? [];
    assert.deepEqual(victimOrigin.map((o) => o.request_id), [victimId]);

    // The consent audit holds one record per request id: no id names two tenants.
    const audit = (await (await p.get('/api/compliance/consent-audit?limit=5000', admin)).json()) as { records: { request_id: string; key_id: string | null }[] };
    const ids = audit.records.map((r) => r.request_id);
    assert.equal(new Set(ids).size, ids.length, `distinct request ids in ${JSON.stringify(audit.records)}`);
    assert.ok(!ids.includes('victim-chosen-id'));
    for (const id of [victimId, ...spoofs.map((s2) => s2.id)]) assert.equal(ids.filter((i) => i === id).length, 1, id);
  });

  test('speech the platform did not make is not detected', async () => {
    const file = path.join(work, 'own.wav');
    await promisify(execFile)('flite', ['-voice', 'slt', '-t', TEXT, '-o', file]);
    const d = await detect(await readFile(file), 'own.wav');
    assert.deepEqual([d.detected, d.payload, d.key_id], [false, null, null]);
    assert.ok(d.confidence < 0.5);
  });
});
