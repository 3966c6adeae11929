/**
 * The public page's first load (issue 13): the real multi-process platform (launcher, embedded
 * database) serving the built web application, Debian's Chromium (playwright-core, headless) with
 * its CPU throttled 4x through the DevTools protocol, 10 cold loads (a fresh browser context each:
 * empty cache, no cookies). Measures the bytes of the page's assets as transferred (compressed) and
 * decoded, the API calls the page makes, and the time from navigation to the submit button
 * enabled: the text is put in the box as soon as it exists (as a person typing would), the clock
 * stops when the button is enabled (config, voices and the bundle all in). Targets: assets <= 250 KB
 * compressed; p50 <= 1000 ms. Writes bench/results/web-load.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { launchPlatform } from './platform.js';
import { r, summary } from './support.js';

const LOADS = Number(process.env['BENCH_WEB_LOADS'] ?? 10);
const THROTTLE = 4;

/** Runs in the page before its own scripts: "types" text once the box exists, notes when the button is enabled. */
const PROBE = `(() => {
  const g = globalThis;
  const watch = () => {
    const text = document.querySelector('#text');
    if (text && !text.value) {
      text.value = 'Hello world.';
      text.dispatchEvent(new Event('input', { bubbles: true }));
    }
    const submit = document.querySelector('form button[type=submit]');
    if (submit && !submit.disabled && g.__readyAt === undefined) g.__readyAt = performance.now();
  };
  new MutationObserver(watch).observe(document, { subtree: true, childList: true, attributes: true });
})();`;

const out: Record<string, unknown> = { date: new Date().toISOString(), loadavg_start: loadavg().map((x) => r(x)), loads: LOADS, cpu_throttle: THROTTLE };
const platform = await launchPlatform({}, 0);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'] });
try {
  // The page waits for voices: start measuring once the nodes have loaded theirs.
  for (let i = 0; i < 300; i++) {
    const v = (await (await fetch(`${platform.url}/v1/audio/voices`)).json()) as { voices: unknown[] };
    if (v.voices.length > 0) break;
    await new Promise((res) => setTimeout(res, 200));
  }
  const readyMs: number[] = [];
  const loads: Record<string, unknown>[] = [];
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(PROBE);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
    const urls = new Map<string, string>();
    const sizes: { url: string; encoded: number; decoded: number }[] = [];
    cdp.on('Network.responseReceived', (e) => urls.set(e.requestId, e.response.url));
    const decodedById = new Map<string, number>();
    cdp.on('Network.dataReceived', (e) => decodedById.set(e.requestId, (decodedById.get(e.requestId) ?? 0) + e.dataLength));
    cdp.on('Network.loadingFinished', (e) => sizes.push({ url: urls.get(e.requestId) ?? '', encoded: e.encodedDataLength, decoded: decodedById.get(e.requestId) ?? 0 }));
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`${platform.url}/`);
    // A function, not a string: the page's CSP refuses string evaluation.
    await page.waitForFunction(() => (globalThis as { __readyAt?: number }).__readyAt !== undefined, undefined, { timeout: 30_000 });
    const ready = await page.evaluate(() => (globalThis as { __readyAt?: number }).__readyAt ?? NaN);
    await page.waitForLoadState('networkidle');
    const isAsset = (u: string) => !new URL(u).pathname.startsWith('/api/') && !new URL(u).pathname.startsWith('/v1/');
    const assets = sizes.filter((s) => isAsset(s.url));
    const api = sizes.filter((s) => !isAsset(s.url));
    readyMs.push(ready);
    loads.push({
      ready_ms: r(ready, 1),
      assets: assets.map((s) => ({ path: new URL(s.url).pathname, transferred_bytes: s.encoded, decoded_bytes: s.decoded })),
      assets_transferred_bytes: assets.reduce((a, s) => a + s.encoded, 0),
      assets_decoded_bytes: assets.reduce((a, s) => a + s.decoded, 0),
      api_calls: api.map((s) => new URL(s.url).pathname),
      api_transferred_bytes: api.reduce((a, s) => a + s.encoded, 0),
      console_errors: errors,
    });
    await context.close();
  }
  const s = summary(readyMs);
  const first = loads[0]!;
  out['navigation_to_submit_enabled_ms'] = { p50: r(s.p50, 1), p95: r(s.p95, 1), min: r(Math.min(...readyMs), 1), max: r(Math.max(...readyMs), 1) };
  out['assets_transferred_kb'] = r((first['assets_transferred_bytes'] as number) / 1024, 1);
  out['assets_decoded_kb'] = r((first['assets_decoded_bytes'] as number) / 1024, 1);
  out['api_transferred_kb'] = r((first['api_transferred_bytes'] as number) / 1024, 1);
  out['console_errors'] = loads.flatMap((l) => l['console_errors'] as string[]);
  out['loads_detail'] = loads;
} finally {
  out['loadavg_end'] = loadavg().map((x) => r(x));
  await browser.close();
  await platform.stop();
}
const { loads_detail: detail, ...headline } = out;
console.log(JSON.stringify(headline, null, 2));
console.log(JSON.stringify((detail as Record<string, unknown>[])[0], null, 2));
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/web-load.json', `${JSON.stringify(out, null, 2)}\n`);
