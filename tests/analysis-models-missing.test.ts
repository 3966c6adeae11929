/**
 * A node whose model search path lacks the analysis models (a DATA_DIR other than the one the
 * set-up installed into): health and capabilities say which analysis features are unavailable,
 * naming the missing models and the command that installs them; validating a clearly spoken clip
 * is refused with 503 ANALYSIS_UNAVAILABLE instead of made-up measurements (a speech level of
 * -inf dBFS), nothing is stored; transcription and cloning are refused at once with the same code.
 * With the models installed, a stored clip that failed the reference check cannot be cloned
 * (422 REFERENCE_CHECK_FAILED), on every path that clones a stored clip. In a real browser
 * (headless Chromium), the public page's cloning section says why it is unavailable and how the
 * models are installed, and offers no upload.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { checkPage, DESKTOP, launchBrowser, openPage } from './support/browser.js';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

const run = promisify(execFile);

interface FeatureJson { available: boolean; reason: string | null; missing_models: string[] }
type Features = Record<'vad' | 'transcription' | 'speaker_embedding' | 'cloning', FeatureJson>;

let work: string;
let spoken: Buffer;
let short: Buffer;

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'tts-analysis-missing-'));
  await run('flite', ['-voice', 'rms', '-t', 'The weather today is sunny with a light breeze. Children played quietly in the garden by the old house.', '-o', path.join(work, 'spoken.wav')]);
  await run('flite', ['-voice', 'rms', '-t', 'Hello there.', '-o', path.join(work, 'short.wav')]);
  spoken = await readFile(path.join(work, 'spoken.wav'));
  short = await readFile(path.join(work, 'short.wav'));
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

async function validate(p: TestPlatform, clip: Buffer, query = ''): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  form.append('ref_audio', new Blob([clip]), 'me.wav');
  const res = await fetch(`${p.url}/api/reference/validate${query}`, { method: 'POST', headers: { 'x-api-key': p.apiKey }, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The message of an error body (a 422's is in its first detail). */
const messageOf = (body: Record<string, unknown>): string => String(body['message'] ?? (body['detail'] as { msg?: string }[] | undefined)?.[0]?.msg);

async function submitClone(p: TestPlatform, referenceId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ text: 'Please call Stella.', mode: 'clone', reference_id: referenceId, consent_confirmed: 'true' })) form.append(k, v);
  const res = await fetch(`${p.url}/api/web/jobs/tts`, { method: 'POST', headers: { 'x-api-key': p.apiKey }, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('a node without the analysis models', () => {
  let p: TestPlatform;
  let emptyModels: string;

  before(async () => {
    emptyModels = await mkdtemp(path.join(tmpdir(), 'tts-no-models-'));
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt', modelDirs: [emptyModels] }, facade: { defaultVoice: 'flite:slt' } });
    await waitFor(async () => ((await (await fetch(`${p.url}/v1/audio/voices`)).json()) as { voices: unknown[] }).voices.length > 0, 30_000, 'voices');
  });
  after(async () => {
    await p?.stop();
    await rm(emptyModels, { recursive: true, force: true });
  });

  test('health and capabilities report each analysis feature unavailable, with the missing models and the install command', async () => {
    const health = (await (await fetch(`${p.url}/api/health`)).json()) as { analysis: Features };
    const caps = (await (await fetch(`${p.url}/api/capabilities`)).json()) as { analysis: Features; features: Record<string, boolean> };
    for (const [where, analysis] of [['health', health.analysis], ['capabilities', caps.analysis]] as const) {
      assert.ok(analysis, `${where} has analysis`);
      for (const name of ['vad', 'transcription', 'speaker_embedding', 'cloning'] as const) {
        const f = analysis[name];
        assert.equal(f.available, false, `${where}: ${name}`);
        assert.match(f.reason ?? '', /npm run models -- install --all/, `${where}: ${name} names the command`);
        assert.ok(!(f.reason ?? '').includes(emptyModels), `${where}: ${name} keeps the node's folders private`);
      }
      assert.deepEqual(analysis.vad.missing_models, ['silero-vad']);
      assert.deepEqual(analysis.transcription.missing_models, ['libvosk', 'vosk-model-small-en-us-android']);
      assert.ok(analysis.speaker_embedding.missing_models.includes('vosk-model-spk-0.4'));
    }
    assert.equal(caps.features['voice_cloning'], false);
  });

  test('validating a spoken clip is refused with ANALYSIS_UNAVAILABLE, not measured as silence; nothing is stored', async () => {
    for (const query of ['', '?transcribe=true']) {
      const { status, body } = await validate(p, spoken, query);
      assert.equal(status, 503, JSON.stringify(body));
      assert.equal(body['code'], 'ANALYSIS_UNAVAILABLE');
      assert.match(messageOf(body), /silero-vad/, 'the message names the missing model');
      assert.doesNotMatch(JSON.stringify(body), /-inf|dBFS/);
    }
    const listed = (await (await p.get('/api/reference/clips')).json()) as { data: unknown[] };
    assert.deepEqual(listed.data, [], 'no clip is kept from a refused check');
    // Bad input is still reported as such.
    assert.equal((await validate(p, Buffer.from('not audio at all, just some text bytes here'))).body['code'], 'AUDIO_CONTAINER_UNSUPPORTED');
  });

  test('transcription and cloning are refused at once with ANALYSIS_UNAVAILABLE naming the models', async () => {
    const form = new FormData();
    form.append('ref_audio', new Blob([spoken]), 'me.wav');
    const transcribed = await fetch(`${p.url}/api/reference/transcribe`, { method: 'POST', headers: { 'x-api-key': p.apiKey }, body: form });
    const tBody = (await transcribed.json()) as Record<string, unknown>;
    assert.equal(transcribed.status, 503, JSON.stringify(tBody));
    assert.equal(tBody['code'], 'ANALYSIS_UNAVAILABLE');
    assert.match(messageOf(tBody), /vosk-model-small-en-us-android/);

    const cloned = await submitClone(p, 'ref_anything');
    assert.equal(cloned.status, 503, JSON.stringify(cloned.body));
    assert.equal(cloned.body['code'], 'ANALYSIS_UNAVAILABLE');
    assert.match(messageOf(cloned.body), /npm run models -- install --all/);
  });

  test('the page\'s cloning section says why it is unavailable and how to install the models, with no upload', async () => {
    const browser = await launchBrowser();
    try {
      const { token } = (await (await fetch(`${p.url}/api/studio/auth/guest`, { method: 'POST' })).json()) as { token: string };
      const recorded = await openPage(browser, `${p.url}/`, DESKTOP);
      const { page } = recorded;
      await page.evaluate((t) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('tts.studio-token', t), token);
      await page.reload();
      await page.waitForSelector('#voice option[value="flite:slt"]', { state: 'attached' });
      await page.getByText('Speak in a voice of your own').click();
      await page.waitForSelector('#clone-unavailable');
      const said = (await page.locator('#clone-unavailable').textContent()) ?? '';
      assert.match(said, /Cloning is not available on this server/);
      assert.match(said, /silero-vad/);
      assert.match(said, /npm run models -- install --all/);
      assert.equal(await page.getByLabel('Upload a clip').count(), 0, 'no upload that cannot work');
      assert.equal(await page.getByRole('button', { name: 'Record' }).count(), 0);
      // Speaking with the voices still works.
      await page.getByLabel('Text').fill('Hello.');
      assert.equal(await page.getByRole('button', { name: 'Speak', exact: true }).isDisabled(), false);
      await checkPage(recorded, 'public-clone-unavailable');
      await page.close();
    } finally {
      await browser.close();
    }
  });
});

describe('a node with the analysis models', () => {
  let p: TestPlatform;

  before(async () => {
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt' } });
    await waitFor(async () => ((await (await fetch(`${p.url}/v1/audio/voices`)).json()) as { voices: unknown[] }).voices.length > 0, 30_000, 'voices');
  });
  after(async () => {
    await p?.stop();
  });

  test('health reports the features available', async () => {
    const health = (await (await fetch(`${p.url}/api/health`)).json()) as { analysis: Features };
    for (const name of ['vad', 'transcription', 'speaker_embedding', 'cloning'] as const) assert.deepEqual(health.analysis[name], { available: true, reason: null, missing_models: [] }, name);
  });

  test('a stored clip that failed the reference check cannot be cloned', async () => {
    const checked = await validate(p, short);
    assert.equal(checked.status, 200, JSON.stringify(checked.body));
    assert.equal(checked.body['passed'], false);
    assert.deepEqual(checked.body['failed_checks'], ['TOO_SHORT']);
    const referenceId = String(checked.body['reference_id']);
    const refused = await submitClone(p, referenceId);
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body['code'], 'REFERENCE_CHECK_FAILED');
    assert.match(messageOf(refused.body), /TOO_SHORT/);
    // The synchronous path and the job API refuse it too.
    const sync = await p.post('/api/tts', { text: 'Please call Stella.', mode: 'clone', reference_id: referenceId, consent_confirmed: true });
    assert.equal(sync.status, 422);
    assert.equal(((await sync.json()) as { code: string }).code, 'REFERENCE_CHECK_FAILED');
    const job = await p.post('/api/jobs/tts', { text: 'Please call Stella.', mode: 'clone', reference_id: referenceId, consent_confirmed: true });
    assert.equal(job.status, 422);
    assert.equal(((await job.json()) as { code: string }).code, 'REFERENCE_CHECK_FAILED');
  });
});
