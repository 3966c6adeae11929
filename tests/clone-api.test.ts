/**
 * Voice cloning through POST /api/tts against a real platform (node with Vosk and Silero VAD):
 * a stored reference or an uploaded one, consent required and audited, the voice chosen and the
 * similarities measured and reported, the audio adapted (pitch moved towards the reference's).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

const run = promisify(execFile);

describe('voice cloning', () => {
  let p: TestPlatform;
  let work: string;
  let rmsClip: Buffer;

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'tts-clone-'));
    // The reference: flite's rms (a male voice) speaking other words than the request's.
    await run('flite', ['-voice', 'rms', '-t', 'The weather today is sunny with a light breeze. Children played quietly in the garden.', '-o', path.join(work, 'rms.wav')]);
    rmsClip = await readFile(path.join(work, 'rms.wav'));
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt', meteringFlushMs: 20 } });
  });
  after(async () => {
    await p.stop();
    await rm(work, { recursive: true, force: true });
  });

  const form = (fields: Record<string, string>, clip?: Buffer): FormData => {
    const f = new FormData();
    for (const [k, v] of Object.entries(fields)) f.append(k, v);
    if (clip) f.append('ref_audio', new Blob([clip]), 'me.wav');
    return f;
  };

  test('an uploaded reference: the nearest voice, adapted, with similarities measured', async () => {
    const res = await fetch(`${p.url}/api/tts`, { method: 'POST', headers: { 'x-api-key': p.apiKey }, body: form({ text: 'Please call Stella and ask her to bring these things.', mode: 'clone', consent_confirmed: 'true' }, rmsClip) });
    const audio = new Uint8Array(await res.arrayBuffer());
    assert.equal(res.status, 200, Buffer.from(audio).toString());
    assert.equal(res.headers.get('x-clone-voice'), 'flite:rms', 'the reference speaker is one of the voices: it is found');
    const before = Number(res.headers.get('x-clone-similarity-before'));
    const afterSim = Number(res.headers.get('x-clone-similarity-after'));
    assert.ok(before > 0.5 && before <= 1, `before ${before}`);
    assert.ok(afterSim > 0 && afterSim <= 1, `after ${afterSim}`);
    assert.ok(Math.abs(Number(res.headers.get('x-clone-pitch-semitones'))) <= 7);
    assert.ok(audio.length > 44 + 16000, 'audio came back');
  });

  test('a stored reference by id; another key cannot use it; consent is required and audited', async () => {
    const v = await fetch(`${p.url}/api/reference/validate`, { method: 'POST', headers: { 'x-api-key': p.apiKey }, body: form({}, rmsClip) });
    const { reference_id } = (await v.json()) as { reference_id: string };
    const byId = await p.post('/api/tts', { text: 'Six spoons of fresh snow peas.', mode: 'clone', reference_id, consent_confirmed: true });
    assert.equal(byId.status, 200, await byId.clone().text());
    assert.equal(byId.headers.get('x-clone-voice'), 'flite:rms');
    await byId.arrayBuffer();

    const auto = await p.post('/api/tts', { text: 'Auto mode with a reference clones.', reference_id, consent_confirmed: true });
    assert.ok(auto.headers.get('x-clone-voice'), 'auto clones when a reference is given');
    await auto.arrayBuffer();

    const other = await p.createKey({ name: 'other' });
    const foreign = await p.post('/api/tts', { text: 'Not mine.', mode: 'clone', reference_id, consent_confirmed: true }, { 'x-api-key': other.apiKey });
    assert.equal(foreign.status, 404, await foreign.clone().text());
    assert.equal(((await foreign.json()) as { code: string }).code, 'REFERENCE_NOT_FOUND');

    const refused = await p.post('/api/tts', { text: 'No consent given.', mode: 'clone', reference_id });
    assert.equal(refused.status, 422);
    const body = (await refused.json()) as { code: string; request_id: string };
    assert.equal(body.code, 'CONSENT_REQUIRED');
    await waitFor(async () => {
      const rows = await p.facade.deps.access.database.query<{ outcome: string; mode: string; error_code: string }>('SELECT outcome, mode, error_code FROM consent_audit WHERE request_id = $1::text', [body.request_id]);
      return rows.length === 1 && rows[0]!.outcome === 'refused' && rows[0]!.mode === 'clone' && rows[0]!.error_code === 'CONSENT_REQUIRED';
    }, 10_000, 'the refusal in the consent audit');

    const noRef = await p.post('/api/tts', { text: 'Clone what?', mode: 'clone', consent_confirmed: true });
    assert.equal(noRef.status, 422);
  });

  test('a clone job: the reference travels with the job, the report comes back with the result', async () => {
    const v = await fetch(`${p.url}/api/reference/validate`, { method: 'POST', headers: { 'x-api-key': p.apiKey }, body: form({}, rmsClip) });
    const { reference_id } = (await v.json()) as { reference_id: string };
    const noConsent = await p.post('/api/jobs/tts', { text: 'A clone job.', mode: 'clone', reference_id });
    assert.equal(noConsent.status, 422);
    assert.equal(((await noConsent.json()) as { code: string }).code, 'CONSENT_REQUIRED');
    const submitted = await p.post('/api/jobs/tts', { text: 'A clone job, spoken later.', mode: 'clone', reference_id, consent_confirmed: true });
    assert.equal(submitted.status, 202, await submitted.clone().text());
    const { job_id } = (await submitted.json()) as { job_id: string };
    let job: { status: string; result: { voice: string; clone: { voice: string; similarity_before: number; similarity_after: number; candidates: number } | null } | null } | undefined;
    await waitFor(async () => {
      job = (await (await p.get(`/api/jobs/${job_id}`)).json()) as typeof job;
      return job?.status === 'completed' || job?.status === 'failed';
    }, 120_000, 'the clone job');
    assert.equal(job?.status, 'completed', JSON.stringify(job));
    assert.equal(job?.result?.clone?.voice, 'flite:rms');
    assert.equal(job?.result?.voice, 'flite:rms');
    assert.ok((job?.result?.clone?.similarity_after ?? 0) > 0);
    assert.equal(job?.result?.clone?.candidates, 4);
    const audio = await p.get(`/api/jobs/${job_id}/audio`);
    assert.equal(audio.status, 200);
    assert.ok((await audio.arrayBuffer()).byteLength > 44);
  });
});
