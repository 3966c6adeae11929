/**
 * Hardening of the facade's HTTP answers, against a really started platform: `nosniff` on every
 * answer (API, errors, 404s, the web application), `Cache-Control: private, no-store` on audio
 * (a key's, streamed, server-sent events, a job's, a web job's with its token in the URL) and on
 * answers carrying secrets, public answers cacheable, the web page's Content-Security-Policy and
 * Referrer-Policy; the challenge pass cookie `Secure` over HTTPS (a trusted proxy's
 * `X-Forwarded-Proto`) or when configured, and not otherwise; the CORS policy: same origin only
 * by default, the configured origins without credentials, with the documented headers exposed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError } from '@tts/common';
import { CORS_EXPOSED_HEADERS, parseCorsOrigins, parseTrustedProxies, type FacadeStartOptions } from '@tts/facade';
import { solveChallenge } from '@tts/facade/testing';
import { postJson, startLoneFacade, startPlatform, waitFor, type LoneFacade, type TestPlatform } from './support/platform.js';

const NO_STORE = 'private, no-store';

/** Reads the body (so the connection is reused) and returns the response. */
async function drained(res: Response): Promise<Response> {
  await res.arrayBuffer();
  return res;
}

describe('security headers and caching', () => {
  let p: TestPlatform;
  before(async () => {
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt', challengeDifficulty: 4 } });
    await waitFor(async () => ((await (await fetch(`${p.url}/v1/audio/voices`)).json()) as { voices: unknown[] }).voices.length > 0, 30_000, 'voices');
  });
  after(async () => {
    await p?.stop();
  });

  test('nosniff on every answer: API, errors, 404s, the web page and its assets', async () => {
    const page = await fetch(`${p.url}/`);
    const html = await page.text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(asset, 'the page names its script');
    const answers = [
      await drained(await fetch(`${p.url}/api/health`)),
      await drained(await fetch(`${p.url}/api/no-such-operation`)),
      await drained(await postJson(`${p.url}/api/tts`, { text: 'No credential.' })),
      await drained(await p.post('/api/tts', { text: 42 })),
      await drained(await postJson(`${p.url}/v1/audio/speech`, { model: 'tts-1', input: 'Hi.', voice: 'alloy' }, { authorization: 'Bearer wrong' })),
      page,
      await drained(await fetch(`${p.url}${asset}`)),
      await drained(await fetch(`${p.url}/favicon.svg`)),
    ];
    assert.deepEqual(answers.map((r) => r.status), [200, 404, 401, 422, 401, 200, 200, 200]);
    for (const r of answers) assert.equal(r.headers.get('x-content-type-options'), 'nosniff', r.url);
  });

  test('API answers are not stored and send no referrer; errors neither', async () => {
    for (const r of [
      await drained(await fetch(`${p.url}/api/health`)),
      await drained(await fetch(`${p.url}/api/no-such-operation`)),
      await drained(await postJson(`${p.url}/api/tts`, { text: 'No credential.' })),
      await drained(await p.get('/api/jobs/no-such-job')),
    ]) {
      assert.equal(r.headers.get('cache-control'), NO_STORE, `${r.url} ${r.status}`);
      assert.equal(r.headers.get('referrer-policy'), 'no-referrer', r.url);
    }
    // A public, caller-independent answer keeps its own policy.
    const terms = await drained(await fetch(`${p.url}/api/compliance/terms`));
    assert.equal(terms.headers.get('cache-control'), 'public, max-age=300');
  });

  test('audio is never stored: whole, streamed, server-sent events, a job\'s, a web job\'s with its token in the URL', async () => {
    const whole = await p.post('/api/tts', { text: 'Audio for no cache.', voice: 'flite:slt' });
    const streamed = await p.post('/v1/audio/speech', { model: 'tts-1', input: 'Streamed audio.', voice: 'flite:slt', response_format: 'wav' });
    const events = await p.post('/v1/audio/speech', { model: 'tts-1', input: 'Audio as events.', voice: 'flite:slt', stream_format: 'sse' });
    for (const r of [whole, streamed, events]) {
      assert.equal(r.status, 200, await r.clone().text());
      assert.equal(r.headers.get('cache-control'), NO_STORE, r.url);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
      await r.arrayBuffer();
    }
    assert.match(events.headers.get('content-type') ?? '', /^text\/event-stream/);

    const submitted = await p.post('/api/jobs/tts', { text: 'A job of no cache.', voice: 'flite:slt' });
    assert.equal(submitted.status, 202);
    const { job_id: jobId } = (await submitted.json()) as { job_id: string };
    const web = await fetch(`${p.url}/api/web/jobs/tts`, { method: 'POST', headers: { 'x-api-key': p.apiKey, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ text: 'A web job of no cache.', voice: 'flite:slt' }).toString() });
    assert.equal(web.status, 200);
    assert.equal(web.headers.get('cache-control'), NO_STORE, 'the job token is a secret');
    const { job_id: webJobId, job_token: token } = (await web.json()) as { job_id: string; job_token: string };
    await waitFor(async () => {
      const a = (await (await p.get(`/api/jobs/${jobId}`)).json()) as { status: string };
      const b = (await (await fetch(`${p.url}/api/web/jobs/${webJobId}?token=${encodeURIComponent(token)}`)).json()) as { status: string };
      return a.status === 'completed' && b.status === 'completed';
    }, 30_000, 'both jobs completed');
    const jobAudio = await p.get(`/api/jobs/${jobId}/audio`);
    const webAudio = await fetch(`${p.url}/api/web/jobs/${webJobId}/audio?token=${encodeURIComponent(token)}`);
    for (const r of [jobAudio, webAudio]) {
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^audio\//);
      assert.equal(r.headers.get('cache-control'), NO_STORE, r.url);
      assert.equal(r.headers.get('referrer-policy'), 'no-referrer', 'the token in the URL goes nowhere else');
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
      await r.arrayBuffer();
    }
  });

  test('answers carrying secrets are never stored: keys, sessions, passes, the hub token status', async () => {
    const admin = { 'x-admin-key': p.adminKey };
    const created = await postJson(`${p.url}/api/auth/keys`, { name: 'no-cache' }, admin);
    assert.equal(created.status, 201);
    const { key_id: keyId } = (await created.json()) as { key_id: string };
    const guest = await fetch(`${p.url}/api/studio/auth/guest`, { method: 'POST' });
    assert.equal(guest.status, 201);
    const { token: session } = (await guest.json()) as { token: string };
    const issued = await fetch(`${p.url}/api/auth/challenge`);
    const challenge = (await issued.clone().json()) as { challenge: string; difficulty_bits: number };
    const pass = await fetch(`${p.url}/api/auth/challenge`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ challenge: challenge.challenge, solution: solveChallenge(challenge.challenge, challenge.difficulty_bits) }).toString(),
    });
    assert.equal(pass.status, 200);
    const answers = [
      created,
      issued,
      pass,
      guest,
      await fetch(`${p.url}/api/auth/keys`, { headers: admin }),
      await fetch(`${p.url}/api/auth/keys/${keyId}`, { method: 'PATCH', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'renamed' }) }),
      await fetch(`${p.url}/api/hub/token/status`, { headers: admin }),
      await fetch(`${p.url}/api/studio/auth/me`, { headers: { 'x-studio-token': session } }),
    ];
    for (const r of answers) {
      assert.ok(r.status < 300, `${r.url} ${r.status}`);
      assert.equal(r.headers.get('cache-control'), NO_STORE, `${r.url} ${r.status}`);
      await r.arrayBuffer().catch(() => undefined);
    }
  });

  test('the web page: a strict Content-Security-Policy, revalidated, same-origin referrers', async () => {
    const res = await drained(await fetch(`${p.url}/studio`));
    assert.equal(res.status, 200);
    const csp = (res.headers.get('content-security-policy') ?? '').split(';').map((d) => d.trim());
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'self'", "worker-src 'self'"]) {
      assert.ok(csp.includes(directive), `${directive} in ${csp.join('; ')}`);
    }
    assert.ok(!csp.some((d) => /unsafe-inline|unsafe-eval|\*/.test(d)), csp.join('; '));
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal(res.headers.get('referrer-policy'), 'same-origin');
  });

  test('CORS by default: same origin only, no CORS header for another origin, preflight refused', async () => {
    const origin = { origin: 'https://elsewhere.example' };
    const simple = await drained(await fetch(`${p.url}/api/health`, { headers: origin }));
    assert.equal(simple.status, 200);
    assert.equal(simple.headers.get('access-control-allow-origin'), null);
    const preflight = await drained(await fetch(`${p.url}/v1/audio/speech`, { method: 'OPTIONS', headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } }));
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    assert.equal(preflight.headers.get('access-control-allow-methods'), null);
    assert.ok(preflight.status >= 400, `preflight answered ${preflight.status}`);
  });
});

/** A facade alone (the challenge and the health need no scheduler) with `options`. */
const facadeWith = (options: FacadeStartOptions): Promise<LoneFacade> => startLoneFacade({ challengeDifficulty: 4, ...options });

/** The Set-Cookie of a redeemed challenge pass, the request carrying `headers`. */
async function passCookieOf(url: string, headers: Record<string, string>): Promise<string> {
  const issued = (await (await fetch(`${url}/api/auth/challenge`, { headers })).json()) as { challenge: string; difficulty_bits: number };
  const res = await fetch(`${url}/api/auth/challenge`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ challenge: issued.challenge, solution: solveChallenge(issued.challenge, issued.difficulty_bits) }).toString(),
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  return res.headers.get('set-cookie') ?? '';
}

const attributes = (cookie: string): string[] => cookie.split(';').map((a) => a.trim().toLowerCase());

describe('the pass cookie is Secure over HTTPS', () => {
  const https = { 'x-forwarded-proto': 'https' };

  test('behind a trusted proxy: Secure when the proxy says HTTPS, not over plain HTTP', async () => {
    const f = await facadeWith({ trustedProxies: parseTrustedProxies('127.0.0.1') });
    try {
      const overHttps = attributes(await passCookieOf(f.facade.url, https));
      assert.ok(overHttps.includes('secure'), overHttps.join('; '));
      assert.ok(overHttps.includes('httponly') && overHttps.includes('samesite=lax'));
      const overHttp = attributes(await passCookieOf(f.facade.url, {}));
      assert.ok(overHttp.length > 1 && !overHttp.includes('secure'), overHttp.join('; '));
    } finally {
      await f.stop();
    }
  });

  test('an untrusted X-Forwarded-Proto is ignored; TTS_SECURE_COOKIES makes every pass Secure', async () => {
    const untrusted = await facadeWith({});
    try {
      const forged = attributes(await passCookieOf(untrusted.facade.url, https));
      assert.ok(forged.length > 1 && !forged.includes('secure'), forged.join('; '));
    } finally {
      await untrusted.stop();
    }
    const configured = await facadeWith({ secureCookies: true });
    try {
      const plain = attributes(await passCookieOf(configured.facade.url, {}));
      assert.ok(plain.includes('secure'), plain.join('; '));
    } finally {
      await configured.stop();
    }
  });
});

describe('CORS with TTS_CORS_ORIGINS', () => {
  const allowed = 'https://app.example';
  let f: LoneFacade;
  before(async () => {
    f = await facadeWith({ corsOrigins: parseCorsOrigins(`${allowed}, http://localhost:5173`) });
  });
  after(async () => {
    await f?.stop();
  });

  test('an allowed origin reads answers and the documented headers, without credentials', async () => {
    const res = await drained(await fetch(`${f.facade.url}/api/health`, { headers: { origin: allowed } }));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), allowed);
    assert.equal(res.headers.get('access-control-allow-credentials'), null);
    assert.match(res.headers.get('vary') ?? '', /\borigin\b/i);
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
    for (const h of ['x-request-id', 'retry-after', 'ratelimit-remaining', 'x-tts-voice', 'x-quota-stage']) assert.ok(exposed.includes(h), `${h} exposed`);
    assert.equal(exposed.length, CORS_EXPOSED_HEADERS.length);
    // Errors too: a cross-origin client reads the error body and its request id.
    const refused = await drained(await fetch(`${f.facade.url}/api/auth/keys`, { headers: { origin: allowed } }));
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('access-control-allow-origin'), allowed);
  });

  test('a preflight from an allowed origin: 204, methods and request headers, not the admin key', async () => {
    const res = await drained(await fetch(`${f.facade.url}/v1/audio/speech`, { method: 'OPTIONS', headers: { origin: allowed, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } }));
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), allowed);
    assert.equal(res.headers.get('access-control-allow-credentials'), null);
    assert.match(res.headers.get('access-control-allow-methods') ?? '', /\bPOST\b/);
    const headers = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',').map((h) => h.trim());
    for (const h of ['authorization', 'content-type', 'x-api-key']) assert.ok(headers.includes(h), `${h} allowed`);
    assert.ok(!headers.includes('x-admin-key'), 'administration is never cross-origin');
    assert.equal(res.headers.get('access-control-max-age'), '600');
  });

  test('another origin gets no CORS header; the variable is validated', async () => {
    const other = await drained(await fetch(`${f.facade.url}/api/health`, { headers: { origin: 'https://app.example.evil' } }));
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    const preflight = await drained(await fetch(`${f.facade.url}/api/health`, { method: 'OPTIONS', headers: { origin: 'http://app.example', 'access-control-request-method': 'GET' } }));
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    assert.deepEqual(parseCorsOrigins(undefined), []);
    assert.deepEqual(parseCorsOrigins(' https://a.example/ ,https://a.example,http://127.0.0.1:8080'), ['https://a.example', 'http://127.0.0.1:8080']);
    for (const bad of ['*', 'https://a.example/path', 'a.example', 'ftp://a.example', 'https://*.example']) {
      assert.throws(() => parseCorsOrigins(bad), (err: unknown) => err instanceof ConfigError && err.message.includes('TTS_CORS_ORIGINS'), bad);
    }
  });
});
