/**
 * The platform's speech WebSocket (issue 31, item 4; barge-in and limits of items 5-6) on a real
 * platform (scheduler, one flite node, the facade with PostgreSQL and Redis), with the `ws` package
 * as the client: a token minted by a key opens a session; settings then text in two-word pieces
 * give audio frames that decode and word timings; cancel stops a context's audio and frees the
 * node's slot; every bad input gets a documented answer and no session leaks (the node's session
 * count goes back to 0); refusals before the handshake are HTTP answers.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { onLog, type LogRecord } from '@tts/common';
import { StreamTokens } from '@tts/facade/testing';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';
import { assertSpeech, inspectClip } from './support/audio.js';
import { HandshakeRefused, SpeechSocket, speechSocketUrl } from './support/speech-socket.js';

const START = { type: 'session.start', model: 'tts-1', voice: 'flite:slt', response_format: 'wav', word_timestamps: true };

describe('the speech WebSocket (GET /v1/audio/speech/stream)', { timeout: 300_000 }, () => {
  let p: TestPlatform;

  before(async () => {
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt', fliteWorkers: 1 }, facade: { defaultVoice: 'flite:slt' } });
  });

  after(async () => {
    await p.stop();
  });

  afterEach(async () => {
    // No test leaves a session behind on the node.
    await waitFor(() => p.nodes[0]!.context.admission.sessions() === 0, 10_000, 'the node\'s sessions back to 0');
  });

  async function mint(apiKey = p.apiKey): Promise<{ token: string; expires_at: number }> {
    const res = await fetch(`${p.url}/v1/audio/speech/stream/tokens`, { method: 'POST', headers: { 'x-api-key': apiKey } });
    assert.equal(res.status, 201, await res.clone().text());
    assert.equal(res.headers.get('cache-control'), 'no-store');
    return (await res.json()) as { token: string; expires_at: number };
  }

  async function started(headers: Record<string, string> = { 'x-api-key': p.apiKey }, start: Record<string, unknown> = START): Promise<SpeechSocket> {
    const s = await SpeechSocket.open(speechSocketUrl(p.url), headers);
    s.send(start);
    await s.until((x) => x.messages('session.started').length === 1, 'session.started');
    return s;
  }

  async function refusal(url: string, headers: Record<string, string> = {}): Promise<HandshakeRefused> {
    const err = await SpeechSocket.open(url, headers).then((s) => {
      s.close();
      return undefined;
    }, (e: unknown) => e);
    assert.ok(err instanceof HandshakeRefused, `the handshake was refused (${String(err)})`);
    return err;
  }

  test('a minted token opens a session; text in two-word pieces gives word timings and audio frames that decode; close ends it with usage', async () => {
    const { token, expires_at } = await mint();
    assert.match(token, /^wst_[A-Za-z0-9_-]{43}$/);
    assert.ok(expires_at > Date.now() / 1000 && expires_at <= Date.now() / 1000 + 61);
    const s = await SpeechSocket.open(speechSocketUrl(p.url, token));
    s.send(START);
    const pieces = ['Hello and ', 'welcome to ', 'the service, ', 'how can ', 'I help ', 'you today?'];
    // Pipelined before session.started: they wait for the session and are handled in order.
    for (const piece of pieces.slice(0, 3)) s.send({ type: 'text', text: piece, context_id: 'answer' });
    await s.until((x) => x.messages('session.started').length === 1, 'session.started');
    const info = s.messages('session.started')[0]!;
    assert.equal(info['voice'], 'flite:slt');
    assert.equal(info['response_format'], 'wav');
    assert.equal(info['max_contexts'], 5);
    assert.equal(info['inactivity_timeout'], 20);
    // The first clause is heard before the rest is sent.
    await s.until((x) => x.messages('audio').length > 0, 'audio of the first clause');
    for (const piece of pieces.slice(3)) s.send({ type: 'text', text: piece, context_id: 'answer' });
    s.send({ type: 'close' });
    await s.until((x) => x.messages('session.done').length === 1, 'session.done');
    assert.deepEqual(await s.untilClosed(), { code: 1000, reason: 'session done' });
    const clip = await inspectClip(s.audioOf('answer'));
    assertSpeech(clip, 1.5, 8);
    const words = s.messages('words').flatMap((m) => m['words'] as { word: string; start: number; end: number }[]);
    const plain = (w: string): string => w.replace(/[^a-z]/gi, '').toLowerCase();
    assert.deepEqual(words.map((w) => plain(w.word)), pieces.join('').split(/\s+/).map(plain));
    assert.ok(words.every((w, i) => w.end >= w.start && (i === 0 || w.start >= words[i - 1]!.start)), 'word times run on over the context');
    const done = s.messages('context.done');
    assert.deepEqual(done.map((d) => [d['context_id'], d['outcome']]), [['answer', 'completed']]);
    const usage = done[0]!['usage'] as { characters: number; characters_spoken: number };
    assert.equal(usage.characters, pieces.join('').length);
    assert.deepEqual(s.messages('session.done')[0]!['usage'], { characters: usage.characters, audio_seconds: (done[0]!['usage'] as { audio_seconds: number }).audio_seconds });
    assert.deepEqual(s.messages('error'), []);
    // The token was single use.
    const reused = await refusal(speechSocketUrl(p.url, token));
    assert.equal(reused.status, 401);
    assert.equal((JSON.parse(reused.body) as { error: { platform_code: string } }).error.platform_code, 'AUTH_STREAM_TOKEN_INVALID');
  });

  test('cancel stops a context\'s audio at once and frees the node\'s slot; the other context goes on', async () => {
    const node = p.nodes[0]!;
    const s = await started();
    const long = Array.from({ length: 20 }, (_, i) => `Sentence ${i + 1} of an answer the caller will interrupt.`).join(' ');
    s.send({ type: 'text', text: long, context_id: 'long' });
    await s.until((x) => x.messages('audio').some((m) => m['context_id'] === 'long') && node.context.admission.inFlight() > 0, 'the long context speaking');
    s.send({ type: 'cancel', context_id: 'long' });
    await s.until((x) => x.messages('context.done').some((m) => m['context_id'] === 'long'), 'the cancelled context\'s done');
    await waitFor(() => node.context.admission.inFlight() === 0, 2000, 'the slot free after the cancel');
    const doneAt = s.frames.findIndex((f) => f.kind === 'json' && f.message['type'] === 'context.done' && f.message['context_id'] === 'long');
    const done = (s.frames[doneAt] as { message: Record<string, unknown> }).message;
    assert.equal(done['outcome'], 'cancelled');
    const usage = done['usage'] as { characters: number; characters_dropped: number };
    assert.ok(usage.characters < long.length && usage.characters_dropped > 0, 'the rest was dropped, not counted');
    // Another context is spoken after the cancel; no audio of the cancelled one follows its done.
    s.send({ type: 'text', text: 'Still here.', context_id: 'next' });
    s.send({ type: 'close' });
    await s.until((x) => x.messages('session.done').length === 1, 'session.done');
    assert.ok(!s.frames.slice(doneAt).some((f) => f.kind === 'json' && f.message['type'] === 'audio' && f.message['context_id'] === 'long'), 'no audio of the cancelled context after its done');
    assertSpeech(await inspectClip(s.audioOf('next')), 0.4, 4);
  });

  test('bad messages are answered with an error and the session goes on: invalid JSON, a binary frame, a bad field, a second session.start, an unknown context, a sixth context, bad SSML', async () => {
    const s = await started();
    const errorsSoFar = (): number => s.messages('error').length;
    const expectError = async (send: () => void, code: string, what: string, contextId: string | null = null): Promise<Record<string, unknown>> => {
      const before = errorsSoFar();
      send();
      await s.until(() => errorsSoFar() > before, what);
      const e = s.messages('error')[before]!;
      assert.equal(e['code'], code, `${what}: ${JSON.stringify(e)}`);
      assert.equal(e['context_id'], contextId, what);
      return e;
    };
    await expectError(() => s.ws.send('{"type": "text", '), 'STREAM_MESSAGE_INVALID', 'invalid JSON');
    await expectError(() => s.ws.send(Buffer.from([1, 2, 3]), { binary: true }), 'STREAM_MESSAGE_INVALID', 'a binary frame');
    await expectError(() => s.send({ type: 'shout', text: 'Hi.' }), 'STREAM_MESSAGE_INVALID', 'an unknown type');
    const field = await expectError(() => s.send({ type: 'text', text: 42 }), 'STREAM_MESSAGE_INVALID', 'a field of the wrong type');
    assert.equal(field['param'], 'text');
    await expectError(() => s.send(START), 'STREAM_PROTOCOL_VIOLATION', 'a second session.start');
    await expectError(() => s.send({ type: 'flush', context_id: 'nope' }), 'STREAM_CONTEXT_UNKNOWN', 'an unknown context', 'nope');
    // Five contexts held open (text without a sentence end), then a sixth.
    for (let i = 1; i <= 5; i++) s.send({ type: 'text', text: 'Held open', context_id: `c${i}` });
    await expectError(() => s.send({ type: 'text', text: 'One too many', context_id: 'c6' }), 'STREAM_CONTEXTS_EXCEEDED', 'a sixth context', 'c6');
    for (let i = 1; i <= 5; i++) s.send({ type: 'cancel', context_id: `c${i}` });
    await s.until((x) => x.messages('context.done').length === 5, 'the five contexts cancelled');
    await expectError(() => s.send({ type: 'text', text: '<speak><nonsense/>Hi.</speak>', context_id: 'ssml' }), 'SSML_INVALID', 'bad SSML', 'ssml');
    await s.until((x) => x.messages('context.done').some((m) => m['context_id'] === 'ssml' && m['outcome'] === 'failed'), 'the SSML context failed');
    // The session lives on.
    s.send({ type: 'text', text: 'Still speaking.', context_id: 'after' });
    s.send({ type: 'close' });
    await s.until((x) => x.messages('session.done').length === 1, 'session.done');
    assertSpeech(await inspectClip(s.audioOf('after')), 0.4, 4);
  });

  test('text before session.start is refused and the session can still start; refused settings close with 4422', async () => {
    const s = await SpeechSocket.open(speechSocketUrl(p.url), { 'x-api-key': p.apiKey });
    s.send({ type: 'text', text: 'Too early.' });
    await s.until((x) => x.messages('error').length === 1, 'the error');
    assert.equal(s.messages('error')[0]!['code'], 'STREAM_PROTOCOL_VIOLATION');
    s.send(START);
    await s.until((x) => x.messages('session.started').length === 1, 'session.started after the refusal');
    s.close();
    const bad = await SpeechSocket.open(speechSocketUrl(p.url), { 'x-api-key': p.apiKey });
    bad.send({ ...START, voice: 'flite:nobody' });
    assert.equal((await bad.untilClosed()).code, 4422);
    const e = bad.messages('error')[0]!;
    assert.deepEqual([e['code'], e['param'], e['context_id']], ['TTS_VOICE_NOT_FOUND', 'voice', null]);
  });

  test('a message over TTS_WS_MAX_MESSAGE_BYTES closes the socket with 1009', async () => {
    const s = await started();
    s.send({ type: 'text', text: 'a'.repeat(p.facade.deps.config.wsMaxMessageBytes) });
    assert.equal((await s.untilClosed()).code, 1009);
  });

  test('a silent client is closed after its inactivity timeout with an error and 4408', async () => {
    const s = await started({ 'x-api-key': p.apiKey }, { ...START, inactivity_timeout: 1 });
    assert.equal(s.messages('session.started')[0]!['inactivity_timeout'], 1);
    assert.equal((await s.untilClosed(10_000)).code, 4408);
    assert.equal(s.messages('error').at(-1)!['code'], 'STREAM_INACTIVITY_TIMEOUT');
  });

  test('a client that never reads: the server holds a bounded amount, then closes it', async () => {
    const records: LogRecord[] = [];
    const unsubscribe = onLog((r) => {
      if (r.msg === 'speech socket: the client does not read its audio') records.push(r);
    });
    try {
      const s = await started({ 'x-api-key': p.apiKey }, { ...START, response_format: 'pcm', sample_rate: 48_000, inactivity_timeout: 2 });
      s.ws.pause();
      const long = Array.from({ length: 60 }, (_, i) => `Sentence ${i + 1} of a long answer nobody reads.`).join(' ');
      for (let i = 0; i < 3; i++) s.send({ type: 'text', text: long, context_id: `ctx${i}` });
      await waitFor(() => records.length > 0, 60_000, 'the server giving up on the client');
      s.ws.resume();
      const closed = await s.untilClosed();
      assert.ok(closed.code === 4408 || closed.code === 1006, `closed with ${closed.code}`);
      // What the socket held: the cap plus the last chunk at most (a sentence of 48 kHz PCM is well under 1 MiB).
      const held = records[0]!['buffered_bytes'] as number;
      assert.ok(held > 0 && held <= 2 * 1024 * 1024, `${held} bytes held`);
    } finally {
      unsubscribe();
    }
  });

  test('refusals before the handshake are HTTP answers: no credential 401, a wrong or expired token 401, a plain GET 426', async () => {
    assert.equal((await refusal(speechSocketUrl(p.url))).status, 401);
    const wrong = await refusal(speechSocketUrl(p.url, `wst_${'A'.repeat(43)}`));
    assert.equal(wrong.status, 401);
    assert.match(wrong.body, /AUTH_STREAM_TOKEN_INVALID/);
    const { keyId } = await p.createKey({ name: 'expiring' });
    const shortLived = new StreamTokens(p.facade.deps.access.kv, p.facade.deps.access.apiKeys, 0.05);
    const expired = await shortLived.issue(keyId);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await refusal(speechSocketUrl(p.url, expired.token))).status, 401);
    // A key never goes in the URL: ?token= takes tokens only.
    assert.equal((await refusal(speechSocketUrl(p.url, p.apiKey))).status, 401);
    const plain = await fetch(`${p.url}/v1/audio/speech/stream`, { headers: { 'x-api-key': p.apiKey } });
    assert.equal(plain.status, 426);
    assert.equal(plain.headers.get('upgrade'), 'websocket');
    assert.equal(((await plain.json()) as { error: { platform_code: string } }).error.platform_code, 'WEBSOCKET_UPGRADE_REQUIRED');
    // Minting takes a key: no key, no token.
    assert.equal((await fetch(`${p.url}/v1/audio/speech/stream/tokens`, { method: 'POST' })).status, 401);
  });

  test('closing the socket mid-speech cancels the session and meters what was spoken', async () => {
    const node = p.nodes[0]!;
    const s = await started();
    s.send({ type: 'text', text: Array.from({ length: 20 }, (_, i) => `Sentence ${i + 1} cut short.`).join(' ') });
    await s.until((x) => x.messages('audio').length > 0, 'audio');
    s.close();
    await waitFor(() => node.context.admission.sessions() === 0 && node.context.admission.inFlight() === 0, 5000, 'the node session ended');
  });

  test('GET /api/asyncapi/export serves the document in YAML and JSON', async () => {
    const yaml = await fetch(`${p.url}/api/asyncapi/export`);
    assert.equal(yaml.status, 200);
    assert.match(yaml.headers.get('content-type') ?? '', /yaml/);
    assert.match(await yaml.text(), /^asyncapi: 3\.0\.0/m);
    const json = (await (await fetch(`${p.url}/api/asyncapi/export?format=json`)).json()) as { asyncapi: string; info: { version: string }; channels: Record<string, { address: string }> };
    assert.equal(json.asyncapi, '3.0.0');
    assert.notEqual(json.info.version, '0.0.0');
    assert.equal(json.channels['speechStream']?.address, '/v1/audio/speech/stream');
  });
});
