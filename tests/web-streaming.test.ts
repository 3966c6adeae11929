/**
 * Streaming playback on the public page for an API-key user, in a real browser (headless
 * Chromium, autoplay allowed) against a really started platform: POST /v1/audio/speech read as it
 * arrives into a MediaSource, the audio playing before the HTTP response has ended, the remaining
 * rate limit shown from the response headers, and the same request decoded as the speech asked for.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { assertSpeech, inspectClip } from './support/audio.js';
import { DESKTOP, launchBrowser, openPage } from './support/browser.js';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

/** Several sentences: the platform streams sentence by sentence. */
const TEXT = [
  'The first sentence starts the stream, so the page can play it at once.',
  'The second sentence is synthesized while the first one is already playing.',
  'A third sentence follows, with a few more words to say about the weather.',
  'The fourth sentence talks about the garden, the trees and the old stone wall.',
  'In the fifth sentence the children come home from school and have some tea.',
  'The sixth sentence is about the evening, when the lights come on in the street.',
  'A seventh sentence tells of the night, the stars and the quiet of the town.',
  'The eighth sentence brings the morning back, with the birds singing again.',
  'The ninth sentence is nearly the last one, and it is still quite long indeed.',
  'The tenth and final sentence ends the stream, and the page has played it all.',
].join(' ');

describe('streaming playback for API-key users', () => {
  let p: TestPlatform;
  let browser: Browser;
  before(async () => {
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt' } });
    await waitFor(async () => ((await (await fetch(`${p.url}/v1/audio/voices`)).json()) as { voices: unknown[] }).voices.length > 0, 30_000, 'voices');
    browser = await launchBrowser(['--autoplay-policy=no-user-gesture-required']);
  });
  after(async () => {
    await browser?.close();
    await p?.stop();
  });

  test('the audio plays before the response has ended; the rate limit is shown; the audio is the speech asked for', async (t) => {
    const { page, errors } = await openPage(browser, `${p.url}/`, DESKTOP);
    assert.equal(await page.getByRole('button', { name: 'Stream' }).count(), 0, 'no streaming without an API key');
    // The API key where the page keeps it (this tab's session storage), as the key form would.
    await page.evaluate((k) => (globalThis as unknown as { sessionStorage: { setItem(a: string, b: string): void } }).sessionStorage.setItem('tts.api-key', k), p.apiKey);
    await page.reload();
    await page.waitForSelector('#voice option[value="flite:slt"]', { state: 'attached' });
    await page.getByLabel('Text').fill(TEXT);
    await page.getByLabel('Voice').selectOption('flite:slt');
    await page.getByRole('button', { name: 'Stream' }).click();
    await page.waitForSelector('#stream-audio[data-playing-at][data-response-done-at]', { state: 'attached', timeout: 90_000 });
    const times = await page.locator('#stream-audio').evaluate((el: { dataset: Record<string, string | undefined> }) => ({ playing: Number(el.dataset['playingAt']), done: Number(el.dataset['responseDoneAt']) }));
    assert.ok(times.playing > 0 && times.done > 0, JSON.stringify(times));
    t.diagnostic(`playing ${(times.done - times.playing).toFixed(0)} ms before the response ended`);
    assert.ok(times.playing < times.done, `playback started ${(times.done - times.playing).toFixed(0)} ms before the response ended (playing ${times.playing}, done ${times.done})`);
    await page.waitForFunction(() => {
      const el = (globalThis as unknown as { document: { querySelector(s: string): { currentTime: number } | null } }).document.querySelector('#stream-audio');
      return (el?.currentTime ?? 0) > 1;
    }, undefined, { timeout: 60_000 });
    assert.match((await page.locator('.limit').textContent()) ?? '', /^\d+ of \d+ requests left \(resets in \d+ s\)$/);
    assert.deepEqual(errors, []);
    await page.close();

    // The same request, decoded: the speech asked for (ten sentences take well over ten seconds).
    const res = await p.post('/v1/audio/speech', { model: 'tts-1', input: TEXT, voice: 'flite:slt', response_format: 'mp3', speed: 1, stream_format: 'audio' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'audio/mpeg');
    const clip = await inspectClip(new Uint8Array(await res.arrayBuffer()));
    assert.equal(clip.codec, 'mp3');
    assertSpeech(clip, 15, 90);
  });
});
