/**
 * Studio passwords found in a breach corpus are refused (422 STUDIO_PASSWORD_BREACHED) through the
 * Have I Been Pwned range API, here a local fake on 127.0.0.1: only the 5-hex-digit SHA-1 prefix
 * leaves the facade, with `Add-Padding: true`; a provider that fails or hangs lets the password
 * through on the other checks (registration never depends on it); with the default
 * (TTS_PWNED_PASSWORDS_URL=none) the facade sends nothing anywhere.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { loadFacadeConfig } from '@tts/facade';
import { pwnedSha1, startFakePwnedPasswords, type FakePwnedPasswords } from '@tts/facade/testing';
import type { Logger } from '@tts/common';
import { postJson, startLoneFacade, type LoneFacade } from './support/platform.js';

const BREACHED = 'correct horse battery staple';
/** A strong password in no corpus: random each run. */
const strong = (): string => `quiet ${randomBytes(6).toString('hex')} lanterns ${randomBytes(4).toString('hex')}`;

interface LogLine { level: string; msg: string; fields: Record<string, unknown> | undefined }
function capturingLogger(lines: LogLine[], base: Record<string, unknown> = {}): Logger {
  const log = (level: string) => (msg: string, fields?: Record<string, unknown>): void => void lines.push({ level, msg, fields: { ...base, ...fields } });
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error'), child: (fields) => capturingLogger(lines, { ...base, ...fields }) };
}

let n = 0;
const username = (): string => `pw${++n}${randomBytes(3).toString('hex')}`;
const code = async (res: Response): Promise<string> => ((await res.clone().json()) as { code: string }).code;

describe('breached passwords (TTS_PWNED_PASSWORDS_URL)', () => {
  let fake: FakePwnedPasswords;
  let f: LoneFacade;
  const logs: LogLine[] = [];
  const register = (password: string): Promise<Response> => postJson(`${f.url}/api/studio/auth/register`, { username: username(), password });

  before(async () => {
    fake = await startFakePwnedPasswords({ [BREACHED]: 3_645_804 });
    f = await startLoneFacade({ pwnedPasswordsUrl: fake.url, pwnedPasswordsTimeoutMs: 500, logger: capturingLogger(logs) });
  });
  after(async () => {
    await f?.stop();
    await fake?.close();
  });

  test('registering or changing to a breached password: 422 STUDIO_PASSWORD_BREACHED; a strong one passes', async () => {
    fake.mode = 'ok';
    const refused = await register(BREACHED);
    assert.equal(refused.status, 422, await refused.clone().text());
    assert.equal(await code(refused), 'STUDIO_PASSWORD_BREACHED');

    const password = strong();
    const ok = await register(password);
    assert.equal(ok.status, 201, await ok.clone().text());
    const { token } = (await ok.json()) as { token: string };

    const change = (next: string): Promise<Response> => postJson(`${f.url}/api/studio/auth/password`, { current_password: password, new_password: next }, { 'x-studio-token': token });
    const changeRefused = await change(BREACHED);
    assert.equal(changeRefused.status, 422, await changeRefused.clone().text());
    assert.equal(await code(changeRefused), 'STUDIO_PASSWORD_BREACHED');
    const changed = await change(strong());
    assert.equal(changed.status, 200, await changed.clone().text());
  });

  test('only the upper-case 5-hex-digit prefix leaves the facade, with Add-Padding: true', async () => {
    assert.ok(fake.requests.length >= 4, `the fake saw ${fake.requests.length} requests`);
    for (const r of fake.requests) {
      assert.equal(r.method, 'GET');
      assert.match(r.path, /^\/range\/[0-9A-F]{5}$/);
      assert.equal(r.addPadding, 'true');
    }
    assert.ok(fake.requests.some((r) => r.path === `/range/${pwnedSha1(BREACHED).slice(0, 5)}`));
  });

  for (const mode of ['error', 'reset', 'hang'] as const) {
    test(`a provider that ${mode === 'hang' ? 'never answers' : mode === 'error' ? 'answers 500' : 'drops the connection'}: registration still succeeds, logged at warn without the prefix`, async () => {
      fake.mode = mode;
      const seen = fake.requests.length;
      const from = logs.length;
      const started = Date.now();
      const res = await register(BREACHED);
      const elapsed = Date.now() - started;
      fake.mode = 'ok';
      assert.equal(res.status, 201, await res.clone().text());
      assert.ok(fake.requests.length > seen, 'the provider was asked');
      // The time-out is 500 ms; a hanging provider would otherwise hold the request for minutes.
      assert.ok(elapsed < 5000, `registration took ${elapsed} ms`);
      const warnings = logs.slice(from).filter((l) => l.level === 'warn');
      assert.ok(warnings.some((l) => /breach/i.test(l.msg)), JSON.stringify(logs.slice(from)));
      const text = JSON.stringify(logs);
      assert.ok(!text.includes(pwnedSha1(BREACHED).slice(0, 5)), 'a log line carries the hash prefix');
      assert.ok(!text.includes(BREACHED), 'a log line carries the password');
    });
  }
});

describe('breached passwords off by default', () => {
  test('TTS_PWNED_PASSWORDS_URL defaults to none; a URL is validated', () => {
    assert.equal(loadFacadeConfig({}).pwnedPasswordsUrl, undefined);
    assert.equal(loadFacadeConfig({ TTS_PWNED_PASSWORDS_URL: 'none' }).pwnedPasswordsUrl, undefined);
    assert.equal(loadFacadeConfig({ TTS_PWNED_PASSWORDS_URL: 'https://api.pwnedpasswords.com/' }).pwnedPasswordsUrl, 'https://api.pwnedpasswords.com');
    assert.equal(loadFacadeConfig({}).pwnedPasswordsTimeoutMs, 2000);
    for (const bad of ['api.pwnedpasswords.com', 'ftp://example.org', 'https://example.org/?q=1']) {
      assert.throws(() => loadFacadeConfig({ TTS_PWNED_PASSWORDS_URL: bad }), /TTS_PWNED_PASSWORDS_URL/);
    }
  });

  test('with the default, registering sends no request off the facade', async () => {
    const f = await startLoneFacade({});
    const outbound: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      const target = input instanceof Request ? input.url : String(input);
      if (!target.startsWith(f.url)) outbound.push(target);
      return realFetch(input, init);
    };
    try {
      const res = await postJson(`${f.url}/api/studio/auth/register`, { username: username(), password: BREACHED });
      assert.equal(res.status, 201, await res.clone().text());
    } finally {
      globalThis.fetch = realFetch;
      await f.stop();
    }
    assert.deepEqual(outbound, []);
  });
});
