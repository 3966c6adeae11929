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

async function record(page: Page): Promise<LiveRecord> {
  // Plain expressions only in the page function: tsx would wrap a named inner function in a helper the page lacks.
  const raw = await page.locator('#live').evaluate((el: { dataset: Record<string, string | undefined>; querySelector(s: string): { value?: number; textContent: string | null } | null }) => ({
    data: { ...el.dataset },
    level: Number(el.querySelector('meter')?.value ?? -1),
    status: el.querySelector('[role=status]')?.textContent ?? '',
  }));
  const n = (k: string): number | undefined => (raw.data[k] === undefined ? undefined : Number(raw.data[k]));
  return { firstAudioAt: n('firstAudioAt'), frames: n('frames') ?? 0, highlighted: n('highlighted') ?? 0, cancelled: n('cancelled') ?? 0, queuedAfterStop: n('queuedAfterStop'), level: raw.level, status: raw.status };
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
    // What the page sends on its socket (JSON messages; audio only comes the other way).
    const sent: { type: string; text?: string; context_id?: string }[] = [];
    page.on('websocket', (ws) => ws.on('framesent', (f) => sent.push(JSON.parse(String(f.payload)) as (typeof sent)[number])));
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

    // Typed key by key at a steady pace; the clock of the page says when the typing ended.
    await page.getByLabel('Text').focus();
    await page.keyboard.type(FIRST, { delay: 40 });
    const typingEnded = await page.evaluate(() => performance.now());
    await page.keyboard.type(REST.slice(0, 20), { delay: 40 });
    const at = await record(page);
    assert.ok(at.firstAudioAt !== undefined, 'audio arrived during the typing');
    t.diagnostic(`first audio ${(typingEnded - at.firstAudioAt).toFixed(0)} ms before the first sentence was all typed`);
    assert.ok(at.firstAudioAt < typingEnded, 'the first audio arrived while the first sentence was still being typed');
    // Sent in pieces as typed: each ends at a word boundary, or is flushed at once (a pause in the
    // typing); the sentence's end is flushed.
    const flow = sent.filter((m) => m.type === 'text' || m.type === 'flush');
    const texts = flow.filter((m) => m.type === 'text').map((m) => m.text ?? '');
    assert.ok(texts.length >= 5, `the text went in pieces: ${JSON.stringify(texts)}`);
    flow.forEach((m, i) => assert.ok(m.type !== 'text' || /\s$/.test(m.text ?? '') || flow[i + 1]?.type === 'flush', `a piece ends at a word boundary or is flushed: ${JSON.stringify(flow)}`));
    const sentenceEnd = flow.findIndex((m) => m.text?.endsWith('bridge. '));
    assert.ok(sentenceEnd >= 0 && flow[sentenceEnd + 1]?.type === 'flush', `a flush follows the sentence's end: ${JSON.stringify(flow)}`);
    const joined = texts.join('');
    assert.ok(joined.startsWith(FIRST) && (FIRST + REST).startsWith(joined), `every word typed was sent once, in order: ${JSON.stringify(joined)}`);
    assert.equal(await page.getByLabel('Text').inputValue(), FIRST + REST.slice(0, 20), 'the text box holds what was typed');

    // Heard and highlighted: the output's level rises, words of the first sentence are marked.
    await page.waitForFunction(() => Number((globalThis as unknown as { document: { querySelector(s: string): { value: number } | null } }).document.querySelector('#live meter')?.value ?? 0) > 0, undefined, { timeout: 30_000 });
    await page.waitForFunction(() => Number((globalThis as unknown as { document: { querySelector(s: string): { dataset: Record<string, string> } | null } }).document.querySelector('#live')?.dataset['highlighted'] ?? 0) >= 2, undefined, { timeout: 30_000 });
    const marked = (await page.locator('#live mark').textContent()) ?? '';
    assert.ok(marked !== '' && (FIRST + REST).toLowerCase().includes(marked.toLowerCase()), `a word of the text is highlighted: "${marked}"`);
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
    await page.getByLabel('Text').focus();
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
