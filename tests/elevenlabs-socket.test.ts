/**
 * ElevenLabs' text-to-speech WebSockets (issue 31, item 2's sockets, items 5 and 6 for them) on a
 * real platform (scheduler, one flite node, the facade with PostgreSQL and Redis): the LiveKit
 * agents' ElevenLabs plugin, unchanged and pointed at the platform, streams text in two-word
 * pieces and gets decodable audio with correct word timings; its OpenAI plugin gets 24 kHz PCM
 * from /v1/audio/speech. Then the protocol by hand: stream-input, several contexts, barge-in, and
 * every bad input the issue names, each answered with an error in ElevenLabs' shape (a catalogue
 * code) and, when it ends the socket, a policy close; none leaves a session open on the node. The
 * upgrade path (realtime/upgrade.ts) is checked too: a refusal before the handshake is an HTTP
 * answer, and a plain GET gets 426.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket as NetSocket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { WebSocket, type RawData } from 'ws';
import { initializeLogger, tts as tts_ } from '@livekit/agents';
import * as elevenlabs from '@livekit/agents-plugin-elevenlabs';
import * as openai from '@livekit/agents-plugin-openai';
import type { AudioFrame } from '@livekit/rtc-node';
import { wavHeader } from '@tts/inference-node/testing';
import { startPlatform, waitFor, type TestPlatform } from './support/platform.js';
import { assertSpeech, decodeRawAudio, inspectClip } from './support/audio.js';

/** A message the server sent (JSON). */
type Answer = Record<string, unknown> & {
  audio?: string;
  isFinal?: boolean;
  contextId?: string;
  error?: string;
  platform_code?: string;
  code?: number | null;
  normalizedAlignment?: { chars: string[]; charStartTimesMs: number[]; charDurationsMs: number[] } | null;
  alignment?: { chars: string[]; charStartTimesMs: number[]; charDurationsMs: number[] } | null;
};

/** A test client of one socket: every answer kept with when it came. */
class Client {
  readonly answers: Answer[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: RawData) => this.answers.push(JSON.parse(String(data)) as Answer));
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  static open(url: string, headers: Record<string, string>): Promise<Client> {
    const ws = new WebSocket(url, { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new Client(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res: IncomingMessage) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    });
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  of(contextId: string): Answer[] {
    return this.answers.filter((a) => a.contextId === contextId);
  }

  errors(): Answer[] {
    return this.answers.filter((a) => a.error !== undefined);
  }

  async until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
    await waitFor(check, ms, what);
  }
}

/** The audio of some answers, decoded from base64 and joined. */
const audioOf = (answers: readonly Answer[]): Buffer => Buffer.concat(answers.filter((a) => typeof a.audio === 'string').map((a) => Buffer.from(a.audio!, 'base64')));

/** 16-bit mono PCM in a WAV header, for ffprobe. */
const wav16 = (pcm: Buffer, rate: number): Buffer => Buffer.concat([wavHeader(rate, pcm.length), pcm]);

/** Words (letters only, lower case) of a text. */
const wordsOf = (text: string): string[] => text.split(/\s+/).map((w) => w.replace(/[^a-z]/gi, '').toLowerCase()).filter((w) => w !== '');

/** Words and start times of normalized alignments (chars cumulative over the context). */
function alignedWords(answers: readonly Answer[]): { word: string; startMs: number }[] {
  const chars: string[] = [];
  const starts: number[] = [];
  for (const a of answers) {
    if (!a.normalizedAlignment) continue;
    chars.push(...a.normalizedAlignment.chars);
    starts.push(...a.normalizedAlignment.charStartTimesMs);
  }
  const out: { word: string; startMs: number }[] = [];
  let current = '';
  let start = 0;
  chars.forEach((c, i) => {
    if (c === ' ') {
      if (current) out.push({ word: current, startMs: start });
      current = '';
      return;
    }
    if (current === '') start = starts[i]!;
    current += c;
  });
  if (current) out.push({ word: current, startMs: start });
  return out.map((w) => ({ word: w.word.replace(/[^a-z]/gi, '').toLowerCase(), startMs: w.startMs }));
}

describe('ElevenLabs-compatible WebSockets (stream-input, multi-stream-input)', { timeout: 600_000 }, () => {
  let p: TestPlatform;
  let ws: string;
  let key: Record<string, string>;
  const sessions = (): number => p.nodes[0]!.context.admission.sessions();
  const noSession = (): Promise<void> => waitFor(() => sessions() === 0, 10_000, 'the node session to end');

  before(async () => {
    // The LiveKit plugins log through the agents' logger, which must exist before they are built.
    initializeLogger({ pretty: false, level: 'warn' });
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt', fliteWorkers: 1 } });
    ws = p.url.replace(/^http/, 'ws');
    key = { 'xi-api-key': p.apiKey };
  });

  after(async () => {
    await p.stop();
  });

  const multi = (query = 'output_format=pcm_16000'): string => `${ws}/v1/text-to-speech/flite:slt/multi-stream-input?${query}`;
  const single = (query = 'output_format=pcm_16000'): string => `${ws}/v1/text-to-speech/flite:slt/stream-input?${query}`;

  test('the LiveKit agents\' ElevenLabs plugin, unchanged: text in two-word pieces, audio that decodes, word timings in order and within the audio', async () => {
    const tts = new elevenlabs.TTS({ apiKey: p.apiKey, baseURL: `${p.url}/v1`, voiceId: 'flite:slt', encoding: 'pcm_16000' });
    const failures: unknown[] = [];
    tts.on('error', (e: unknown) => failures.push(e));
    const text = 'Hello and welcome to the service. How can I help you today?';
    const stream = tts.stream();
    const words = text.split(' ');
    for (let i = 0; i < words.length; i += 2) stream.pushText(`${words.slice(i, i + 2).join(' ')} `);
    stream.flush();
    stream.endInput();
    const frames: AudioFrame[] = [];
    const timed: { text: string; startTime: number; endTime: number }[] = [];
    for await (const ev of stream) {
      if (ev === tts_.SynthesizeStream.END_OF_STREAM) break;
      frames.push(ev.frame);
      for (const t of ev.timedTranscripts ?? []) timed.push({ text: t.text, startTime: t.startTime ?? -1, endTime: t.endTime ?? -1 });
    }
    await tts.close();
    assert.deepEqual(failures, []);
    assert.ok(frames.length > 0);
    assert.ok(frames.every((f) => f.sampleRate === 16_000 && f.channels === 1));
    const pcm = Buffer.concat(frames.map((f) => Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength)));
    const seconds = pcm.length / 2 / 16_000;
    assertSpeech(await inspectClip(wav16(pcm, 16_000)), 2, 8);
    const spoken = timed.flatMap((t) => wordsOf(t.text));
    assert.deepEqual(spoken, wordsOf(text));
    assert.ok(timed.every((t, i) => t.endTime >= t.startTime && (i === 0 || t.startTime >= timed[i - 1]!.startTime)), 'word times in order');
    assert.ok(timed.at(-1)!.endTime <= seconds + 0.05 && timed.at(-1)!.startTime > 1, `the last word within the ${seconds} s of audio, seconds in`);
    await noSession();
  });

  test('the LiveKit agents\' OpenAI plugin gets 24 kHz PCM from /v1/audio/speech', async () => {
    const tts = new openai.TTS({ apiKey: p.apiKey, baseURL: `${p.url}/v1`, model: 'tts-1', voice: 'alloy' });
    tts.on('error', () => undefined);
    const frame = await tts.synthesize('Agents speak through this platform.').collect();
    assert.equal(frame.sampleRate, 24_000);
    const pcm = Buffer.from(frame.data.buffer, frame.data.byteOffset, frame.data.byteLength);
    assertSpeech(await inspectClip(wav16(pcm, 24_000)), 1, 6);
    await tts.close();
  });

  test('stream-input: opened by " ", text in two-word pieces, ended by ""; audio decodes, times are cumulative, one isFinal, then the server closes', async () => {
    const c = await Client.open(single('output_format=pcm_16000&inactivity_timeout=30'), key);
    const text = 'The quick brown fox jumps over the lazy dog. It was a sunny day, and every bird was singing.';
    c.send({ text: ' ', voice_settings: { stability: 0.5, similarity_boost: 0.8, speed: 1 }, generation_config: { chunk_length_schedule: [50] }, xi_api_key: 'ignored-here' });
    const words = text.split(' ');
    for (let i = 0; i < words.length; i += 2) c.send({ text: `${words.slice(i, i + 2).join(' ')} ` });
    c.send({ text: '' });
    const closed = await c.closed;
    assert.equal(closed.code, 1000);
    const finals = c.answers.filter((a) => a.isFinal === true);
    assert.equal(finals.length, 1);
    assert.equal(c.answers.at(-1)?.isFinal, true, 'isFinal comes last');
    assert.ok(!('audio' in finals[0]!), 'the final message carries no audio');
    const audio = c.answers.filter((a) => a.audio !== undefined);
    assert.ok(audio.every((a) => a.isFinal === false && a.contextId === undefined));
    const samples = await decodeRawAudio(audioOf(audio), 's16le', 16_000);
    assert.ok(samples.length / 16_000 > 3 && samples.length / 16_000 < 15, `${samples.length / 16_000} s of audio`);
    const aligned = alignedWords(audio);
    assert.deepEqual(aligned.map((w) => w.word), wordsOf(text));
    // Cumulative over the context: start times only grow, and the second sentence starts after the first's audio began.
    assert.ok(aligned.every((w, i) => i === 0 || w.startMs >= aligned[i - 1]!.startMs));
    assert.ok(aligned.at(-1)!.startMs > 2000, 'the last word starts seconds into the context');
    // The text's own characters as sent (each piece ends with a space), punctuation included, come in `alignment`.
    const chars = audio.flatMap((a) => a.alignment?.chars ?? []).join('');
    assert.equal(chars, `${text} `);
    await noSession();
  });

  test('stream-input: text before the opening message is refused (error, close 1008), nothing spoken', async () => {
    const c = await Client.open(single(), key);
    c.send({ text: 'Hello there. ' });
    const closed = await c.closed;
    assert.equal(closed.code, 1008);
    assert.equal(c.errors()[0]?.platform_code, 'STREAM_PROTOCOL_VIOLATION');
    assert.equal(c.errors()[0]?.code, 1008);
    assert.equal(audioOf(c.answers).length, 0);
    await noSession();
  });

  test('multi-stream-input: two contexts interleaved, each with its own audio, alignment and one isFinal; close_socket ends both and closes', async () => {
    const c = await Client.open(multi('output_format=wav_16000'), key);
    c.send({ text: ' ', context_id: 'a', voice_settings: { stability: 0.5, similarity_boost: 0.75 } });
    c.send({ text: ' ', context_id: 'b' });
    c.send({ text: 'Good morning ', context_id: 'a' });
    c.send({ text: 'Second context ', context_id: 'b' });
    c.send({ text: 'to you. ', context_id: 'a', flush: true });
    c.send({ text: 'speaks too. ', context_id: 'b' });
    c.send({ text: '', context_id: 'a', flush: true });
    c.send({ close_socket: true });
    const closed = await c.closed;
    assert.equal(closed.code, 1000);
    for (const [id, text] of [['a', 'Good morning to you.'], ['b', 'Second context speaks too.']] as const) {
      const answers = c.of(id);
      assert.equal(answers.filter((a) => a.isFinal === true).length, 1, `one isFinal for ${id}`);
      assert.equal(answers.at(-1)?.isFinal, true);
      assertSpeech(await inspectClip(audioOf(answers)), 0.8, 5);
      assert.deepEqual(alignedWords(answers).map((w) => w.word), wordsOf(text));
    }
    assert.equal(c.errors().length, 0);
    await noSession();
  });

  test('barge-in: close_context stops the context at once (no audio of it after its isFinal), frees the node slot, and the socket goes on', async () => {
    const node = p.nodes[0]!;
    const c = await Client.open(multi(), key);
    const long = Array.from({ length: 30 }, (_, i) => `Sentence ${i + 1} of a long answer the caller interrupts.`).join(' ');
    c.send({ text: long, context_id: 'talk', flush: true });
    await c.until(() => c.of('talk').some((a) => a.audio) && node.context.admission.inFlight() > 0, 'the context speaking');
    c.send({ context_id: 'talk', close_context: true });
    await c.until(() => c.of('talk').some((a) => a.isFinal === true), 'its isFinal');
    const at = c.answers.length;
    await waitFor(() => node.context.admission.inFlight() === 0, 5000, 'the slot free');
    // Another context on the same socket still speaks.
    c.send({ text: 'Still here.', context_id: 'next' });
    c.send({ text: '', context_id: 'next', flush: true });
    await c.until(() => c.of('next').some((a) => a.isFinal === true), 'the next context');
    const talk = c.of('talk');
    assert.equal(talk.filter((a) => a.isFinal === true).length, 1);
    assert.equal(talk.at(-1)?.isFinal, true, 'no audio of the cancelled context after its isFinal');
    assert.ok(c.answers.slice(at).every((a) => a.contextId !== 'talk'));
    assert.ok(audioOf(c.of('next')).length > 0);
    c.ws.close();
    await c.closed;
    await noSession();
    // Metering counts what was spoken plus what was in synthesis, not the dropped rest.
    await p.facade.deps.metering.drain();
  });

  test('close_context for a context never opened: an error naming it, the socket goes on', async () => {
    const c = await Client.open(multi(), key);
    c.send({ context_id: 'ghost', close_context: true });
    await c.until(() => c.errors().length > 0, 'the error');
    assert.deepEqual([c.errors()[0]?.platform_code, c.errors()[0]?.contextId, c.errors()[0]?.code], ['STREAM_CONTEXT_UNKNOWN', 'ghost', null]);
    c.send({ text: 'Hello.', context_id: 'real' });
    c.send({ text: '', context_id: 'real', flush: true });
    await c.until(() => c.of('real').some((a) => a.isFinal === true), 'a real context');
    c.ws.close();
    await c.closed;
    await noSession();
  });

  test('a sixth context gets max_active_conversations with its contextId; the five go on', async () => {
    const c = await Client.open(multi(), key);
    for (let i = 1; i <= 6; i++) c.send({ text: ' ', context_id: `c${i}` });
    await c.until(() => c.errors().length > 0, 'the refusal');
    const [error] = c.errors();
    assert.deepEqual([error?.error, error?.platform_code, error?.contextId, error?.code], ['max_active_conversations', 'STREAM_CONTEXTS_EXCEEDED', 'c6', null]);
    for (let i = 1; i <= 5; i++) {
      c.send({ text: `Number ${i}.`, context_id: `c${i}` });
      c.send({ text: '', context_id: `c${i}`, flush: true });
    }
    await c.until(() => [1, 2, 3, 4, 5].every((i) => c.of(`c${i}`).some((a) => a.isFinal === true)), 'five finals');
    // Once one ended, a new context has room.
    c.send({ text: 'Sixth at last.', context_id: 'c6' });
    c.send({ text: '', context_id: 'c6', flush: true });
    await c.until(() => c.of('c6').some((a) => a.isFinal === true), 'the sixth');
    assert.equal(c.errors().length, 1);
    c.ws.close();
    await c.closed;
    await noSession();
  });

  test('invalid JSON, a binary frame, a field of the wrong type: an error with its code, then close 1008', async () => {
    for (const [frame, code] of [
      ['{"text": "unterminated', 'REQUEST_JSON_MALFORMED'],
      [Buffer.from([1, 2, 3]), 'STREAM_MESSAGE_INVALID'],
      ['[1, 2]', 'STREAM_MESSAGE_INVALID'],
      [JSON.stringify({ text: 42, context_id: 'x' }), 'STREAM_MESSAGE_INVALID'],
      [JSON.stringify({ text: 'Hi', flush: 'yes' }), 'STREAM_MESSAGE_INVALID'],
    ] as const) {
      const c = await Client.open(multi(), key);
      c.ws.send(frame, { binary: Buffer.isBuffer(frame) });
      const closed = await c.closed;
      assert.equal(closed.code, 1008, String(frame));
      assert.equal(c.errors()[0]?.platform_code, code);
      await noSession();
    }
  });

  test('a message above TTS_WS_MAX_MESSAGE_BYTES closes with 1009', async () => {
    const c = await Client.open(multi(), key);
    c.send({ text: 'a'.repeat(p.facade.deps.config.wsMaxMessageBytes + 10), context_id: 'big' });
    const closed = await c.closed;
    assert.equal(closed.code, 1009);
    await noSession();
  });

  test('10,000 one-character pieces: every one taken or refused with a code, the context ends, nothing crashes', async () => {
    const c = await Client.open(multi(), key);
    const text = 'One two three four five six seven eight nine ten. '.repeat(200).slice(0, 10_000);
    for (const ch of text) c.send({ text: ch, context_id: 'drip' });
    c.send({ text: '', context_id: 'drip', flush: true });
    await c.until(() => c.of('drip').some((a) => a.isFinal === true), 'the isFinal', 240_000);
    assert.ok(c.errors().every((e) => e.platform_code === 'STREAM_BUFFER_FULL' && e.contextId === 'drip'), JSON.stringify(c.errors()[0]));
    assert.ok(audioOf(c.of('drip')).length > 0);
    c.ws.close();
    await c.closed;
    await noSession();
  });

  test('a client that goes silent is closed after inactivity_timeout (STREAM_INACTIVITY_TIMEOUT, 1008)', async () => {
    const c = await Client.open(multi('inactivity_timeout=1'), key);
    c.send({ text: ' ', context_id: 'idle' });
    const closed = await c.closed;
    assert.equal(closed.code, 1008);
    assert.equal(c.errors()[0]?.platform_code, 'STREAM_INACTIVITY_TIMEOUT');
    await noSession();
  });

  test('a client that never reads: the server holds a bounded backlog, then closes the socket and ends the session', async () => {
    // A raw client: it completes the handshake, sends text, then stops reading its socket.
    const socket: NetSocket = connect(Number(new URL(p.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const wsKey = randomBytes(16).toString('base64');
    socket.write(`GET /v1/text-to-speech/flite:slt/multi-stream-input?output_format=pcm_48000 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${wsKey}\r\nSec-WebSocket-Version: 13\r\nxi-api-key: ${p.apiKey}\r\n\r\n`);
    const head = await new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString('latin1'))));
    assert.match(head, /^HTTP\/1\.1 101/);
    socket.pause();
    let ended = false;
    socket.on('close', () => (ended = true));
    const frame = (obj: unknown): Buffer => {
      // A masked client text frame (RFC 6455 section 5.2).
      const payload = Buffer.from(JSON.stringify(obj));
      const mask = randomBytes(4);
      const header = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
      return Buffer.concat([header, mask, Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!))]);
    };
    const sentence = 'This answer is long enough to fill every buffer between the server and a client that does not read. ';
    for (let i = 1; i <= 5; i++) socket.write(frame({ text: sentence.repeat(40), context_id: `c${i}`, flush: true }));
    await waitFor(() => sessions() === 0, 180_000, 'the session to end for the stalled client');
    socket.resume();
    await waitFor(() => ended, 10_000, 'the server to close the connection');
  });

  test('SSML the node refuses: an error for that context, the socket and the session go on', async () => {
    const c = await Client.open(multi('enable_ssml_parsing=true'), key);
    c.send({ text: '<speak><bogus>Hello</bogus></speak>', context_id: 'bad', flush: true });
    await c.until(() => c.errors().length > 0, 'the SSML error');
    assert.deepEqual([c.errors()[0]?.platform_code, c.errors()[0]?.contextId], ['SSML_INVALID', 'bad']);
    c.send({ text: '<speak>Fine <break time="200ms"/> now.</speak>', context_id: 'good' });
    c.send({ text: '', context_id: 'good', flush: true });
    await c.until(() => c.of('good').some((a) => a.isFinal === true), 'the good context');
    assert.ok(audioOf(c.of('good')).length > 0);
    assert.equal(c.ws.readyState, WebSocket.OPEN);
    c.ws.close();
    await c.closed;
    await noSession();
  });

  test('a missing or wrong key, a bad parameter, an unknown voice, one session too many: HTTP answers before the handshake in ElevenLabs\' shape, nothing synthesized', async () => {
    const refused = async (url: string, headers: Record<string, string>): Promise<{ status: number; body: { detail: unknown } }> => {
      const req = httpRequest(url.replace(/^ws/, 'http'), { headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': randomBytes(16).toString('base64'), 'Sec-WebSocket-Version': '13', ...headers } });
      req.end();
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        req.once('response', resolve);
        req.once('upgrade', () => reject(new Error('the handshake completed')));
        req.once('error', reject);
      });
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      return { status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as { detail: unknown } };
    };
    const before = await p.facade.deps.metering.drain().then(() => sessions());
    assert.equal(before, 0);
    const missing = await refused(multi(), {});
    assert.equal(missing.status, 401);
    assert.equal((missing.body.detail as { code: string }).code, 'invalid_api_key');
    const wrong = await refused(multi(), { 'xi-api-key': 'tts_wrong_key_0000000000000000' });
    assert.equal(wrong.status, 401);
    const badParam = await refused(multi('inactivity_timeout=999'), key);
    assert.equal(badParam.status, 422);
    const unknownVoice = await refused(`${ws}/v1/text-to-speech/flite:nobody/stream-input`, key);
    assert.equal(unknownVoice.status, 422);
    assert.equal((unknownVoice.body.detail as { code: string }).code, 'voice_not_found');
    assert.equal(sessions(), 0);
    // A key of the free tier holds two sessions; a third is refused before its handshake, and a place frees when a socket closes.
    const free = { 'xi-api-key': (await p.createKey({ name: 'free-sessions', tier: 'free' })).apiKey };
    const held = [await Client.open(multi(), free), await Client.open(multi(), free)];
    const third = await refused(multi(), free);
    assert.equal(third.status, 429);
    assert.equal((third.body.detail as { platform_code: string }).platform_code, 'SESSION_LIMIT_EXCEEDED');
    held[0]!.ws.close();
    await held[0]!.closed;
    const again = await Client.open(multi(), free);
    for (const c of [held[1]!, again]) {
      c.ws.close();
      await c.closed;
    }
    await noSession();
    // The ws client sees the refusal as an unexpected response, never an open socket.
    await assert.rejects(Client.open(multi(), {}), (e: Error & { status?: number }) => e.status === 401);
  });

  test('a plain GET of a socket operation answers 426 with Upgrade: websocket', async () => {
    for (const path of ['stream-input', 'multi-stream-input']) {
      const res = await fetch(`${p.url}/v1/text-to-speech/flite:slt/${path}`, { headers: key });
      assert.equal(res.status, 426);
      assert.equal(res.headers.get('upgrade'), 'websocket');
      const body = (await res.json()) as { detail: { platform_code: string } };
      assert.equal(body.detail.platform_code, 'WEBSOCKET_UPGRADE_REQUIRED');
    }
    assert.equal(sessions(), 0);
  });
});
