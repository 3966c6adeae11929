/**
 * The web application in a real browser (Debian's Chromium driven by playwright-core, headless,
 * nothing downloaded) against a really started platform: the page and its hashed assets as the
 * facade serves them, a visitor who passes the browser check (proof of work in a Web Worker),
 * synthesizes and gets playable audio, axe-core with no serious or critical violation, no console
 * error, and no horizontal overflow at desktop and phone width (screenshots kept as artifacts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { inspectClip, assertSpeech } from './support/audio.js';
import { checkPage, launchBrowser, openPage as open, PHONE, DESKTOP } from './support/browser.js';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

/** The members of an audio element the test reads. */
interface AudioElement { readyState: number; duration: number; addEventListener(type: string, fn: () => void, options: { once: boolean }): void }

describe('web application', () => {
  let p: TestPlatform;
  let browser: Browser;
  before(async () => {
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt' } });
    // The node registers before its voices are loaded: wait until the platform serves them.
    await waitFor(async () => ((await (await fetch(`${p.url}/v1/audio/voices`)).json()) as { voices: unknown[] }).voices.length > 0, 30_000, 'voices');
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await p?.stop();
  });

  /** The public page with its voices loaded. */
  async function openPage(viewport: { width: number; height: number }): Promise<{ page: Page; errors: string[] }> {
    const recorded = await open(browser, `${p.url}/`, viewport);
    await recorded.page.waitForSelector('#voice option[value="flite:slt"]', { state: 'attached' });
    return recorded;
  }

  test('the page and its hashed assets: no inline script or style, immutable assets, the page revalidated', async () => {
    const res = await fetch(`${p.url}/`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    // A strict policy: every page of the browser tests runs under it, and a violation is a console error there.
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /style-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const html = await res.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(html, /<style|\sstyle=/, 'no inline style');
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), `assets ${assets.join(', ')}`);
    for (const a of assets) {
      const r = await fetch(`${p.url}${a}`);
      assert.equal(r.status, 200, a);
      assert.match(r.headers.get('cache-control') ?? '', /max-age=31536000.*immutable/, a);
      await r.arrayBuffer();
    }
    assert.equal((await fetch(`${p.url}/assets/missing-0000.js`)).status, 404);
    // Scripts and styles go out pre-compressed to a client that accepts it, the same bytes once decoded.
    for (const a of assets.filter((x) => /\.(js|css)$/.test(x))) {
      const plain = await fetch(`${p.url}${a}`, { headers: { 'accept-encoding': 'identity' } });
      assert.equal(plain.headers.get('content-encoding'), null, a);
      const plainText = await plain.text();
      if (plainText.length < 1024) continue;
      for (const encoding of ['br', 'gzip']) {
        const r = await fetch(`${p.url}${a}`, { headers: { 'accept-encoding': encoding } });
        assert.equal(r.headers.get('content-encoding'), encoding, `${a} ${encoding}`);
        assert.match(r.headers.get('vary') ?? '', /accept-encoding/i);
        assert.match(r.headers.get('cache-control') ?? '', /max-age=31536000.*immutable/);
        assert.equal(r.headers.get('content-type'), plain.headers.get('content-type'));
        assert.equal(await r.text(), plainText, `${a} decoded from ${encoding}`);
      }
    }
  });

  test('a visitor passes the browser check, synthesizes and gets playable audio', async () => {
    const { page, errors } = await openPage(DESKTOP);
    const speak = page.getByRole('button', { name: 'Speak' });
    assert.equal(await speak.isDisabled(), true, 'nothing to speak yet');
    await page.getByLabel('Text').fill('Hello from the browser. This is the public page.');
    assert.match((await page.locator('#counter').textContent()) ?? '', /^48 \/ \d+ characters$/);
    await page.getByLabel('Voice').selectOption('flite:slt');
    // A short preview of the voice, played in the page.
    await page.getByRole('button', { name: 'Preview voice' }).click();
    await page.waitForSelector('audio.preview-audio[src]', { timeout: 60_000 });
    const previewSec = await page.locator('audio.preview-audio').evaluate(async (el: AudioElement) => {
      if (el.readyState < 1) await new Promise<void>((r) => el.addEventListener('loadedmetadata', () => r(), { once: true }));
      return el.duration;
    });
    assert.ok(previewSec > 0.5 && previewSec < 5, `preview of ${previewSec} s`);
    await page.getByLabel('Format').selectOption('mp3');
    await page.locator('#speed').fill('1.5');
    assert.match((await page.locator('output[for="speed"]').textContent()) ?? '', /^1\.50×$/);
    await speak.click();
    await page.waitForSelector('.result audio[src]', { timeout: 60_000 });
    const src = await page.locator('.result audio').getAttribute('src');
    assert.ok(src?.startsWith('/api/web/jobs/'), `audio src ${src}`);
    // The browser plays it: its metadata loads and it has a duration.
    const duration = await page.locator('.result audio').evaluate(async (el: AudioElement) => {
      if (el.readyState < 1) await new Promise<void>((r) => el.addEventListener('loadedmetadata', () => r(), { once: true }));
      return el.duration;
    });
    assert.ok(duration > 1 && duration < 10, `duration ${duration}`);
    // The waveform is drawn from the audio the browser decoded.
    await page.waitForSelector('canvas.waveform[data-state="drawn"]', { timeout: 20_000 });
    assert.ok(Number(await page.locator('canvas.waveform').getAttribute('data-columns')) > 50);
    const download = page.getByRole('link', { name: 'Download' });
    assert.equal(await download.getAttribute('href'), src);
    assert.match((await download.getAttribute('download')) ?? '', /^speech-.+\.mp3$/);
    // Captions of the job from its word timings, next to the audio.
    for (const [name, type, head] of [['Captions (VTT)', /^text\/vtt/, /^WEBVTT\n\n\d{2}:\d{2}:\d{2}\.\d{3} --> /], ['Captions (SRT)', /^application\/x-subrip/, /^1\n\d{2}:\d{2}:\d{2},\d{3} --> /]] as const) {
      const captions = await fetch(`${p.url}${(await page.getByRole('link', { name }).getAttribute('href')) ?? ''}`);
      assert.equal(captions.status, 200, name);
      assert.match(captions.headers.get('content-type') ?? '', type);
      assert.match(await captions.text(), head);
    }
    // The same audio, decoded: MP3, at the speed asked for.
    const audio = await fetch(`${p.url}${src}`);
    assert.equal(audio.status, 200);
    assert.equal(audio.headers.get('content-type'), 'audio/mpeg');
    const clip = await inspectClip(new Uint8Array(await audio.arrayBuffer()));
    assert.equal(clip.codec, 'mp3');
    assertSpeech(clip, 1, 10);
    const jobId = /\/api\/web\/jobs\/([^/]+)\/audio/.exec(src!)?.[1] ?? '';
    assert.equal((await p.facade.deps.jobs.get(jobId))?.spec?.speech?.speed, 1.5);
    assert.match((await page.locator('.limit').textContent()) ?? '', /^\d+ of 30 requests left this minute$/);
    await checkPage({ page, errors }, 'public-desktop');
    await page.close();
  });

  test('the web job form takes speed and format; a speed out of range is a 422 with its code', async () => {
    const submit = (fields: Record<string, string>) =>
      fetch(`${p.url}/api/web/jobs/tts`, { method: 'POST', headers: { 'x-api-key': p.apiKey, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
    const tooFast = await submit({ text: 'Too fast.', speed: '9' });
    assert.equal(tooFast.status, 422);
    assert.equal(((await tooFast.json()) as { code: string }).code, 'TTS_SPEED_OUT_OF_RANGE');
    const notANumber = await submit({ text: 'Not a number.', speed: 'fast' });
    assert.equal(notANumber.status, 422);
    const badFormat = await submit({ text: 'Bad format.', format: 'wma' });
    assert.equal(badFormat.status, 422);
    const ok = await submit({ text: 'Slow and in FLAC.', speed: '0.75', format: 'flac' });
    assert.equal(ok.status, 200);
    const { job_id } = (await ok.json()) as { job_id: string };
    const job = await p.facade.deps.jobs.get(job_id);
    assert.equal(job?.spec?.speech?.speed, 0.75);
    const config = (await (await fetch(`${p.url}/api/web/config`)).json()) as { formats: string[]; speed: { min: number; max: number } };
    assert.ok(config.formats.includes('flac') && config.speed.min === 0.25 && config.speed.max === 4);
  });

  test('a studio preset opened with ?preset= fills voice, speed and format, and the job names it', async () => {
    const guest = await fetch(`${p.url}/api/studio/auth/guest`, { method: 'POST' });
    assert.equal(guest.status, 201);
    const { token } = (await guest.json()) as { token: string };
    const created = await p.post('/api/studio/presets', { name: 'Calm reader', voice: 'flite:rms', speed: 0.8, format: 'mp3' }, { 'x-studio-token': token });
    assert.equal(created.status, 201, await created.clone().text());
    const { preset_id } = (await created.json()) as { preset_id: string };

    // Without a studio session the page says the preset needs the sign-in.
    const anonymous = await open(browser, `${p.url}/?preset=${preset_id}`, DESKTOP);
    await anonymous.page.waitForSelector('text=This preset needs the studio sign-in');
    assert.equal(await anonymous.page.getByRole('link', { name: 'Sign in to the studio' }).getAttribute('href'), '/studio');
    await anonymous.page.close();

    const { page, errors } = await open(browser, `${p.url}/`, DESKTOP);
    // Runs in the page (DOM globals there; this file is compiled without the DOM library).
    await page.evaluate((t) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('tts.studio-token', t), token);
    await page.goto(`${p.url}/?preset=${preset_id}`);
    await page.waitForSelector('.preset-note strong');
    assert.equal(await page.locator('.preset-note strong').textContent(), 'Calm reader');
    await page.waitForFunction(() => (globalThis as unknown as { document: { querySelector(s: string): { value: string } | null } }).document.querySelector('#voice')?.value === 'flite:rms');
    assert.match((await page.locator('output[for="speed"]').textContent()) ?? '', /^0\.80×$/);
    assert.equal(await page.locator('#format').inputValue(), 'mp3');
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/web/jobs/tts')) sent.push(r.postData() ?? '');
    });
    await page.getByLabel('Text').fill('A preset from the studio.');
    await page.getByRole('button', { name: 'Speak' }).click();
    await page.waitForSelector('.result audio[src]', { timeout: 60_000 });
    assert.equal(sent.length, 1);
    assert.equal(new URLSearchParams(sent[0]).get('preset_id'), preset_id);
    const src = (await page.locator('.result audio').getAttribute('src')) ?? '';
    const job = await p.facade.deps.jobs.get(/\/api\/web\/jobs\/([^/]+)\/audio/.exec(src)?.[1] ?? '');
    assert.equal(job?.spec?.speech?.voice, 'flite:rms');
    assert.ok(Math.abs((job?.spec?.speech?.speed ?? 0) - 0.8) < 1e-6, `speed ${job?.spec?.speech?.speed}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Speak disabled says why, next to the button; a studio guest sees its own limits, not the anonymous ones', async () => {
    const anonymous = await openPage(DESKTOP);
    const speak = anonymous.page.getByRole('button', { name: 'Speak' });
    assert.equal(await speak.isDisabled(), true);
    assert.equal(await speak.getAttribute('aria-describedby'), 'speak-why');
    assert.equal(await anonymous.page.locator('#speak-why').textContent(), 'Type some text to speak first.');
    await anonymous.page.getByLabel('Text').fill('Hello.');
    assert.equal(await speak.isDisabled(), false);
    assert.equal(await anonymous.page.locator('#speak-why').count(), 0, 'nothing to explain once it can speak');
    await anonymous.page.close();

    const guest = await fetch(`${p.url}/api/studio/auth/guest`, { method: 'POST' });
    const { token } = (await guest.json()) as { token: string };
    const me = (await (await fetch(`${p.url}/api/studio/auth/me`, { headers: { 'x-studio-token': token } })).json()) as { synthesis: { max_text_length: number; rate_per_minute: number } };
    const config = (await (await fetch(`${p.url}/api/web/config`)).json()) as { max_text_chars: number; rate_limit: { limit: number } };
    const own = me.synthesis;
    assert.ok(own.max_text_length < config.max_text_chars, 'a guest\'s limit is below the anonymous one');

    const recorded = await openPage(DESKTOP);
    const { page } = recorded;
    await page.evaluate((t) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('tts.studio-token', t), token);
    await page.reload();
    await page.waitForSelector('#voice option[value="flite:slt"]', { state: 'attached' });
    await page.waitForFunction((n) => ((globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('#counter')?.textContent ?? '').includes(`/ ${n} `), own.max_text_length);
    assert.equal(await page.locator('#counter').textContent(), `0 / ${own.max_text_length} characters`);
    assert.equal(await page.locator('.limit').textContent(), `Your limits: ${own.max_text_length} characters per request, ${own.rate_per_minute} requests per minute`);
    await page.getByLabel('Text').fill('a'.repeat(own.max_text_length + 12));
    assert.equal(await page.getByRole('button', { name: 'Speak' }).isDisabled(), true);
    assert.equal(await page.locator('#speak-why').textContent(), `The text has ${own.max_text_length + 12} characters; your limit is ${own.max_text_length}. Remove 12 to speak it.`);
    await checkPage(recorded, 'public-studio-over-limit');
    await page.close();

    // The server's refusal names the number too (what the page shows for TTS_TEXT_TOO_LONG).
    const form = new FormData();
    form.append('text', 'a'.repeat(own.max_text_length + 1));
    const refused = await fetch(`${p.url}/api/web/jobs/tts`, { method: 'POST', headers: { 'x-studio-token': token }, body: form });
    const body = (await refused.json()) as { code: string; message?: string; detail?: { msg: string }[] };
    assert.equal(body.code, 'TTS_TEXT_TOO_LONG');
    assert.match(body.message ?? body.detail?.[0]?.msg ?? '', new RegExp(`at most ${own.max_text_length}\\b`));
  });

  test('GET /api/web/config answers each caller\'s own limits: anonymous, studio guest, API key; the page shows a key\'s', async () => {
    const limitsOf = async (headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> => {
      const res = await fetch(`${p.url}/api/web/config`, { headers });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const anonymous = await limitsOf({});
    assert.equal(anonymous.status, 200);
    const config = anonymous.body as { max_text_chars: number; rate_limit: { limit: number; window_sec: number }; caller_limits: unknown };
    assert.deepEqual(config.caller_limits, { identity: 'anonymous', tier: null, max_text_chars: config.max_text_chars, rate_limit: config.rate_limit });
    const { token } = (await (await fetch(`${p.url}/api/studio/auth/guest`, { method: 'POST' })).json()) as { token: string };
    const me = (await (await fetch(`${p.url}/api/studio/auth/me`, { headers: { 'x-studio-token': token } })).json()) as { synthesis: { tier: string; max_text_length: number; rate_per_minute: number } };
    assert.deepEqual((await limitsOf({ 'x-studio-token': token })).body['caller_limits'], { identity: 'studio', tier: me.synthesis.tier, max_text_chars: me.synthesis.max_text_length, rate_limit: { limit: me.synthesis.rate_per_minute, window_sec: 60 } });
    const free = await p.createKey({ name: 'free key', tier: 'free', rate_limit_per_minute: 42 });
    const tiers = (await (await fetch(`${p.url}/api/auth/tiers`)).json()) as { tiers: { name: string; max_text_length: number }[] };
    const freeTier = tiers.tiers.find((t) => t.name === 'free')!;
    assert.deepEqual((await limitsOf({ 'x-api-key': free.apiKey })).body['caller_limits'], { identity: 'api_key', tier: 'free', max_text_chars: freeTier.max_text_length, rate_limit: { limit: 42, window_sec: 60 } });
    const wrong = await limitsOf({ 'x-api-key': 'tts_0123456789abcdef_notarealsecretnotarealsecretnotarealsec' });
    assert.equal(wrong.status, 401, 'a wrong key is refused, not answered with the anonymous limits');

    // The page with that key: its counter and limits are the key's.
    const { page, errors } = await openPage(DESKTOP);
    await page.evaluate((k) => (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem('tts.api-key', k), free.apiKey);
    await page.reload();
    await page.waitForSelector('#voice option[value="flite:slt"]', { state: 'attached' });
    await page.waitForFunction((n) => ((globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('#counter')?.textContent ?? '').includes(`/ ${n} `), freeTier.max_text_length);
    assert.equal(await page.locator('.limit').textContent(), `Your limits: ${freeTier.max_text_length} characters per request, 42 requests per minute`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a text over the limit is flagged and cannot be sent; the phone layout does not overflow', async () => {
    const { page, errors } = await openPage(PHONE);
    const limit = Number(/\/ (\d+)/.exec((await page.locator('#counter').textContent()) ?? '')?.[1]);
    assert.ok(limit > 0);
    await page.getByLabel('Text').fill('a'.repeat(limit + 1));
    assert.equal(await page.getByLabel('Text').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByRole('button', { name: 'Speak' }).isDisabled(), true);
    await checkPage({ page, errors }, 'public-phone');
    await page.close();
  });
});
