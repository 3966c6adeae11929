/**
 * The web application in a real browser: Debian's Chromium (/usr/bin/chromium, installed by
 * `scripts/setup.sh --for-tests`, never downloaded) driven by playwright-core, headless. Pages
 * record console errors; checkPage() runs axe-core (no serious or critical violation), checks
 * for horizontal overflow and keeps a screenshot under data/test-artifacts/web/.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');
let axeText: Promise<string> | undefined;
const axeSource = (): Promise<string> => (axeText ??= readFile(AXE, 'utf8'));

/** Where screenshots are kept (a CI artifact). */
export const ARTIFACTS = path.resolve(import.meta.dirname, '..', '..', 'data', 'test-artifacts', 'web');

/** Desktop and phone viewports. */
export const DESKTOP = { width: 1280, height: 900 } as const;
export const PHONE = { width: 375, height: 740 } as const;

export interface AxeViolation { readonly id: string; readonly impact: string | null; readonly help: string; readonly nodes: number }

/** Starts headless Chromium; `args` adds command-line switches (e.g. a fake microphone, autoplay). */
export async function launchBrowser(args: readonly string[] = []): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage', ...args] });
}

/** A page and the console errors and uncaught exceptions it records. */
export interface RecordedPage { readonly page: Page; readonly errors: string[] }

/** Opens `url` in a new page (its own context unless one is given) at `viewport`. */
export async function openPage(browser: Browser | BrowserContext, url: string, viewport: { width: number; height: number } = DESKTOP): Promise<RecordedPage> {
  const page = 'newContext' in browser ? await browser.newPage({ viewport }) : await browser.newPage();
  if (!('newContext' in browser)) await page.setViewportSize(viewport);
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return { page, errors };
}

/** The serious and critical axe-core violations of the page as it is now. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol: an injected <script> would be refused by the page's CSP.
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(await axeSource());
  // Runs in the page (DOM globals there; this file is compiled without the DOM library).
  const result = await page.evaluate(async () => {
    const g = globalThis as unknown as { axe: { run: (ctx: unknown) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: unknown[] }[] }> }; document: unknown };
    return (await g.axe.run(g.document)).violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Horizontal overflow of the page in pixels (0 or less: none). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
}

/**
 * The checks every page passes, at the viewport it has now: no serious or critical axe
 * violation, no horizontal overflow, no console error so far; a full-page screenshot saved as
 * `<name>.png`.
 */
export async function checkPage(recorded: RecordedPage, name: string): Promise<void> {
  const { page, errors } = recorded;
  assert.deepEqual(await axeViolations(page), [], `axe on ${name}`);
  const overflow = await horizontalOverflow(page);
  assert.ok(overflow <= 0, `horizontal overflow of ${overflow} px on ${name}`);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  assert.deepEqual(errors, [], `console errors on ${name}`);
}
