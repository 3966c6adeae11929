/**
 * Voice cloning from the public page, against a really started platform: the web job form in
 * clone mode through the API (a studio user's and an API key's own stored clip; another owner's
 * clip, a browser-check caller and a missing consent refused with their stable codes, nothing
 * stored lost), then in a real browser (headless Chromium, a fake microphone): a reference
 * uploaded, checked, transcribed, consented to and cloned, the result decoded; a recording
 * checked the same way; the page with the panel open passes axe, overflow and console checks at
 * desktop and phone width.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { solveChallenge } from '@tts/facade/testing';
import { assertSpeech, inspectClip } from './support/audio.js';
import { checkPage, DESKTOP, launchBrowser, openPage, PHONE } from './support/browser.js';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

const run = promisify(execFile);

interface WebJobJson { status: string; result: { voice: string; clone: { voice: string } | null } | null; error: { code: string } | null }

describe('cloning from the public page', () => {
  let p: TestPlatform;
  let browser: Browser;
  let work: string;
  let clip: Buffer;
  let cookie: string;
  const ua = { 'user-agent': 'web-clone-test/1.0' };

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'tts-web-clone-'));
    // The reference: flite's rms (a male voice), about six seconds of other words than the requests'.
    await run('flite', ['-voice', 'rms', '-t', 'The weather today is sunny with a light breeze. Children played quietly in the garden by the old house.', '-o', path.join(work, 'rms.wav')]);
    clip = await readFile(path.join(work, 'rms.wav'));
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt', challengeDifficulty: 6 } });
    await waitFor(async () => ((await (await fetch(`${p.url}/v1/audio/voices`)).json()) as { voices: unknown[] }).voices.length > 0, 30_000, 'voices');
    const issued = (await (await fetch(`${p.url}/api/auth/challenge`, { headers: ua })).json()) as { challenge: string; difficulty_bits: number };
    const pass = await fetch(`${p.url}/api/auth/challenge`, {
      method: 'POST',
      headers: { ...ua, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ challenge: issued.challenge, solution: solveChallenge(issued.challenge, issued.difficulty_bits) }).toString(),
    });
    cookie = (pass.headers.get('set-cookie') ?? '').split(';')[0]!;
    assert.ok(cookie.includes('='), 'the browser-check pass');
    browser = await launchBrowser(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']);
  });
  after(async () => {
    await browser?.close();
    await p?.stop();
    await rm(work, { recursive: true, force: true });
  });

  const guest = async (): Promise<string> => {
    const res = await fetch(`${p.url}/api/studio/auth/guest`, { method: 'POST' });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { token: string }).token;
  };

  const store = async (headers: Record<string, string>): Promise<string> => {
    const form = new FormData();
    form.append('ref_audio', new Blob([clip]), 'me.wav');
    const res = await fetch(`${p.url}/api/reference/validate`, { method: 'POST', headers, body: form });
    const body = (await res.json()) as { reference_id: string | null; passed: boolean };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.ok(body.reference_id, 'the clip is stored');
    return body.reference_id;
  };

  const submit = async (fields: Record<string, string>, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ text: 'Please call Stella and ask her to bring these things.', ...fields })) form.append(k, v);
    const res = await fetch(`${p.url}/api/web/jobs/tts`, { method: 'POST', headers, body: form });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  test('a studio user and an API key clone their own stored clip in a web job', async () => {
    const identities: [string, Record<string, string>][] = [
      ['studio user', { 'x-studio-token': await guest() }],
      ['API key', { 'x-api-key': p.apiKey }],
    ];
    for (const [who, headers] of identities) {
      const referenceId = await store(headers);
      const { status, body } = await submit({ mode: 'clone', reference_id: referenceId, consent_confirmed: 'true', format: 'wav' }, headers);
      assert.equal(status, 200, `${who}: ${JSON.stringify(body)}`);
      const jobId = String(body['job_id']);
      const token = encodeURIComponent(String(body['job_token']));
      // The reference travels with the job spec to the node.
      const queued = await p.facade.deps.jobs.get(jobId);
      assert.equal(queued?.spec?.mode, 'clone', who);
      assert.equal(queued?.spec?.speech?.clone?.referenceId, referenceId, `${who}: the job spec carries the reference`);
      let job: WebJobJson | undefined;
      await waitFor(async () => {
        job = (await (await fetch(`${p.url}/api/web/jobs/${jobId}?token=${token}`)).json()) as WebJobJson;
        return job.status === 'completed' || job.status === 'failed';
      }, 120_000, `${who}: the clone job`);
      assert.equal(job?.status, 'completed', JSON.stringify(job));
      assert.equal(job?.result?.clone?.voice, 'flite:rms', `${who}: the reference speaker's voice is found`);
      const audio = await fetch(`${p.url}/api/web/jobs/${jobId}/audio?token=${token}`);
      assert.equal(audio.status, 200);
      assertSpeech(await inspectClip(new Uint8Array(await audio.arrayBuffer())), 1, 30);
    }
  });

  test('another owner\'s clip, a browser-check caller and a missing consent are refused; nothing stored is lost', async () => {
    const mine = await store({ 'x-api-key': p.apiKey });
    const other = await p.createKey({ name: 'other' });
    const studio = { 'x-studio-token': await guest() };
    const cases: [string, Record<string, string>, Record<string, string>, number, string][] = [
      ['another key', { mode: 'clone', reference_id: mine, consent_confirmed: 'true' }, { 'x-api-key': other.apiKey }, 404, 'REFERENCE_NOT_FOUND'],
      ['a studio user', { mode: 'clone', reference_id: mine, consent_confirmed: 'true' }, studio, 404, 'REFERENCE_NOT_FOUND'],
      ['the browser check only', { mode: 'clone', reference_id: mine, consent_confirmed: 'true' }, { ...ua, cookie }, 404, 'REFERENCE_NOT_FOUND'],
      ['the browser check only, auto mode', { reference_id: mine, consent_confirmed: 'true' }, { ...ua, cookie }, 404, 'REFERENCE_NOT_FOUND'],
      ['no consent', { mode: 'clone', reference_id: mine }, { 'x-api-key': p.apiKey }, 422, 'CONSENT_REQUIRED'],
      ['consent refused', { mode: 'clone', reference_id: mine, consent_confirmed: 'false' }, { 'x-api-key': p.apiKey }, 422, 'CONSENT_REQUIRED'],
      ['clone without a reference', { mode: 'clone', consent_confirmed: 'true' }, { 'x-api-key': p.apiKey }, 422, 'VALIDATION_FAILED'],
    ];
    for (const [what, fields, headers, status, code] of cases) {
      const res = await submit(fields, headers);
      assert.equal(res.status, status, `${what}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body['code'], code, what);
    }
    // The owner's clip is still there and still clones.
    const listed = (await (await p.get('/api/reference/clips')).json()) as { data: { reference_id: string }[] };
    assert.ok(listed.data.some((c) => c.reference_id === mine), JSON.stringify(listed));
    assert.equal((await p.get(`/api/reference/clips/${mine}`)).status, 200);
    const again = await submit({ mode: 'clone', reference_id: mine, consent_confirmed: 'true' }, { 'x-api-key': p.apiKey });
    assert.equal(again.status, 200, JSON.stringify(again.body));
  });

  /** The public page with a studio session (its token where the Studio pages keep it) and the voices loaded. */
  async function openAsStudio(viewport: { width: number; height: number }): Promise<{ page: Page; errors: string[] }> {
    const token = await guest();
    const recorded = await openPage(browser, `${p.url}/`, viewport);
    // Runs in the page (DOM globals there; this file is compiled without the DOM library).
    await recorded.page.evaluate((t) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('tts.studio-token', t), token);
    await recorded.page.reload();
    await recorded.page.waitForSelector('#voice option[value="flite:slt"]', { state: 'attached' });
    return recorded;
  }

  async function uploadReference(page: Page): Promise<void> {
    await page.getByText('Speak in a voice of your own').click();
    await page.getByLabel('Upload a clip').setInputFiles({ name: 'me.wav', mimeType: 'audio/wav', buffer: clip });
    await page.waitForSelector('.reference-check', { timeout: 60_000 });
  }

  test('a studio user uploads a reference, sees the check and the transcript, consents and hears the clone', async () => {
    const recorded = await openAsStudio(DESKTOP);
    const { page } = recorded;
    await page.getByLabel('Text').fill('Six spoons of fresh snow peas for my brother Bob.');
    await uploadReference(page);
    assert.equal(await page.locator('.reference-check').getAttribute('data-passed'), 'true');
    assert.match((await page.locator('.reference-check').textContent()) ?? '', /meets the reference guideline/);
    const transcript = ((await page.locator('.transcript').textContent()) ?? '').toLowerCase();
    assert.match(transcript, /weather|garden|children/, `the transcript: ${transcript}`);
    const speak = page.getByRole('button', { name: 'Speak in this voice' });
    assert.equal(await speak.isDisabled(), true, 'consent first');
    await page.getByLabel(/I have the consent/).check();
    await speak.click();
    await page.waitForSelector('.result audio', { timeout: 120_000 });
    const duration = await page.locator('.result audio').evaluate(
      (el: { duration: number; readyState: number; addEventListener(t: string, f: () => void, o: { once: boolean }): void }) =>
        new Promise<number>((resolve) => (el.readyState >= 1 ? resolve(el.duration) : el.addEventListener('loadedmetadata', () => resolve(el.duration), { once: true }))),
    );
    assert.ok(duration > 1, `the clone plays ${duration} s`);
    const src = await page.locator('.result audio').getAttribute('src');
    const audio = await fetch(`${p.url}${src}`);
    assert.equal(audio.status, 200);
    assertSpeech(await inspectClip(new Uint8Array(await audio.arrayBuffer())), 1, 30);
    await checkPage(recorded, 'public-clone-desktop');
    await page.close();
  });

  test('a clip that fails the check cannot be cloned: the page says so and offers no consent', async () => {
    await run('flite', ['-voice', 'rms', '-t', 'Hello there.', '-o', path.join(work, 'short.wav')]);
    const short = await readFile(path.join(work, 'short.wav'));
    const recorded = await openAsStudio(DESKTOP);
    const { page } = recorded;
    await page.getByLabel('Text').fill('Six spoons of fresh snow peas.');
    await page.getByText('Speak in a voice of your own').click();
    await page.getByLabel('Upload a clip').setInputFiles({ name: 'short.wav', mimeType: 'audio/wav', buffer: short });
    await page.waitForSelector('.reference-check', { timeout: 60_000 });
    assert.equal(await page.locator('.reference-check').getAttribute('data-passed'), 'false');
    assert.match((await page.locator('.not-clonable').textContent()) ?? '', /cannot be used to clone/);
    assert.equal(await page.locator('#consent').count(), 0, 'no consent for a clip that cannot be cloned');
    assert.equal(await page.getByRole('button', { name: 'Speak in this voice' }).count(), 0);
    await checkPage(recorded, 'public-clone-failed-check');
    await page.close();
  });

  test('the panel at phone width, and without an identity it says where to get one', async () => {
    const anonymous = await openPage(browser, `${p.url}/`, PHONE);
    await anonymous.page.waitForSelector('#voice option[value="flite:slt"]', { state: 'attached' });
    await anonymous.page.getByText('Speak in a voice of your own').click();
    assert.equal(await anonymous.page.getByRole('link', { name: /Sign in to the studio/ }).getAttribute('href'), '/studio');
    assert.equal(await anonymous.page.getByLabel('Upload a clip').count(), 0, 'no upload without an identity');
    await anonymous.page.close();

    const recorded = await openAsStudio(PHONE);
    await uploadReference(recorded.page);
    await recorded.page.waitForSelector('#consent');
    await checkPage(recorded, 'public-clone-phone');
    await recorded.page.close();
  });

  test('an API key given on the page records a clip: record, stop, and the check is shown', async () => {
    const recorded = await openPage(browser, `${p.url}/`, DESKTOP);
    const { page, errors } = recorded;
    await page.waitForSelector('#voice option[value="flite:slt"]', { state: 'attached' });
    await page.getByText('Speak in a voice of your own').click();
    await page.getByLabel('API key').fill(p.apiKey);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByRole('button', { name: 'Record' }).click();
    await page.waitForSelector('.recording-state');
    await page.waitForFunction(() => /Recording: [4-9] s/.test((globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('.recording-state')?.textContent ?? ''), undefined, { timeout: 30_000 });
    await page.getByRole('button', { name: /Stop recording/ }).click();
    await page.waitForSelector('.reference-check', { timeout: 60_000 });
    const text = (await page.locator('.reference-check').textContent()) ?? '';
    assert.match(text, /reference guideline/, text);
    assert.equal(await page.locator('.reference-panel .error').count(), 0, 'a result, not an error');
    const passed = await page.locator('.reference-check').getAttribute('data-passed');
    // The fake device plays a beep: if the clip fails, each failed check is named.
    if (passed === 'false') assert.ok((await page.locator('.failed-checks li, .warnings li').count()) > 0, 'the failed checks or warnings are listed');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
