/**
 * The provenance watermark end to end against a real platform: audio of POST /api/tts, of a
 * streamed OpenAI-compatible MP3 and of a job carries the mark naming its request; detection
 * finds it (and an administrator the request behind it); audio the platform did not make is not
 * detected.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { payloadHex, watermarkPayloadOf } from '@tts/common';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

interface Detection { detected: boolean; confidence: number; payload: string | null; key_id: number | null; origin: { request_id: string; endpoint: string }[] | null }

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

  const TEXT = 'Please call Stella and ask her to bring these things with her from the store. Six spoons of fresh snow peas.';

  test('synchronous WAV: detected, the payload names the request, an administrator sees it', async () => {
    const res = await p.post('/api/tts', { text: TEXT, voice: 'flite:slt', consent_confirmed: true });
    assert.equal(res.status, 200);
    const requestId = res.headers.get('x-request-id')!;
    const audio = new Uint8Array(await res.arrayBuffer());
    const d = await detect(audio, 'speech.wav');
    assert.equal(d.detected, true, JSON.stringify(d));
    assert.ok(d.confidence > 0.9);
    assert.equal(d.payload, payloadHex(watermarkPayloadOf(requestId)));
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
    assert.equal(mp3.payload, payloadHex(watermarkPayloadOf(speech.headers.get('x-request-id')!)));

    const submitted = await p.post('/api/jobs/tts', { text: TEXT, voice: 'flite:slt', format: 'opus' });
    assert.equal(submitted.status, 202);
    const job = (await submitted.json()) as { job_id: string };
    await waitFor(async () => ((await (await p.get(`/api/jobs/${job.job_id}`)).json()) as { status: string }).status === 'completed', 20_000, 'the job');
    const audio = await p.get(`/api/jobs/${job.job_id}/audio`);
    const d = await detect(new Uint8Array(await audio.arrayBuffer()), 'job.ogg');
    assert.equal(d.detected, true, JSON.stringify(d));
    assert.equal(d.payload, payloadHex(watermarkPayloadOf(submitted.headers.get('x-request-id')!)), 'a job names its submitting request');
  });

  test('speech the platform did not make is not detected', async () => {
    const file = path.join(work, 'own.wav');
    await promisify(execFile)('flite', ['-voice', 'slt', '-t', TEXT, '-o', file]);
    const d = await detect(await readFile(file), 'own.wav');
    assert.deepEqual([d.detected, d.payload, d.key_id], [false, null, null]);
    assert.ok(d.confidence < 0.5);
  });
});
