/**
 * The administration pages in a real browser (Debian's Chromium via playwright-core, headless)
 * against a really started platform and a local fake model hub (the real hub is external; nothing
 * here reaches the internet): a studio administrator approves and rejects VIP requests with their
 * studio session; with the administrator key typed into the key form, users are disabled and their
 * sessions revoked, an abuse report moves through its statuses, an API key is created (its secret
 * shown once, then never again), edited and disabled, and the hub token is set, validated and
 * deleted. Every effect is checked through the API; every page passes axe, has no horizontal
 * overflow and no console error at desktop and phone width.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { checkPage, DESKTOP, launchBrowser, openPage, PHONE, type RecordedPage } from './support/browser.js';
import { postJson, startPlatform, type TestPlatform } from './support/platform.js';

const PASSWORD = 'purple elephants dance at noon';
const HUB_TOKEN = 'hf_validTokenForWebAdmin0123456789';

interface Session { token: string; user: { user_id: string; username: string } }

describe('administration pages', () => {
  let p: TestPlatform;
  let browser: Browser;
  let hub: Server;
  let hubCalls = 0;

  before(async () => {
    // A local stand-in for the model hub: one token is valid, every other is refused.
    hub = createServer((req, res) => {
      hubCalls++;
      if (req.url !== '/api/whoami-v2') return void res.writeHead(404).end();
      if (req.headers.authorization === `Bearer ${HUB_TOKEN}`) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'user', name: 'web-admin-account' }));
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Invalid credentials in Authorization header"}');
    });
    await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', () => resolve()));
    const hubUrl = `http://127.0.0.1:${(hub.address() as { port: number }).port}`;
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt', hubUrl } });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await p?.stop();
    hub?.closeAllConnections();
    await new Promise<void>((resolve) => (hub ? hub.close(() => resolve()) : resolve()));
  });

  const admin = (): Record<string, string> => ({ 'x-admin-key': p.adminKey });
  const st = (token: string): Record<string, string> => ({ 'x-studio-token': token });
  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Response> =>
    fetch(`${p.url}${path}`, { method, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const register = async (prefix: string): Promise<Session> => {
    const res = await postJson(`${p.url}/api/studio/auth/register`, { username: `${prefix}${randomBytes(3).toString('hex')}`, password: PASSWORD });
    assert.equal(res.status, 201, await res.clone().text());
    return (await res.json()) as Session;
  };
  const fileVipRequest = async (s: Session, planId: string, message: string): Promise<string> => {
    const res = await call('POST', '/api/studio/vip/request', st(s.token), { plan_id: planId, message });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { request_id: string }).request_id;
  };
  const me = async (token: string): Promise<{ status: number; vip?: boolean }> => {
    const res = await call('GET', '/api/studio/auth/me', st(token));
    return res.ok ? { status: res.status, vip: ((await res.json()) as { user: { vip: boolean } }).user.vip } : { status: res.status };
  };
  /** The text of the page's success live region, once it has some. */
  const announced = async (page: Page, pattern: RegExp): Promise<string> => {
    const region = page.locator('.outcome [role="status"]');
    await region.filter({ hasText: pattern }).waitFor({ timeout: 30_000 });
    return (await region.textContent()) ?? '';
  };

  /** An administration page opened with the administrator key typed into its key form. */
  async function openWithAdminKey(path: string): Promise<RecordedPage> {
    const recorded = await openPage(browser, `${p.url}${path}`, DESKTOP);
    const { page } = recorded;
    await page.getByLabel('Administrator key', { exact: true }).fill(p.adminKey);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByText('Acting with the administrator key').waitFor({ timeout: 30_000 });
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

  test('a studio administrator approves one VIP request and rejects another with their studio session', async () => {
    const alice = await register('alice');
    const bob = await register('bob');
    const boss = await register('boss');
    const aliceRequest = await fileVipRequest(alice, 'vip_month', 'Paid by invoice 2026-42.');
    const bobRequest = await fileVipRequest(bob, 'vip_month', 'Please make me VIP.');
    // The administrator key makes the second user a studio administrator.
    const promoted = await call('PATCH', `/api/studio/admin/users/${boss.user.user_id}`, admin(), { role: 'admin' });
    assert.equal(promoted.status, 200);
    assert.equal(((await promoted.json()) as { role: string }).role, 'admin');

    const recorded = await openPage(browser, `${p.url}/admin`, DESKTOP);
    const { page } = recorded;
    // Without a studio session the page asks for the administrator key.
    await page.getByLabel('Administrator key', { exact: true }).waitFor();
    // Runs in the page (this file is compiled without the DOM library).
    await page.evaluate(`localStorage.setItem('tts.studio-token', ${JSON.stringify(boss.token)})`);
    await page.reload();
    await page.getByText(`Acting as studio administrator ${boss.user.username}`).waitFor({ timeout: 30_000 });
    assert.equal(await page.getByLabel('Administrator key', { exact: true }).count(), 0, 'no key asked for with an admin session');

    const aliceRow = page.locator(`li[data-request-id="${aliceRequest}"]`);
    await aliceRow.waitFor({ timeout: 30_000 });
    assert.match((await aliceRow.textContent()) ?? '', new RegExp(`${alice.user.username}.*pending review.*vip_month.*Manual request.*Paid by invoice 2026-42\\.`));
    await checkBoth(recorded, 'admin-vip');
    await page.setViewportSize(DESKTOP);

    await aliceRow.getByRole('button', { name: `Approve the request of ${alice.user.username}` }).click();
    assert.match(await announced(page, /Approved/), new RegExp(`Approved the vip_month request of ${alice.user.username}: VIP until`));
    // The row changed in place: decided, no buttons left.
    await aliceRow.locator('.badge', { hasText: 'approved' }).waitFor();
    assert.equal(await aliceRow.getByRole('button').count(), 0);
    assert.match((await aliceRow.textContent()) ?? '', new RegExp(`by studio:${boss.user.user_id}`));
    assert.deepEqual(await me(alice.token), { status: 200, vip: true });

    const bobRow = page.locator(`li[data-request-id="${bobRequest}"]`);
    await bobRow.getByRole('button', { name: `Reject the request of ${bob.user.username}` }).click();
    assert.match(await announced(page, /Rejected/), new RegExp(`Rejected the vip_month request of ${bob.user.username}\\.`));
    await bobRow.locator('.badge', { hasText: 'rejected' }).waitFor();
    assert.deepEqual(await me(bob.token), { status: 200, vip: false });
    const rejected = (await (await call('GET', '/api/studio/admin/vip-requests?status=rejected', admin())).json()) as { data: { request_id: string; decided_by: string }[] };
    assert.equal(rejected.data.find((r) => r.request_id === bobRequest)?.decided_by, `studio:${boss.user.user_id}`);

    // The filter asks the API for one status.
    await page.getByLabel('Status').selectOption('rejected');
    await page.locator(`li[data-request-id="${aliceRequest}"]`).waitFor({ state: 'detached' });
    assert.equal(await bobRow.count(), 1);
    assert.deepEqual(recorded.errors, []);
    await page.close();
  });

  test('users: VIP extended, sessions revoked after a confirmation, a user disabled; each stops or starts at once', async () => {
    const carol = await register('carol');
    const dave = await register('dave');
    const recorded = await openWithAdminKey('/admin/users');
    const { page } = recorded;
    const row = (s: Session): Locator => page.locator(`li[data-user-id="${s.user.user_id}"]`);
    await page.getByLabel('Search').fill(dave.user.username);
    await row(dave).waitFor({ timeout: 30_000 });
    assert.equal(await row(carol).count(), 0, 'the search hides the others');

    // Revoke sessions: nothing happens before the confirmation.
    await row(dave).getByRole('button', { name: `Manage ${dave.user.username}` }).click();
    await row(dave).getByRole('button', { name: 'Revoke sessions' }).click();
    assert.equal((await me(dave.token)).status, 200, 'still signed in until confirmed');
    await checkBoth(recorded, 'admin-users');
    await page.setViewportSize(DESKTOP);
    await row(dave).getByRole('button', { name: 'End every session' }).click();
    assert.match(await announced(page, /session/), new RegExp(`Ended 1 session of ${dave.user.username}\\.`));
    assert.equal((await me(dave.token)).status, 401);

    // Extend VIP and disable another user.
    await page.getByLabel('Search').fill(carol.user.username);
    await row(carol).getByRole('button', { name: `Manage ${carol.user.username}` }).click();
    await row(carol).getByLabel('Extend VIP by (days)').fill('10');
    await row(carol).getByRole('button', { name: 'Extend VIP' }).click();
    assert.match(await announced(page, /VIP until/), new RegExp(`${carol.user.username} is VIP until`));
    const carolMe = (await (await call('GET', '/api/studio/auth/me', st(carol.token))).json()) as { user: { vip: boolean; vip_until: string } };
    assert.equal(carolMe.user.vip, true);
    const days = (Date.parse(carolMe.user.vip_until) - Date.now()) / 86_400_000;
    assert.ok(days > 9.9 && days < 10.1, `VIP for ${days} days`);
    await row(carol).getByRole('button', { name: 'Disable' }).click();
    assert.match(await announced(page, /disabled/), new RegExp(`${carol.user.username} is disabled`));
    await row(carol).locator('.badge', { hasText: 'disabled' }).waitFor();
    assert.ok([401, 403].includes((await me(carol.token)).status), 'a disabled user is refused');
    // A disabled account answers its right password as a wrong one (no password oracle).
    const login = await postJson(`${p.url}/api/studio/auth/login`, { login: carol.user.username, password: PASSWORD });
    assert.equal(login.status, 401);
    assert.equal(((await login.json()) as { code: string }).code, 'STUDIO_LOGIN_FAILED');
    await row(carol).getByRole('button', { name: 'Enable' }).click();
    assert.match(await announced(page, /enabled/), new RegExp(`${carol.user.username} is enabled again\\.`));
    assert.equal((await postJson(`${p.url}/api/studio/auth/login`, { login: carol.user.username, password: PASSWORD })).status, 200);
    assert.deepEqual(recorded.errors, []);
    await page.close();
  });

  test('an abuse report is opened and moved open -> reviewing -> dismissed with notes', async () => {
    const filed = await postJson(`${p.url}/api/compliance/abuse/report`, { category: 'impersonation', description: 'Someone used a cloned voice of my manager on a call.', reporter_contact: 'reporter@example.test' });
    assert.equal(filed.status, 201, await filed.clone().text());
    const { report_id: reportId } = (await filed.json()) as { report_id: string };

    const recorded = await openWithAdminKey('/admin/reports');
    const { page } = recorded;
    await page.getByLabel('Status').selectOption('open');
    const item = page.locator(`li[data-report-id="${reportId}"]`);
    await item.waitFor({ timeout: 30_000 });
    await item.getByRole('button', { name: `Open report ${reportId}` }).click();
    const detail = page.locator('section[aria-labelledby="report-detail"]');
    await detail.getByRole('heading', { name: `Report ${reportId}` }).waitFor();
    assert.match((await detail.textContent()) ?? '', /cloned voice of my manager.*reporter@example\.test/);
    // Only the allowed move is offered.
    assert.deepEqual(await detail.getByLabel('New status').locator('option').allTextContents(), ['reviewing']);
    await detail.getByLabel('Note (optional, kept in the history)').fill('Looking into the call recording.');
    await checkBoth(recorded, 'admin-reports');
    await page.setViewportSize(DESKTOP);
    await detail.getByRole('button', { name: 'Change status' }).click();
    assert.match(await announced(page, /reviewing/), new RegExp(`Report ${reportId} is now reviewing\\.`));
    assert.deepEqual(await detail.getByLabel('New status').locator('option').allTextContents(), ['actioned', 'dismissed']);
    await detail.getByLabel('New status').selectOption('dismissed');
    await detail.getByLabel('Note (optional, kept in the history)').fill('Not our audio: no watermark.');
    await detail.getByRole('button', { name: 'Change status' }).click();
    assert.match(await announced(page, /dismissed/), new RegExp(`Report ${reportId} is now dismissed\\.`));
    await detail.getByText('its status is final').waitFor();

    const res = await call('GET', `/api/compliance/abuse/reports/${reportId}`, admin());
    assert.equal(res.status, 200);
    const report = (await res.json()) as { status: string; history: { from: string | null; to: string; note: string | null; actor: string }[] };
    assert.equal(report.status, 'dismissed');
    assert.deepEqual(
      report.history.map((h) => [h.from, h.to, h.note]),
      [
        [null, 'open', null],
        ['open', 'reviewing', 'Looking into the call recording.'],
        ['reviewing', 'dismissed', 'Not our audio: no watermark.'],
      ],
    );
    assert.equal(report.history.at(-1)?.actor, 'admin');
    assert.equal(await item.locator('.badge', { hasText: 'dismissed' }).count(), 1, 'the list row follows');
    assert.deepEqual(recorded.errors, []);
    await page.close();
  });

  test('API keys: created with its secret shown once, usable, edited, not shown after a reload, disabled', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: p.url });
    const recorded = await openPage(context, `${p.url}/admin/keys`, DESKTOP);
    const { page } = recorded;
    await page.getByLabel('Administrator key', { exact: true }).fill(p.adminKey);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByText('Acting with the administrator key').waitFor({ timeout: 30_000 });
    const name = `web-admin-${randomBytes(3).toString('hex')}`;
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Tier', { exact: true }).selectOption('pro');
    const createButton = page.getByRole('button', { name: 'Create key' });
    await page.getByLabel('Requests per minute').fill('100001');
    assert.equal(await createButton.isDisabled(), true, 'a rate above 100000 cannot be sent');
    await page.getByLabel('Requests per minute').fill('1000');
    await createButton.click();
    const secretField = page.getByLabel('API key', { exact: true });
    await secretField.waitFor({ timeout: 30_000 });
    assert.equal(await secretField.getAttribute('readonly'), '');
    const secret = await secretField.inputValue();
    assert.match(secret, /^tts_/);
    await page.getByText('it is not stored and will not be shown again').waitFor();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret);

    // The secret works against the API, with its own rate limit.
    const used = await fetch(`${p.url}/api/usage/summary`, { headers: { 'x-api-key': secret } });
    assert.equal(used.status, 200);
    assert.equal(used.headers.get('ratelimit-limit'), '1000');
    type Listed = { key_id: string; name: string; tier: string; disabled: boolean; daily_char_quota?: number | null; rate_limit_per_minute?: number | null };
    const listed = async (): Promise<Listed> => {
      const keys = ((await (await call('GET', '/api/auth/keys', admin())).json()) as { keys: Listed[] }).keys;
      const found = keys.find((k) => k.name === name);
      assert.ok(found, `key ${name} listed`);
      return found;
    };
    assert.deepEqual([(await listed()).tier, (await listed()).rate_limit_per_minute], ['pro', 1000]);

    await page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await secretField.count(), 0, 'gone once dismissed');
    assert.ok(!((await page.content()).includes(secret)), 'the secret is nowhere in the page');

    // Edit its tier, daily quota and rate.
    const row = page.locator(`li[data-key-id="${(await listed()).key_id}"]`);
    const shownRate = row.locator('dt:text-is("Requests per minute") + dd');
    assert.match(await shownRate.innerText(), /^1[,.\u202f\u00a0]?000$/);
    await row.getByRole('button', { name: `Edit key ${name}` }).click();
    await row.getByLabel('Tier').selectOption('free');
    await row.getByLabel('Daily characters').fill('12345');
    const rate = row.getByLabel('Requests per minute');
    assert.equal(await rate.inputValue(), '1000', 'the editor starts from the key');
    await rate.fill('0');
    assert.equal(await rate.getAttribute('aria-invalid'), 'true');
    assert.equal(await row.getByRole('button', { name: 'Save' }).isDisabled(), true, 'a rate of 0 cannot be sent');
    await rate.fill('5');
    await row.getByRole('button', { name: 'Save' }).click();
    assert.match(await announced(page, /saved/), new RegExp(`Key “${name}” saved: tier free\\.`));
    const edited = await listed();
    assert.deepEqual([edited.tier, edited.daily_char_quota, edited.rate_limit_per_minute], ['free', 12345, 5]);
    await row.locator('dt:text-is("Requests per minute") + dd:text-is("5")').waitFor();

    // After a reload the key is listed, its secret is not.
    await page.reload();
    await row.waitFor({ timeout: 30_000 });
    assert.equal(await page.getByLabel('API key', { exact: true }).count(), 0);
    assert.ok(!((await page.content()).includes(secret)), 'not shown again after a reload');
    await checkBoth(recorded, 'admin-keys');
    await page.setViewportSize(DESKTOP);

    await row.getByRole('button', { name: `Disable key ${name}` }).click();
    assert.match(await announced(page, /disabled/), new RegExp(`Key “${name}” is disabled`));
    await row.locator('.badge', { hasText: 'disabled' }).waitFor();
    assert.equal((await listed()).disabled, true);
    const refused = await fetch(`${p.url}/api/usage/summary`, { headers: { 'x-api-key': secret } });
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { code: string }).code, 'AUTH_KEY_DISABLED');
    assert.deepEqual(recorded.errors, []);
    await context.close();
  });

  test('hub token: a refused token is not stored; set, validated and deleted against a local fake hub', async () => {
    const recorded = await openWithAdminKey('/admin/hub');
    const { page } = recorded;
    const status = page.locator('section[aria-labelledby="hub-status"]');
    await status.getByText('not set').waitFor({ timeout: 30_000 });
    await checkBoth(recorded, 'admin-hub');
    await page.setViewportSize(DESKTOP);
    const callsBefore = hubCalls;

    await page.getByLabel('Hub token').fill('hf_wrongTokenForWebAdmin01234567');
    await page.getByRole('button', { name: 'Save token' }).click();
    await page.locator('.outcome [role="alert"]', { hasText: 'The model hub refused the token' }).waitFor({ timeout: 30_000 });
    assert.equal(((await (await call('GET', '/api/hub/token/status', admin())).json()) as { configured: boolean }).configured, false);

    await page.getByLabel('Hub token').fill(HUB_TOKEN);
    await page.getByRole('button', { name: 'Save token' }).click();
    assert.match(await announced(page, /stored/), /The hub token hf_\*\*\*\*6789 is stored\. The hub says: valid \(account web-admin-account\)\./);
    assert.equal(await page.getByLabel('Hub token').inputValue(), '', 'the field is cleared');
    await status.getByText('hf_****6789', { exact: true }).waitFor();
    assert.ok(!(await page.content()).includes(HUB_TOKEN), 'the token is never shown');

    await page.getByRole('button', { name: 'Validate stored token' }).click();
    assert.match(await announced(page, /Checked/), /Checked the stored token hf_\*\*\*\*6789: valid \(account web-admin-account\)\./);
    const stored = (await (await call('GET', '/api/hub/token/status', admin())).json()) as { configured: boolean; masked: string; last_validation: { valid: boolean } };
    assert.deepEqual([stored.configured, stored.masked, stored.last_validation.valid], [true, 'hf_****6789', true]);
    assert.ok(hubCalls - callsBefore >= 3, 'the fake hub was asked each time');

    // Deleting asks first.
    await page.getByRole('button', { name: 'Delete token' }).click();
    assert.equal(((await (await call('GET', '/api/hub/token/status', admin())).json()) as { configured: boolean }).configured, true, 'nothing deleted before the confirmation');
    await page.getByRole('button', { name: 'Delete the token' }).click();
    assert.match(await announced(page, /deleted/), /The hub token is deleted\./);
    await status.getByText('not set').waitFor();
    assert.equal(((await (await call('GET', '/api/hub/token/status', admin())).json()) as { configured: boolean }).configured, false);
    // The one console line is the browser's own network log of the refusal (422) above.
    assert.deepEqual(recorded.errors, ['Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)']);
    await page.close();
  });
});
