/**
 * The studio pages in a real browser (Debian's Chromium via playwright-core, headless) against a
 * really started platform with a local fake of the SlipOK provider: registering, presets (create,
 * edit, share with "Copy link", delete), another person opening the share link and forking it as a
 * guest, revoking a link, VIP by slip and by manual request, logging out and in again with a wrong
 * and the right password; every page passes checkPage at desktop and phone width.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startFakeSlipOk, testSlipPng, type FakeSlipOk } from '@tts/facade/testing';
import { checkPage, DESKTOP, launchBrowser, openPage, PHONE, type RecordedPage } from './support/browser.js';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';

const PASSWORD = 'purple elephants dance at noon';
const LONG = { timeout: 30_000 };

/** A slip image: a whole PNG of random pixels, another one each call. */
const slipImage = (): Buffer => testSlipPng();

/** A fresh username. */
const newName = (prefix: string): string => `${prefix}${randomBytes(3).toString('hex')}`;

interface PresetRow { preset_id: string; name: string; voice: string | null; speed: number | null; format: string | null; sample_text: string | null; forked_from: { share_id: string } | null }

describe('studio pages', () => {
  let p: TestPlatform;
  let fake: FakeSlipOk;
  let browser: Browser;
  before(async () => {
    fake = await startFakeSlipOk({ apiKey: 'slipok-test-key', branchId: '4242' });
    p = await startPlatform({
      node: { engines: ['flite'], defaultVoice: 'flite:slt' },
      facade: { defaultVoice: 'flite:slt', slipProviderUrl: fake.url, slipProviderKey: 'slipok-test-key', slipProviderBranch: '4242' },
    });
    await waitFor(async () => ((await (await fetch(`${p.url}/v1/audio/voices`)).json()) as { voices: unknown[] }).voices.length > 0, 30_000, 'voices');
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await p?.stop();
    await fake?.close();
  });

  /** The studio session token the page keeps. */
  const tokenOf = (page: Page): Promise<string> => page.evaluate<string>("localStorage.getItem('tts.studio-token') ?? ''");
  /** A studio API call with that token. */
  async function api<T>(token: string, path: string): Promise<T> {
    const res = await fetch(`${p.url}${path}`, { headers: { 'x-studio-token': token } });
    assert.equal(res.status, 200, `${path}: ${await res.clone().text()}`);
    return (await res.json()) as T;
  }

  /** Registers `name` through the account page of a new page of `context`; answers the page. */
  async function registerThroughUi(context: BrowserContext, name: string): Promise<RecordedPage> {
    const recorded = await openPage(context, `${p.url}/studio`, DESKTOP);
    const { page } = recorded;
    await page.getByLabel('Username', { exact: true }).fill(name);
    await page.locator('#register-password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('heading', { name: `Signed in as ${name}` }).waitFor(LONG);
    assert.match((await page.getByRole('status').first().textContent()) ?? '', new RegExp(`Registered as ${name}`));
    return recorded;
  }

  test('presets: create, edit, share and copy the link; another person forks it as a guest; revoke; delete', async () => {
    const owner = await browser.newContext({ viewport: DESKTOP });
    await owner.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: p.url });
    const name = newName('owner');
    const account = await registerThroughUi(owner, name);
    // The account page, signed in: who, role, tier and usage.
    const facts = (await account.page.locator('.studio-facts').first().textContent()) ?? '';
    assert.match(facts, /Registered/);
    assert.match(facts, /Not VIP/);
    assert.match((await account.page.locator('.studio-facts').nth(1).textContent()) ?? '', /Member.*Characters today0 of/);
    await checkPage(account, 'studio-account-desktop');

    // Presets: the sub-navigation leads there; the voice picker is filled and grouped.
    const { page } = account;
    await page.getByRole('navigation', { name: 'Studio' }).getByRole('link', { name: 'Presets' }).click();
    await page.getByRole('heading', { name: 'New preset' }).waitFor(LONG);
    await page.waitForSelector('#preset-voice optgroup[label^="flite"] option[value="flite:slt"]', { state: 'attached', ...LONG });
    await page.getByLabel('Name').fill('Narrator');
    await page.getByLabel('Voice').selectOption('flite:slt');
    await page.getByLabel('Speed').fill('1.25');
    await page.getByLabel('Format').selectOption('mp3');
    await page.getByLabel('Sample text').fill('Once upon a time.');
    await page.getByLabel('Notes').fill('private note');
    await page.getByRole('button', { name: 'Create preset' }).click();
    await page.getByRole('status').filter({ hasText: 'Created “Narrator”.' }).waitFor(LONG);
    const item = page.locator('.studio-item', { hasText: 'Narrator' });
    await item.waitFor(LONG);
    const ownerToken = await tokenOf(page);
    let rows = (await api<{ data: PresetRow[] }>(ownerToken, '/api/studio/presets')).data;
    assert.equal(rows.length, 1);
    assert.deepEqual([rows[0]!.name, rows[0]!.voice, rows[0]!.speed, rows[0]!.format, rows[0]!.sample_text], ['Narrator', 'flite:slt', 1.25, 'mp3', 'Once upon a time.']);
    const presetId = rows[0]!.preset_id;
    assert.equal(await item.getByRole('link', { name: 'Use Narrator' }).getAttribute('href'), `/?preset=${presetId}`);

    // Edit: the form takes the preset's values; saving changes it.
    await page.getByRole('button', { name: 'Edit Narrator' }).click();
    await page.getByRole('heading', { name: 'Edit “Narrator”' }).waitFor();
    assert.equal(await page.getByLabel('Speed').inputValue(), '1.25');
    await page.getByLabel('Name').fill('Storyteller');
    await page.getByLabel('Speed').fill('1.5');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved “Storyteller”.' }).waitFor(LONG);
    await page.getByRole('heading', { name: 'New preset' }).waitFor();
    rows = (await api<{ data: PresetRow[] }>(ownerToken, '/api/studio/presets')).data;
    assert.deepEqual([rows.length, rows[0]!.name, rows[0]!.speed, rows[0]!.format], [1, 'Storyteller', 1.5, 'mp3']);

    // Share, then "Copy link": the clipboard holds the link.
    await page.getByRole('button', { name: 'Share Storyteller' }).click();
    const urlField = page.getByLabel('Share link', { exact: true });
    await urlField.waitFor(LONG);
    const shareLink = await urlField.inputValue();
    assert.match(shareLink, new RegExp(`^${p.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/share/shs_[A-Za-z0-9_-]{43}$`));
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.locator('.studio-share-link [role="status"]', { hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), shareLink);
    await page.locator('table.studio-shares tbody tr', { hasText: 'Active' }).waitFor();
    await checkPage(account, 'studio-presets-desktop');
    const phonePresets = await openPage(owner, `${p.url}/studio/presets`, PHONE);
    await phonePresets.page.locator('.studio-item', { hasText: 'Storyteller' }).waitFor(LONG);
    await checkPage(phonePresets, 'studio-presets-phone');
    await phonePresets.page.close();

    // Another person opens the link, sees the preset, continues as a guest and forks it.
    const other = await browser.newContext({ viewport: DESKTOP });
    const shared = await openPage(other, shareLink, DESKTOP);
    await shared.page.getByRole('heading', { name: 'Storyteller' }).waitFor(LONG);
    const shownFacts = (await shared.page.locator('.studio-facts').textContent()) ?? '';
    assert.match(shownFacts, /Speed1\.5×/);
    assert.match(shownFacts, /Formatmp3/);
    assert.match(shownFacts, /Once upon a time\./);
    assert.match(shownFacts, /PronunciationsNone/, 'the share shows the preset\'s lexicon (a fork copies it), here empty');
    assert.doesNotMatch((await shared.page.locator('main').textContent()) ?? '', /private note/, 'notes stay private');
    await checkPage(shared, 'share-desktop');
    const sharedPhone = await openPage(other, shareLink, PHONE);
    await sharedPhone.page.getByRole('heading', { name: 'Storyteller' }).waitFor(LONG);
    await checkPage(sharedPhone, 'share-phone');
    await sharedPhone.page.close();
    await shared.page.getByRole('button', { name: 'Continue as a guest and fork' }).click();
    await shared.page.getByRole('status').filter({ hasText: '“Storyteller” is now in your presets.' }).waitFor(LONG);
    await shared.page.getByRole('link', { name: 'Open my presets' }).click();
    const forkedItem = shared.page.locator('.studio-item', { hasText: 'Storyteller' });
    await forkedItem.waitFor(LONG);
    assert.match((await forkedItem.textContent()) ?? '', /Copied from a share/);
    const guestToken = await tokenOf(shared.page);
    assert.notEqual(guestToken, '');
    const forks = (await api<{ data: PresetRow[] }>(guestToken, '/api/studio/presets')).data;
    assert.equal(forks.length, 1);
    assert.deepEqual([forks[0]!.name, forks[0]!.speed, forks[0]!.format, forks[0]!.voice], ['Storyteller', 1.5, 'mp3', 'flite:slt']);
    assert.ok(forks[0]!.forked_from?.share_id, 'the fork names its share');
    assert.notEqual(forks[0]!.preset_id, presetId);
    const me = await api<{ user: { kind: string; user_id: string } }>(guestToken, '/api/studio/auth/me');
    assert.equal(me.user.kind, 'guest');
    // The guest registers on the account page: same account, the fork kept.
    await shared.page.getByRole('navigation', { name: 'Studio' }).getByRole('link', { name: 'Account' }).click();
    await shared.page.getByRole('heading', { name: 'Register this guest account' }).waitFor(LONG);
    const guestName = newName('forker');
    await shared.page.getByLabel('Username', { exact: true }).fill(guestName);
    await shared.page.locator('#register-password').fill(PASSWORD);
    await shared.page.getByRole('button', { name: 'Register' }).click();
    await shared.page.getByRole('heading', { name: `Signed in as ${guestName}` }).waitFor(LONG);
    const memberToken = await tokenOf(shared.page);
    assert.notEqual(memberToken, guestToken, 'a new session');
    const member = await api<{ user: { kind: string; user_id: string } }>(memberToken, '/api/studio/auth/me');
    assert.deepEqual([member.user.kind, member.user.user_id], ['registered', me.user.user_id]);
    assert.equal((await api<{ data: PresetRow[] }>(memberToken, '/api/studio/presets')).data.length, 1);

    // The owner sees the copy counted and revokes the link; the link then says so.
    await page.reload();
    const shareRow = page.locator('table.studio-shares tbody tr').first();
    await shareRow.waitFor(LONG);
    assert.match((await shareRow.textContent()) ?? '', /Active/);
    assert.equal(await shareRow.locator('td').nth(4).textContent(), '1', 'one copy made');
    await shareRow.getByRole('button', { name: /^Revoke the link of Storyteller/ }).click();
    await page.getByRole('status').filter({ hasText: 'The link is revoked' }).waitFor(LONG);
    await page.locator('table.studio-shares tbody tr', { hasText: 'Revoked' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /^Revoke the link/ }).count(), 0, 'nothing left to revoke');
    const revoked = await openPage(other, shareLink, DESKTOP);
    await revoked.page.getByRole('alert').filter({ hasText: 'This share link was revoked by its owner.' }).waitFor(LONG);
    const unknown = await openPage(other, `${p.url}/share/shs_${'x'.repeat(43)}`, DESKTOP);
    await unknown.page.getByRole('alert').filter({ hasText: 'This share link does not exist.' }).waitFor(LONG);

    // The owner deletes the preset, after confirming.
    await page.getByRole('button', { name: 'Delete Storyteller' }).click();
    await page.getByText('Delete “Storyteller”? Its share links stop working.').waitFor();
    assert.equal((await api<{ data: PresetRow[] }>(ownerToken, '/api/studio/presets')).data.length, 1, 'nothing deleted before the confirmation');
    await page.getByRole('button', { name: 'Delete for good' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted “Storyteller”.' }).waitFor(LONG);
    await page.getByText('No presets yet.').waitFor();
    assert.equal((await api<{ data: PresetRow[] }>(ownerToken, '/api/studio/presets')).data.length, 0);
    assert.equal((await api<{ data: PresetRow[] }>(memberToken, '/api/studio/presets')).data.length, 1, 'the fork stays');
    await owner.close();
    await other.close();
  });

  test('VIP: a slip the provider accepts makes the account VIP; a manual request shows as pending', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const account = await registerThroughUi(context, newName('buyer'));
    const token = await tokenOf(account.page);
    await account.page.close();
    const info = await api<{ plans: { plan_id: string; price: number; days: number }[] }>(token, '/api/studio/vip/info');
    const plan = info.plans[0]!;
    const vip = await openPage(context, `${p.url}/studio/vip`, DESKTOP);
    const { page } = vip;
    await page.getByRole('heading', { name: 'Pay by bank transfer' }).waitFor(LONG);
    assert.match((await page.locator('.vip-status').textContent()) ?? '', /You are not VIP\./);
    await checkPage(vip, 'studio-vip-desktop');
    const phone = await openPage(context, `${p.url}/studio/vip`, PHONE);
    await phone.page.getByRole('heading', { name: 'Pay by bank transfer' }).waitFor(LONG);
    await checkPage(phone, 'studio-vip-phone');
    // The dark scheme passes too (contrast of the CSS variables).
    await phone.page.emulateMedia({ colorScheme: 'dark' });
    await checkPage(phone, 'studio-vip-phone-dark');
    await phone.page.close();

    // The slip: genuine, the plan's amount -> approved, VIP until the new end.
    const image = slipImage();
    fake.register(image, { transRef: `TR${randomBytes(6).toString('hex')}`, amount: plan.price });
    await page.getByLabel('Plan', { exact: true }).first().selectOption(plan.plan_id);
    await page.getByLabel('Transfer slip').setInputFiles({ name: 'slip.png', mimeType: 'image/png', buffer: image });
    await page.getByRole('button', { name: 'Upload slip' }).click();
    const result = page.locator('.slip-result', { hasText: 'Payment verified' });
    await result.waitFor({ timeout: 60_000 });
    const me = await api<{ user: { vip: boolean; vip_until: string } }>(token, '/api/studio/auth/me');
    assert.equal(me.user.vip, true);
    const until = await page.evaluate((iso) => new Date(iso).toLocaleDateString(), me.user.vip_until);
    assert.equal(await result.textContent(), `Payment verified: you are VIP until ${until}.`);
    assert.ok(Date.parse(me.user.vip_until) - Date.now() > (plan.days - 1) * 86_400_000);
    await page.locator('.vip-status', { hasText: `VIP until ${until}` }).waitFor(LONG);
    await page.locator('table.studio-requests tbody tr', { hasText: 'Approved' }).waitFor();

    // A manual request: pending review.
    await page.getByLabel('Message').fill('Paid by invoice 2026-118.');
    await page.getByRole('button', { name: 'Send request' }).click();
    await page.getByRole('status').filter({ hasText: 'pending review by an administrator' }).waitFor(LONG);
    const pending = page.locator('table.studio-requests tbody tr', { hasText: 'Pending review' });
    await pending.waitFor(LONG);
    assert.match((await pending.textContent()) ?? '', /Message/);
    // A second one while the first waits: refused with its message.
    await page.getByLabel('Message').fill('Again.');
    await page.getByRole('button', { name: 'Send request' }).click();
    await page.getByRole('alert').filter({ hasText: 'You already have a VIP request waiting for review.' }).waitFor(LONG);
    await context.close();
  });

  test('log out, a wrong password is refused with its message, the right one logs in', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const name = newName('writer');
    const { page } = await registerThroughUi(context, name);
    const first = await tokenOf(page);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor(LONG);
    assert.equal(await tokenOf(page), '', 'the token is forgotten');
    assert.equal((await fetch(`${p.url}/api/studio/auth/me`, { headers: { 'x-studio-token': first } })).status, 401, 'the session ended');
    const phone = await openPage(context, `${p.url}/studio`, PHONE);
    await phone.page.getByRole('button', { name: 'Continue as a guest' }).waitFor(LONG);
    await checkPage(phone, 'studio-account-phone');
    await phone.page.close();

    await page.getByLabel('Username or email').fill(name);
    await page.locator('#login-password').fill('not the password at all');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong username, email or password.' }).waitFor(LONG);
    assert.equal(await tokenOf(page), '');
    await page.locator('#login-password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: `Signed in as ${name}` }).waitFor(LONG);
    assert.match(await tokenOf(page), /^sst_/);
    assert.equal(await page.getByRole('alert').first().textContent(), '', 'the error is cleared');
    await context.close();
  });
});
