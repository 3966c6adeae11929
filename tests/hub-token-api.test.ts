/**
 * The model-hub token over REST against a real platform and a local fake hub (an external
 * service): validation (valid, invalid, slow past the timeout, unreachable), encrypted storage
 * that never returns the token, status, clearing, and a different key not reading it back.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { postJson, startPlatform, type TestPlatform } from './support/platform.js';

const VALID = 'hf_validTokenForTests0123456789';
const SLOW = 'hf_slowTokenForTests0123456789x';

describe('model-hub token API', () => {
  let hub: Server;
  let hubUrl = '';
  let p: TestPlatform;
  let seen: string[] = [];

  before(async () => {
    hub = createServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      seen.push(`${req.method} ${req.url} ${auth.slice(0, 10)}`);
      if (req.url !== '/api/whoami-v2') return void res.writeHead(404).end();
      if (auth === `Bearer ${VALID}`) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'user', name: 'test-account' }));
      if (auth === `Bearer ${SLOW}`) return void setTimeout(() => res.writeHead(200).end('{}'), 2500);
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Invalid credentials in Authorization header"}');
    });
    await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', () => resolve()));
    hubUrl = `http://127.0.0.1:${(hub.address() as { port: number }).port}`;
    p = await startPlatform({ facade: { hubUrl } });
  });
  after(async () => {
    await p.stop();
    hub.closeAllConnections();
    await new Promise<void>((resolve) => hub.close(() => resolve()));
  });
  const admin = (): Record<string, string> => ({ 'x-admin-key': p.adminKey });
  const status = async (query = ''): Promise<Record<string, unknown> & { validation: Record<string, unknown> | null }> =>
    (await (await fetch(`${p.url}/api/hub/token/status${query}`, { headers: admin() })).json()) as Record<string, unknown> & { validation: Record<string, unknown> | null };

  test('validate: valid, invalid, slower than the timeout', async () => {
    const check = async (token: string, timeout = 6): Promise<Record<string, unknown>> => {
      const res = await postJson(`${p.url}/api/hub/token/validate`, { token, timeout_sec: timeout }, admin());
      assert.equal(res.status, 200);
      return (await res.json()) as Record<string, unknown>;
    };
    const ok = await check(VALID);
    assert.deepEqual([ok.valid, ok.account, ok.http_status, ok.error_code, ok.stored], [true, 'test-account', 200, null, false]);
    assert.equal(ok.masked, `hf_****${VALID.slice(-4)}`);
    const bad = await check('hf_wrongTokenForTests012345678');
    assert.deepEqual([bad.valid, bad.http_status, bad.error_code], [false, 401, 'HUB_TOKEN_INVALID']);
    const slow = await check(SLOW, 1);
    assert.deepEqual([slow.valid, slow.error_code], [null, 'HUB_TIMEOUT']);
    assert.ok((slow.latency_ms as number) < 2000, `gave up after ${String(slow.latency_ms)} ms`);
    const missing = await postJson(`${p.url}/api/hub/token/validate`, {}, admin());
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { code: string }).code, 'HUB_TOKEN_NOT_SET');
    const range = await fetch(`${p.url}/api/hub/token/status?timeout_sec=31`, { headers: admin() });
    assert.equal(range.status, 422);
  });

  test('set: validated first, stored encrypted, never returned; status and clear', async () => {
    const refused = await postJson(`${p.url}/api/hub/token`, { token: 'hf_wrongTokenForTests012345678' }, admin());
    assert.equal(refused.status, 422);
    assert.equal(((await refused.json()) as { code: string }).code, 'HUB_TOKEN_INVALID');
    const slow = await postJson(`${p.url}/api/hub/token`, { token: SLOW, timeout_sec: 1 }, admin());
    assert.equal(slow.status, 504);
    assert.equal((await status()).configured, false, 'nothing stored after a refusal or a timeout');

    const set = await postJson(`${p.url}/api/hub/token`, { token: VALID }, admin());
    const text = await set.text();
    assert.equal(set.status, 200, text);
    assert.ok(!text.includes(VALID), 'the token is never returned');
    const body = JSON.parse(text) as { configured: boolean; masked: string; validation: { valid: boolean } };
    assert.deepEqual([body.configured, body.masked, body.validation.valid], [true, `hf_****${VALID.slice(-4)}`, true]);

    const rows = await p.facade.deps.access.database.query<Record<string, unknown>>('SELECT * FROM hub_token');
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows).includes(VALID.slice(3)), 'encrypted at rest');
    assert.equal(await p.facade.deps.hubToken.token(), VALID, 'the model manager gets it back');

    seen = [];
    const now = await status('?validate=true&timeout_sec=2');
    assert.equal(now.validation?.['valid'], true);
    assert.equal(seen.length, 1, 'validated against the hub once');
    assert.equal((await status()).decryptable, true);
    assert.ok(!JSON.stringify(await status()).includes(VALID));
    const stored = (await (await postJson(`${p.url}/api/hub/token/validate`, {}, admin())).json()) as { stored: boolean; valid: boolean };
    assert.deepEqual([stored.stored, stored.valid], [true, true]);

    const del = await fetch(`${p.url}/api/hub/token`, { method: 'DELETE', headers: admin() });
    assert.deepEqual(await del.json(), { ok: true, deleted: true, configured: false });
    assert.equal((await status()).configured, false);
    assert.equal((await p.get('/api/hub/token/status')).status, 403, 'administrators only');
  });

  test('a facade with another key cannot read the stored token', async () => {
    assert.equal((await postJson(`${p.url}/api/hub/token`, { token: VALID, validate: false }, admin())).status, 200);
    const other = await startPlatform({ facade: { hubUrl, dbSchema: p.facade.deps.config.dbSchema, hubTokenKey: randomBytes(32).toString('hex') } });
    try {
      const s = (await (await fetch(`${other.url}/api/hub/token/status`, { headers: { 'x-admin-key': other.adminKey } })).json()) as { configured: boolean; decryptable: boolean };
      assert.deepEqual([s.configured, s.decryptable], [true, false]);
      const v = await postJson(`${other.url}/api/hub/token/validate`, {}, { 'x-admin-key': other.adminKey });
      assert.equal(v.status, 409);
      assert.equal(((await v.json()) as { code: string }).code, 'HUB_TOKEN_UNDECRYPTABLE');
    } finally {
      await other.stop();
    }
  });
});
