/**
 * The operations pages in a real browser (Debian's Chromium via playwright-core) against a really
 * started platform, after real traffic: good syntheses with a test key, and failures that count
 * against the SLO (a second facade replica on the same database without a scheduler: 503). The SLO
 * page draws its uPlot charts from the dashboard's series (its text alternative holds the bucket
 * values the API gives) and lists the firing alert; the nodes page shows the node and its engines
 * and refreshes; the logs page shows a line of a request made after it opened and its filters hide
 * lines that do not match; usage shows the test key's requests; the cleanup runs after a
 * confirmation and shows its report. Every page passes checkPage at desktop and phone width (and
 * at phone width in the dark scheme).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '@tts/common/testing';
import { start as startFacade, type RunningFacade } from '@tts/facade';
import type { SloObjectives } from '@tts/facade/testing';
import { checkPage, DESKTOP, launchBrowser, openPage, PHONE, type RecordedPage } from './support/browser.js';
import { postJson, startPlatform, waitFor, type TestPlatform } from './support/platform.js';

const ENDPOINT = 'POST /api/tts';
/** A low minimum traffic, so the test's failures fire the availability page. */
const OBJECTIVES: SloObjectives = { default: { availability: 0.999, latencyP95Ms: 1000 }, endpoints: { [ENDPOINT]: { availability: 0.999, latencyP95Ms: 5000 } }, minRequests: 5 };
const GOOD = 6;
const FAILED = 3;

interface SeriesPoint {
  to: string;
  requests: number;
  errors: number;
  availability: number | null;
  burn_rate: number | null;
  p95_ms: number | null;
  latency: { burn_rate: number | null };
}
interface Dashboard {
  to: string;
  series: { bucket_minutes: number; points: SeriesPoint[] };
}

// The page's formats (web/src/pages/operations/format.ts), written again from their definition.
const percent = (v: number): string => `${(v * 100).toFixed(2)} %`;
const millis = (v: number): string => `${Math.round(v).toLocaleString('en')} ms`;
const burn = (v: number | null): string => (v === null ? '—' : `${v.toFixed(2)}×`);

describe('operations pages', { timeout: 300_000 }, () => {
  let p: TestPlatform;
  let replica: RunningFacade;
  let browser: Browser;
  let key: { keyId: string; apiKey: string };
  const admin = (): Record<string, string> => ({ 'x-admin-key': p.adminKey });
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${p.url}${path}`, { headers: admin() });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as T;
  };

  before(async () => {
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt', sloObjectives: OBJECTIVES, cleanupIntervalMinutes: 0 } });
    await waitFor(async () => ((await (await fetch(`${p.url}/v1/audio/voices`)).json()) as { voices: unknown[] }).voices.length > 0, 30_000, 'voices');
    replica = await startFacade({
      host: '127.0.0.1',
      port: 0,
      schedulerAddress: '127.0.0.1:9',
      databaseUrl: TEST_DATABASE_URL,
      dbSchema: p.facade.deps.access.database.schema,
      redisUrl: TEST_REDIS_URL,
      kvPrefix: p.facade.deps.config.kvPrefix,
      adminKey: p.adminKey,
      defaultVoice: 'flite:slt',
      sloObjectives: OBJECTIVES,
      cleanupIntervalMinutes: 0,
      synthRetries: 0,
    });
    key = await p.createKey({ name: 'ops usage test' });
    for (let i = 0; i < GOOD; i++) {
      const res = await postJson(`${p.url}/api/tts`, { text: `Operations test sentence ${i}.`, voice: 'flite:slt' }, { 'x-api-key': key.apiKey });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
    for (let i = 0; i < FAILED; i++) {
      const res = await postJson(`${replica.url}/api/tts`, { text: 'Nobody will say this.', voice: 'flite:slt' }, { 'x-api-key': key.apiKey });
      assert.equal(res.status, 503);
      await res.arrayBuffer();
    }
    await p.facade.deps.slo.drain();
    await replica.deps.slo.drain();
    // The SLO clock stops after the traffic, so the page and the test see the same buckets.
    const frozen = new Date(Date.now() + 1000);
    p.facade.deps.slo.clock = () => frozen;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await replica?.stop(1000);
    await p?.stop();
  });

  /** An operations page opened with the administrator key typed into its key form. */
  async function openOps(path: string): Promise<RecordedPage> {
    const recorded = await openPage(browser, `${p.url}${path}`, DESKTOP);
    await recorded.page.getByLabel('Administrator key', { exact: true }).fill(p.adminKey);
    await recorded.page.getByRole('button', { name: 'Use this key' }).click();
    await recorded.page.getByText('Acting with the administrator key').waitFor({ timeout: 30_000 });
    return recorded;
  }

  /** checkPage at desktop, then at phone width, then at phone width in the dark scheme. */
  async function checkBoth(recorded: RecordedPage, name: string): Promise<void> {
    await recorded.page.setViewportSize(DESKTOP);
    await checkPage(recorded, `${name}-desktop`);
    await recorded.page.setViewportSize(PHONE);
    await checkPage(recorded, `${name}-phone`);
    await recorded.page.emulateMedia({ colorScheme: 'dark' });
    await checkPage(recorded, `${name}-phone-dark`);
    await recorded.page.emulateMedia({ colorScheme: 'light' });
  }

  /** The rows of a hidden value table: [bucket end, cells...]. */
  const tableRows = (page: Page, id: string): Promise<string[][]> =>
    page.$$eval(`#${id} tbody tr`, (rows) => rows.map((r) => [r.querySelector('time')?.getAttribute('datetime') ?? '', ...[...r.querySelectorAll('td')].map((c) => c.textContent ?? '')]));

  test('SLO page: charts drawn from the series of the real traffic, the firing alert, objectives', async () => {
    const recorded = await openOps('/ops');
    const { page } = recorded;
    await page.locator('#slo-endpoint option', { hasText: ENDPOINT }).waitFor({ state: 'attached', timeout: 30_000 });
    await page.locator('#slo-endpoint').selectOption(ENDPOINT);
    await page.locator('#slo-status', { hasText: `${GOOD + FAILED} requests in the window` }).waitFor({ timeout: 30_000 });

    const d = await api<Dashboard>(`/api/slo/dashboard?window_minutes=60&endpoint=${encodeURIComponent(ENDPOINT)}`);
    const points = d.series.points.filter((x) => x.requests > 0);
    assert.equal(d.series.bucket_minutes, 1);
    assert.equal(points.reduce((n, x) => n + x.requests, 0), GOOD + FAILED, 'the traffic is in the series');
    assert.equal(points.reduce((n, x) => n + x.errors, 0), FAILED);
    // The text alternative of each chart holds the API's bucket values.
    assert.deepEqual(await tableRows(page, 'chart-availability-values'), points.map((x) => [x.to, percent(x.availability!)]));
    assert.deepEqual(await tableRows(page, 'chart-latency-values'), points.filter((x) => x.p95_ms !== null).map((x) => [x.to, millis(x.p95_ms!)]));
    assert.deepEqual(await tableRows(page, 'chart-burn-values'), points.map((x) => [x.to, burn(x.burn_rate), burn(x.latency.burn_rate)]));
    // Three uPlot charts, with their legends and accessible names.
    assert.equal(await page.locator('.ops-chart canvas').count(), 3);
    assert.equal(await page.locator('.ops-chart .u-legend').count(), 3);
    assert.match((await page.locator('#chart-availability-title + .ops-chart').getAttribute('aria-label')) ?? '', /^Availability, per 1 minute bucket\. Latest bucket with requests/);
    // 3 of 9 failed: the availability page alert fires.
    await page.locator('#slo-firing li', { hasText: 'page-1h-5m' }).first().waitFor();
    assert.match((await page.locator('#slo-firing').textContent()) ?? '', /availability page-1h-5m on POST \/api\/tts/);
    assert.match((await page.locator('#slo-burn-windows').textContent()) ?? '', /5 minutes9/);

    await checkBoth(recorded, 'ops-slo');
    // The charts follow the container down to phone width.
    await waitFor(async () => (await page.locator('.ops-chart canvas').evaluateAll((cs: { getBoundingClientRect(): { width: number } }[]) => cs.every((c) => c.getBoundingClientRect().width <= 375))), 10_000, 'charts at phone width');
    await page.close();
  });

  test('nodes page: the node with its engines, refreshed live', async () => {
    const recorded = await openOps('/ops/nodes');
    const { page } = recorded;
    const info = await api<{ nodes: { node_id: string; engines: string[] }[] }>('/api/system/info');
    const node = info.nodes[0]!;
    const row = page.locator(`#nodes-table tr[data-node-id="${node.node_id}"]`);
    await row.waitFor({ timeout: 30_000 });
    assert.match((await row.textContent()) ?? '', /flite \(/);
    assert.match((await row.textContent()) ?? '', /ready|serving|up/i);
    assert.match((await page.locator('#queue-facts').textContent()) ?? '', /Queue depth0/);
    const stamp = page.locator('#nodes-updated time');
    const first = await stamp.getAttribute('datetime');
    await waitFor(async () => (await stamp.getAttribute('datetime')) !== first, 20_000, 'a refresh');
    assert.notEqual(await stamp.getAttribute('datetime'), first, 'last updated moved on');
    await checkBoth(recorded, 'ops-nodes');
    await page.close();
  });

  test('logs page: a line of a request made after it opened; filters hide lines that do not match', async () => {
    const recorded = await openOps('/ops/logs');
    const { page } = recorded;
    await page.locator('#logs-state', { hasText: 'Following the log.' }).waitFor({ timeout: 30_000 });
    const res = await fetch(`${p.url}/api/system/cleanup/run`, { method: 'POST', headers: admin() });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const requestId = res.headers.get('x-request-id')!;
    assert.ok(requestId);
    const line = page.locator(`#log-lines li[data-request-id="${requestId}"]`, { hasText: 'cleanup done' });
    await line.waitFor({ timeout: 30_000 });
    await page.locator('#logs-announce', { hasText: /new matching line/ }).waitFor({ timeout: 15_000 });
    // A request id filter: only that request's lines (from the tail of the restarted stream).
    await page.getByLabel('Request id').fill(requestId);
    const lineIds = () => page.locator('#log-lines li').evaluateAll((items: { getAttribute(name: string): string | null }[]) => items.map((li) => li.getAttribute('data-request-id')));
    await waitFor(async () => {
      const ids = await lineIds();
      return ids.length > 0 && ids.every((id) => id === requestId);
    }, 30_000, 'only the request\'s lines');
    // warn and above: the info line is hidden.
    await page.getByLabel('Lowest level').selectOption('warn');
    await waitFor(async () => (await page.locator('#log-lines li').count()) === 0 && ((await page.locator('#logs-state').textContent()) ?? '').includes('Following'), 30_000, 'no line at warn and above');
    assert.equal(await line.count(), 0);
    await page.getByLabel('Lowest level').selectOption('info');
    await line.waitFor({ timeout: 30_000 });
    // Pause holds new lines back.
    await page.getByRole('button', { name: 'Pause' }).click();
    assert.equal(await page.getByRole('button', { name: 'Resume' }).getAttribute('aria-pressed'), 'true');
    await page.getByRole('button', { name: 'Resume' }).click();
    await checkBoth(recorded, 'ops-logs');
    await page.close();
  });

  test('usage page: the test key with its requests', async () => {
    const today = new Date().toISOString().slice(0, 10);
    type Summary = { rows: { key_id: string | null; requests: number }[] };
    await waitFor(async () => (await api<Summary>(`/api/usage/summary?day_from=${today}&day_to=${today}&key_id=${key.keyId}`)).rows.length > 0, 30_000, 'usage of the test key');
    const summary = await api<Summary>(`/api/usage/summary?day_from=${today}&day_to=${today}&key_id=${key.keyId}`);
    const requests = summary.rows.reduce((n, r) => n + r.requests, 0);
    assert.ok(requests >= GOOD, `${requests} requests of the test key`);
    const recorded = await openOps('/ops/usage');
    const { page } = recorded;
    const row = page.locator(`#usage-key-table tr[data-key-id="${key.keyId}"]`);
    await row.waitFor({ timeout: 30_000 });
    const cells = await row.locator('td').allTextContents();
    assert.match(cells[1] ?? '', new RegExp(`^${requests}( \\(\\d+ failed\\))?$`), `requests cell ${cells[1]}`);
    assert.equal(cells[0], 'pro', 'the key tier from the cost dashboard');
    assert.equal(await page.locator('.ops-chart canvas').count(), 1, 'the daily chart');
    await checkBoth(recorded, 'ops-usage');
    await page.close();
  });

  test('system page: engines and storage; the cleanup runs after a confirmation and shows what it removed', async () => {
    const recorded = await openOps('/ops/system');
    const { page } = recorded;
    await page.locator('#sys-engine-table', { hasText: 'flite' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Run cleanup now' }).click();
    await page.getByText('Delete now every item older than its retention?').waitFor();
    await page.getByRole('button', { name: 'Yes, run the cleanup' }).click();
    await page.locator('#cleanup-report').waitFor({ timeout: 30_000 });
    const status = (await page.getByRole('status').filter({ hasText: 'Cleanup done' }).textContent()) ?? '';
    const config = await api<{ last_run: { removed_total: number; items: { name: string }[] } | null }>('/api/system/cleanup/config');
    assert.ok(config.last_run);
    assert.equal(status, `Cleanup done: ${config.last_run.removed_total} removed.`);
    const shown = await page.locator('#cleanup-report tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-item')));
    assert.deepEqual(shown, config.last_run.items.map((i) => i.name));
    await checkBoth(recorded, 'ops-system');
    await page.close();
  });
});
