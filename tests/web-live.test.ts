/**
 * Live mode of the public page for an API-key user, in a real browser (headless Chromium, autoplay
 * allowed) against a really started platform and its speech WebSocket: the text is typed key by
 * key, the first audio arrives while the typing goes on (mid-sentence), the words heard are
 * highlighted from the server's word timings, Stop silences the output at once (the Web Audio
 * graph's own level reads zero) and the server confirms the context cancelled and frees the
 * node's slot; typing again speaks again; Escape in the text box stops too; the page passes the
 * accessibility checks at desktop and phone widths with no console error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { checkPage, DESKTOP, launchBrowser, openPage, PHONE } from './support/browser.js';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

/** The first sentence ends (and is flushed) early; the typing goes on long after it. */
const FIRST = 'The weather is lovely today, so we walk down to the river and look at the ducks that swim near the old wooden bridge. ';
const REST = 'Then we sit on the old bench under the trees and watch the boats go slowly by, while the children throw small stones into the water and count the rings that spread across the quiet surface until the sun goes down behind the hills.';

/** The live section's records (see live-mode.tsx). */
interface LiveRecord {
  readonly firstAudioAt?: number;
  readonly frames: number;
  readonly highlighted: number;
  readonly cancelled: number;
  readonly queuedAfterStop?: number;
  readonly level: number;
  readonly status: string;
}

function record(page: Page): Promise<LiveRecord> {
  return page.locator('#live').evaluate((el: { dataset: Record<string, string | undefined>; querySelector(s: string): { value?: number; textContent: string | null } | null }) => {
    const n = (k: string) => (el.dataset[k] === undefined ? undefined : Number(el.dataset[k]));
    return {
      firstAudioAt: n('firstAudioAt'),
      frames: n('frames') ?? 0,
      highlighted: n('highlighted') ?? 0,
      cancelled: n('cancelled') ?? 0,
      queuedAfterStop: n('queuedAfterStop'),
      level: Number(el.querySelector('meter')?.value ?? -1),
      status: el.querySelector('[role=status]')?.textContent ?? '',
    };
  });
}

describe('live mode: spoken while typed', () => {
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

  test('audio before the sentence is typed, words highlighted, Stop silences at once and cancels at the server', async (t) => {
    const recorded = await openPage(browser, `${p.url}/`, DESKTOP);
    const { page } = recorded;
    assert.equal(await page.getByRole('button', { name: 'Live' }).count(), 0, 'no live mode without an API key');
    await page.evaluate((k) => (globalThis as unknown as { sessionStorage: { setItem(a: string, b: string): void } }).sessionStorage.setItem('tts.api-key', k), p.apiKey);
    await page.reload();
    await page.waitForSelector('#voice option[value="flite:slt"]', { state: 'attached' });
    await page.getByLabel('Voice').selectOption('flite:slt');

    // Turned on from the keyboard: the button takes focus and Space presses it.
    const toggle = page.getByRole('button', { name: 'Live' });
    await toggle.focus();
    await page.keyboard.press('Space');
    await page.waitForSelector('#live');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    await checkPage(recorded, 'live-desktop');

    // Typed key by key; the typing goes on until the first audio is in.
    await page.getByLabel('Text').focus();
    await page.keyboard.type(FIRST, { delay: 40 });
    let typed = 0;
    for (const ch of REST) {
      if ((await record(page)).firstAudioAt !== undefined) break;
      await page.keyboard.type(ch, { delay: 40 });
      typed++;
    }
    const at = await record(page);
    t.diagnostic(`first audio after ${FIRST.length + typed} characters typed`);
    assert.ok(at.firstAudioAt !== undefined, 'the first audio arrived before the text was all typed');
    assert.ok(typed < REST.length, 'the audio came while the second sentence was being typed');
    const text = await page.getByLabel('Text').inputValue();
    assert.equal(text, FIRST + REST.slice(0, typed), 'the text box holds what was typed');

    // Heard and highlighted: the output's level rises, words of the first sentence are marked.
    await page.waitForFunction(() => Number((globalThis as unknown as { document: { querySelector(s: string): { value: number } | null } }).document.querySelector('#live meter')?.value ?? 0) > 0, undefined, { timeout: 30_000 });
    await page.waitForFunction(() => Number((globalThis as unknown as { document: { querySelector(s: string): { dataset: Record<string, string> } | null } }).document.querySelector('#live')?.dataset['highlighted'] ?? 0) >= 2, undefined, { timeout: 30_000 });
    const marked = (await page.locator('#live mark').textContent()) ?? '';
    assert.ok(marked !== '' && FIRST.toLowerCase().includes(marked.toLowerCase()), `a word of the first sentence is highlighted: "${marked}"`);
    const speaking = await record(page);
    assert.match(speaking.status, /speaking/);

    // Stop while speaking: nothing left queued at once, the level falls to zero, the server
    // confirms the context cancelled and the node's slot is free.
    await page.getByRole('button', { name: 'Stop' }).click();
    const stopped = await record(page);
    assert.equal(stopped.queuedAfterStop, 0, 'no audio queued after Stop');
    assert.match(stopped.status, /Stopped/);
    assert.equal(await page.locator('#live mark').count(), 0, 'no word highlighted after Stop');
    await page.waitForFunction(() => Number((globalThis as unknown as { document: { querySelector(s: string): { value: number } | null } }).document.querySelector('#live meter')?.value ?? 1) === 0, undefined, { timeout: 10_000 });
    await page.waitForFunction(() => Number((globalThis as unknown as { document: { querySelector(s: string): { dataset: Record<string, string> } | null } }).document.querySelector('#live')?.dataset['cancelled'] ?? 0) >= 1, undefined, { timeout: 10_000 });
    await waitFor(() => p.nodes.every((n) => n.context.admission.inFlight() === 0), 10_000, 'the node slot free after the cancel');
    assert.equal((await record(page)).frames, stopped.frames, 'no audio of the stopped context played after Stop');

    // Typing again speaks again (a new context), and Escape in the text box stops it.
    const before = (await record(page)).frames;
    await page.keyboard.type(' Good night. ', { delay: 40 });
    await page.waitForFunction((n) => Number((globalThis as unknown as { document: { querySelector(s: string): { dataset: Record<string, string> } | null } }).document.querySelector('#live')?.dataset['frames'] ?? 0) > n, before, { timeout: 30_000 });
    await page.keyboard.press('Escape');
    assert.match((await record(page)).status, /Stopped/);
    assert.equal((await record(page)).queuedAfterStop, 0);

    await page.setViewportSize(PHONE);
    await checkPage(recorded, 'live-phone');
    await page.getByRole('button', { name: 'Live' }).click();
    await page.waitForSelector('#live', { state: 'detached' });
    assert.deepEqual(recorded.errors, []);
    await page.close();
  });
});
