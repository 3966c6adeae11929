/**
 * Secrets stay out of logs. The scan (tests/support/secret-scan.ts, run by scripts/test.sh over
 * every log line of the whole test run) recognises each credential format of the platform and the
 * tests' passwords, and not their public or masked forms; and a platform that logs at debug level
 * while it is handed every kind of credential (API keys good and bad, in each header that carries
 * one, the ElevenLabs socket with a key in its header and its opening message, the administrator
 * key, a speech WebSocket token (minted, used, reused), a
 * studio login with a password and a wrong one, a session, web job tokens in headers and URLs, a
 * challenge pass, a model-hub token) writes none of them in a log line.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { describe, test } from 'node:test';
import { WebSocket } from 'ws';
import { setLogLevel, setLogSink } from '@tts/common';
import { generateApiKey, solveChallenge } from '@tts/facade/testing';
import { findSecrets, type SECRET_PATTERNS, testLiterals } from './support/secret-scan.js';
import { postJson, startPlatform, waitFor } from './support/platform.js';
import { HandshakeRefused, SpeechSocket, speechSocketUrl } from './support/speech-socket.js';

describe('the secrets-in-logs scan', () => {
  test('finds every credential format and the tests\' passwords, not public prefixes or masks', () => {
    const key = generateApiKey();
    const samples: Record<keyof typeof SECRET_PATTERNS, string> = {
      api_key: key.apiKey,
      admin_key: `tts_admin_${'A1b2C3d4E5'.repeat(4)}xyz`,
      test_admin_key: `test-admin-${'0123456789abcdef'.repeat(2)}`,
      studio_session: `sst_${'Zz09'.repeat(10)}abc`,
      job_token: `job_0123456789.1767225600.${'a'.repeat(43)}`,
      challenge_pass: `p1.AbCdEfGhIjKlMnOp.1767225600.${'Q'.repeat(43)}`,
      hub_token: 'hf_validTokenForTests0123456789',
      stream_token: `wst_${'a-Z_9'.repeat(8)}xyz`,
    };
    for (const [kind, secret] of Object.entries(samples)) {
      const found = findSecrets(`{"msg":"request","x":"${secret}"}\n`, 'sample.log');
      // (A pass has the shape of a job token too: both are found.)
      assert.ok(found.some((f) => f.kind === kind), `${kind}: ${found.map((f) => f.kind).join(', ')}`);
      assert.ok(!found[0]!.masked.includes(secret.slice(8)), 'printed masked');
    }
    const harmless = [key.prefix, 'hf_****6789', 'tts_admin_', `key ${key.keyId}`, 'job_0123456789', '{"msg":"ok","request_id":"1f6c2d7e-5b2a-4c8e-9d3f-0a1b2c3d4e5f"}'];
    assert.deepEqual(findSecrets(harmless.join('\n'), 'harmless.log'), []);
    // The administrator key a first embedded start prints once to its terminal (not a log record).
    assert.deepEqual(findSecrets(`Administrator key (shown once; stored in /data/admin-key): ${samples.admin_key}`, 'launcher.log'), []);
    assert.equal(findSecrets(`{"msg":"Administrator key (shown once; stored in /data/admin-key): ${samples.admin_key}"}`, 'launcher.log').length, 1);

    const literals = testLiterals([readFileSync(new URL('./studio-api.test.ts', import.meta.url), 'utf8'), "const s = { password: 'short' , new_password: 'a long enough one' };"]);
    assert.ok(literals.includes('purple elephants dance at noon'), literals.join(' | '));
    assert.ok(literals.includes('a long enough one') && !literals.includes('short'));
    assert.equal(findSecrets('login failed for purple elephants dance at noon', 'l.log', literals)[0]?.kind, 'test_literal');
  });
});

describe('a platform logging at debug level writes no credential it is handed', () => {
  test('keys, passwords, sessions, job tokens, passes and the hub token stay out of every line', { timeout: 120_000 }, async () => {
    const lines: string[] = [];
    setLogLevel('debug');
    setLogSink((line) => lines.push(line));
    const p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt' }, facade: { defaultVoice: 'flite:slt', challengeDifficulty: 4, logLevel: 'debug' } });
    const handed: string[] = [p.adminKey, p.apiKey];
    try {
      await waitFor(async () => ((await (await fetch(`${p.url}/v1/audio/voices`)).json()) as { voices: unknown[] }).voices.length > 0, 30_000, 'voices');
      const admin = { 'x-admin-key': p.adminKey };
      const url = (path: string): string => `${p.url}${path}`;
      // API keys: right, wrong (a well-formed key of no one), as a bearer token, in a query string.
      const stranger = generateApiKey().apiKey;
      handed.push(stranger);
      assert.equal((await p.post('/api/tts', { text: 'Logged, not leaked.', voice: 'flite:slt' })).status, 200);
      assert.equal((await postJson(url('/api/tts'), { text: 'A stranger.' }, { 'x-api-key': stranger })).status, 401);
      assert.equal((await postJson(url('/v1/audio/speech'), { model: 'tts-1', input: 'Bearer.', voice: 'flite:slt' }, { authorization: `Bearer ${stranger}` })).status, 401);
      // ElevenLabs' header, right and wrong.
      assert.equal((await postJson(url('/v1/text-to-speech/flite:slt?output_format=pcm_16000'), { text: 'Eleven.' }, { 'xi-api-key': p.apiKey })).status, 200);
      assert.equal((await postJson(url('/v1/text-to-speech/flite:slt/stream'), { text: 'Eleven.' }, { 'xi-api-key': stranger })).status, 401);
      // ElevenLabs' socket: the key in the header (and a key in the opening message, which is not read), then a wrong key.
      const wsUrl = `${p.url.replace(/^http/, 'ws')}/v1/text-to-speech/flite:slt/stream-input?output_format=pcm_16000`;
      const eleven = new WebSocket(wsUrl, { headers: { 'xi-api-key': p.apiKey } });
      eleven.on('error', () => undefined);
      await once(eleven, 'open');
      for (const m of [{ text: ' ', xi_api_key: stranger }, { text: 'Eleven socket. ' }, { text: '' }]) eleven.send(JSON.stringify(m));
      assert.equal((await once(eleven, 'close'))[0], 1000);
      const refused = new WebSocket(wsUrl, { headers: { 'xi-api-key': stranger } });
      refused.on('error', () => undefined);
      const [, answer] = (await once(refused, 'unexpected-response')) as [unknown, IncomingMessage];
      assert.equal(answer.statusCode, 401);
      answer.resume();
      await (await fetch(url(`/api/jobs/nope?api_key=${stranger}`))).arrayBuffer();
      await (await fetch(url('/api/auth/keys'), { headers: { 'x-admin-key': `${p.adminKey}x` } })).arrayBuffer();
      // Studio: register with a password, log in wrongly and rightly, use the session.
      const password = 'purple elephants dance at noon';
      const registered = await postJson(url('/api/studio/auth/register'), { username: `leak${Date.now() % 1_000_000}`, password });
      assert.equal(registered.status, 201, await registered.clone().text());
      const { token: session, user } = (await registered.json()) as { token: string; user: { username: string } };
      handed.push(session);
      assert.equal((await postJson(url('/api/studio/auth/login'), { login: user.username, password: 'not my password at all' })).status, 401);
      const login = await postJson(url('/api/studio/auth/login'), { login: user.username, password });
      assert.equal(login.status, 200);
      handed.push(((await login.json()) as { token: string }).token);
      assert.equal((await fetch(url('/api/studio/auth/me'), { headers: { 'x-studio-token': session } })).status, 200);
      // A challenge pass, and a web job whose token goes in a header and in URLs.
      const issued = (await (await fetch(url('/api/auth/challenge'))).json()) as { challenge: string; difficulty_bits: number };
      const pass = await fetch(url('/api/auth/challenge'), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ challenge: issued.challenge, solution: solveChallenge(issued.challenge, issued.difficulty_bits) }).toString(),
      });
      const cookie = (pass.headers.get('set-cookie') ?? '').split(';')[0]!;
      handed.push(cookie.split('=')[1]!);
      const web = await fetch(url('/api/web/jobs/tts'), { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ text: 'A web job.', voice: 'flite:slt' }).toString() });
      assert.equal(web.status, 200, await web.clone().text());
      const { job_id: jobId, job_token: token } = (await web.json()) as { job_id: string; job_token: string };
      handed.push(token);
      await waitFor(async () => ((await (await fetch(url(`/api/web/jobs/${jobId}?token=${encodeURIComponent(token)}`))).json()) as { status: string }).status === 'completed', 30_000, 'web job');
      assert.equal((await fetch(url(`/api/web/jobs/${jobId}/audio`), { headers: { 'x-job-token': token } })).status, 200);
      assert.equal((await fetch(url(`/api/web/jobs/${jobId}/audio?token=${encodeURIComponent(`${token}x`)}`))).status, 403);
      // A speech WebSocket token: minted, used in the socket's URL, used again (refused); and a made-up one.
      const minted = await fetch(url('/v1/audio/speech/stream/tokens'), { method: 'POST', headers: { 'x-api-key': p.apiKey } });
      assert.equal(minted.status, 201);
      const { token: streamToken } = (await minted.json()) as { token: string };
      handed.push(streamToken);
      const socket = await SpeechSocket.open(speechSocketUrl(p.url, streamToken));
      socket.send({ type: 'session.start', model: 'tts-1', voice: 'flite:slt', response_format: 'wav' });
      socket.send({ type: 'text', text: 'A socket.' });
      socket.send({ type: 'close' });
      assert.equal((await socket.untilClosed()).code, 1000);
      for (const t of [streamToken, `wst_${'Q'.repeat(43)}`]) {
        const refused = await SpeechSocket.open(speechSocketUrl(p.url, t)).then(() => undefined, (e: unknown) => e);
        assert.ok(refused instanceof HandshakeRefused && refused.status === 401);
      }
      handed.push(`wst_${'Q'.repeat(43)}`);
      // The model-hub token (the hub is unreachable: stored or refused, never logged).
      const hubToken = 'hf_validTokenForTests0123456789';
      handed.push(hubToken);
      await (await postJson(url('/api/hub/token'), { token: hubToken }, admin)).arrayBuffer();
      await (await postJson(url('/api/hub/token/validate'), { token: hubToken }, admin)).arrayBuffer();
    } finally {
      await p.stop();
      setLogLevel('info');
    }
    const text = lines.join('\n');
    // The lines of the requests were captured (the logger sees request ids in context).
    for (const msg of ['"studio login"', '"job submitted"', '"facade listening"']) assert.ok(text.includes(msg), `${msg} in ${lines.length} lines`);
    const leaked = handed.filter((secret) => text.includes(secret));
    assert.deepEqual(leaked.map((s) => `${s.slice(0, 6)}…`), [], 'a credential in a log line');
    assert.deepEqual(findSecrets(text, 'platform', [handed[handed.length - 1]!, 'purple elephants dance at noon', 'not my password at all']), []);
  });
});
