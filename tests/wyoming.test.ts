/**
 * The Wyoming server (issue 31, item 3), Home Assistant's protocol for voice services, on a real
 * platform (scheduler, one flite node, the facade with PostgreSQL and Redis) through a client written
 * from the protocol's description (support/wyoming-client.ts): `info` lists the cluster's voices,
 * one-shot and streamed synthesis give raw PCM that decodes to speech, every use is metered to the
 * configured key; bad input answers an error event with a catalogue code and closes the connection,
 * never crashing the process or leaking a node session; a client that goes away frees the node's slot
 * at once; a silent one is closed. The facade starts it from its config and refuses to start it
 * without the key.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { loadFacadeConfig } from '@tts/facade';
import { startWyomingServer, wyomingCaller, type RunningWyoming } from '@tts/facade/testing';
import { peak, rms } from '@tts/inference-node/testing';
import { decodeRawAudio } from './support/audio.js';
import { startLoneFacade, startPlatform, waitFor, type TestPlatform } from './support/platform.js';
import { audioOf, WyomingClient, type ReceivedEvent } from './support/wyoming-client.js';

/** Caps of the servers under test (small, so the oversize cases are cheap). */
const LIMITS = { maxHeaderBytes: 4096, maxDataBytes: 4096, maxPayloadBytes: 4096 };

interface ApiVoice {
  id: string;
  languages: string[];
  language: string;
  sample_rate: number;
}

describe('the Wyoming server', { timeout: 300_000 }, () => {
  let p: TestPlatform;
  let voices: ApiVoice[];
  const servers: RunningWyoming[] = [];
  const clients: WyomingClient[] = [];

  /** A Wyoming server on the platform whose syntheses are `apiKey`'s (a fresh key unless given). */
  const serve = async (o: { apiKey?: string; inactivityMs?: number; tier?: string } = {}): Promise<{ server: RunningWyoming; keyId: string | undefined }> => {
    const created = o.apiKey === undefined ? await p.createKey({ name: 'wyoming', tier: o.tier ?? 'pro' }) : undefined;
    const d = p.facade.deps;
    const server = await startWyomingServer(
      { speech: d.speech, cluster: d.cluster, caller: wyomingCaller(d.access, o.apiKey ?? created!.apiKey), sessionPlaces: d.sessionLimits, defaultVoice: 'flite:slt', maxTextChars: 2000, logger: d.logger },
      { host: '127.0.0.1', port: 0, limits: LIMITS, inactivityMs: o.inactivityMs ?? 60_000 },
      d.logger,
    );
    servers.push(server);
    return { server, keyId: created?.keyId };
  };
  const client = async (server: RunningWyoming): Promise<WyomingClient> => {
    const c = await WyomingClient.connect(server.port);
    clients.push(c);
    return c;
  };
  const charactersOf = async (keyId: string): Promise<number> => {
    await p.facade.deps.metering.drain();
    const cost = (await (await fetch(`${p.url}/api/usage/cost-dashboard?key_id=${keyId}`, { headers: { 'x-admin-key': p.adminKey } })).json()) as { rows: { key_id: string; characters: number }[] };
    return cost.rows.find((r) => r.key_id === keyId)?.characters ?? 0;
  };
  /** The audio of `events` from `from` on decodes to speech of [minSec, maxSec] at `rate`. */
  const assertSpeechPcm = async (events: readonly ReceivedEvent[], rate: number, minSec: number, maxSec: number, from = 0): Promise<void> => {
    const audio = audioOf(events, from);
    assert.deepEqual([audio.rate, audio.width, audio.channels], [rate, 2, 1], 'raw 16-bit mono at the voice\'s rate');
    const samples = await decodeRawAudio(audio.pcm, 's16le', rate);
    const seconds = samples.length / rate;
    assert.ok(seconds >= minSec && seconds <= maxSec, `duration ${seconds.toFixed(2)} s outside [${minSec}, ${maxSec}]`);
    assert.ok(rms(samples) > 0.01, 'audible');
    assert.ok(peak(samples) < 0.999, 'not clipped');
  };
  /** No node session is left open, and the server still answers. */
  const assertClean = async (server: RunningWyoming): Promise<void> => {
    const node = p.nodes[0]!;
    await waitFor(() => node.context.admission.sessions() === 0 && node.context.admission.inFlight() === 0, 5000, 'the node\'s sessions and slots free');
    const c = await client(server);
    c.send('describe');
    await c.next('info');
    c.destroy();
  };
  const rateOf = (id: string): number => voices.find((v) => v.id === id)!.sample_rate;

  before(async () => {
    p = await startPlatform({ node: { engines: ['flite'], defaultVoice: 'flite:slt', fliteWorkers: 1 }, facade: { defaultVoice: 'flite:slt' } });
    voices = ((await (await p.get('/v1/audio/voices')).json()) as { voices: ApiVoice[] }).voices;
    assert.ok(voices.some((v) => v.id === 'flite:slt'));
  });

  // A failed test leaves no connection (and so no session) behind for the next.
  afterEach(() => {
    for (const c of clients.splice(0)) c.destroy();
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await p.stop();
  });

  test('describe: info lists every voice of the cluster with its languages, installed, and streaming synthesis', async () => {
    const { server } = await serve();
    const c = await client(server);
    c.send('describe');
    const info = await c.next('info');
    const tts = info.data['tts'] as { name: string; installed: boolean; supports_synthesize_streaming: boolean; attribution: { name: string }; voices: { name: string; description: string; installed: boolean; languages: string[] }[] }[];
    assert.equal(tts.length, 1);
    const program = tts[0]!;
    assert.equal(program.installed, true);
    assert.equal(program.supports_synthesize_streaming, true);
    assert.equal(typeof program.attribution.name, 'string');
    assert.deepEqual(program.voices.map((v) => v.name).sort(), voices.map((v) => v.id).sort(), 'the voices of GET /v1/audio/voices');
    for (const v of program.voices) {
      const api = voices.find((a) => a.id === v.name)!;
      assert.equal(v.installed, true);
      assert.deepEqual(v.languages, api.languages.length > 0 ? api.languages : [api.language]);
      assert.ok(v.description.length > 0);
    }
    for (const other of ['asr', 'wake', 'handle', 'intent']) assert.deepEqual(info.data[other], []);
    // A ping is answered with its text; the connection stays open for more.
    c.send('ping', { text: 'hi' });
    assert.equal((await c.next('pong')).data['text'], 'hi');
  });

  test('synthesize: audio-start, raw PCM chunks that decode to speech, audio-stop; metered to the key; the connection stays open', async () => {
    const { server, keyId } = await serve();
    const c = await client(server);
    const text = 'Hello from the Wyoming server. The kitchen lights are now on.';
    c.send('synthesize', { text, voice: { name: 'flite:slt' } });
    await c.next('audio-stop');
    const types = c.events.map((e) => e.type);
    assert.equal(types[0], 'audio-start');
    assert.equal(types.at(-1), 'audio-stop');
    assert.ok(types.slice(1, -1).length > 1 && types.slice(1, -1).every((t) => t === 'audio-chunk'), types.join(','));
    const rate = rateOf('flite:slt');
    assert.deepEqual(c.events[0]!.data, { rate, width: 2, channels: 1, timestamp: 0 });
    await assertSpeechPcm(c.events, rate, 2, 10);
    assert.equal(await charactersOf(keyId!), text.length);
    // No voice named: the default voice.
    const from = c.events.length;
    c.send('synthesize', { text: 'Good night.' });
    await c.next('audio-stop', 30_000, from);
    await assertSpeechPcm(c.events, rate, 0.3, 4, from);
    assert.equal(c.ofType('error').length, 0);
  });

  test('streaming: synthesize-start, two-word chunks (audio before the text is complete), the compatibility synthesize ignored, synthesize-stop, then synthesize-stopped last', async () => {
    const { server, keyId } = await serve();
    const c = await client(server);
    // Up to the first clause (its end known from the ", "): its audio comes before the rest is sent.
    const first = ['The weather ', 'today is ', 'sunny and warm, ', 'so enjoy '];
    const rest = ['the sun. ', 'Tomorrow brings ', 'rain in ', 'the afternoon, ', 'so take ', 'an umbrella.'];
    c.send('synthesize-start', { voice: { name: 'flite:slt' } });
    for (const piece of first) c.send('synthesize-chunk', { text: piece });
    await c.next('audio-chunk');
    assert.equal(c.ofType('synthesize-stopped').length, 0);
    for (const piece of rest) c.send('synthesize-chunk', { text: piece });
    const text = [...first, ...rest].join('');
    c.send('synthesize', { text, voice: { name: 'flite:slt' } });
    c.send('synthesize-stop');
    await c.next('synthesize-stopped');
    const types = c.events.map((e) => e.type);
    assert.equal(types.at(-1), 'synthesize-stopped');
    assert.equal(types.at(-2), 'audio-stop');
    assert.equal(types[0], 'audio-start');
    assert.equal(c.ofType('audio-start').length, 1, 'one audio stream: the compatibility synthesize was not spoken again');
    await assertSpeechPcm(c.events, rateOf('flite:slt'), 3, 14);
    assert.equal(await charactersOf(keyId!), text.length);
    // The connection takes a second stream.
    const from = c.events.length;
    c.send('synthesize-start', {});
    c.send('synthesize-chunk', { text: 'Done.' });
    c.send('synthesize-stop');
    await c.next('synthesize-stopped', 30_000, from);
    assert.ok(c.events.slice(from).some((e) => e.type === 'audio-chunk'));
  });

  test('bad frames: a malformed header line, an oversize header, data or payload each answer an error event and close', async () => {
    const { server, keyId } = await serve();
    const cases: [string, (c: WyomingClient) => void, string][] = [
      ['not JSON', (c) => c.sendRaw('this is not json\n'), 'WYOMING_EVENT_INVALID'],
      ['no type', (c) => c.sendRaw('{"data":{}}\n'), 'WYOMING_EVENT_INVALID'],
      ['data not JSON', (c) => c.sendRaw('{"type":"synthesize","data_length":5}\n{nope'), 'WYOMING_EVENT_INVALID'],
      ['header without end', (c) => c.sendRaw(`{"type":"describe","pad":"${'a'.repeat(LIMITS.maxHeaderBytes + 10)}`), 'WYOMING_EVENT_TOO_LARGE'],
      ['data over the cap', (c) => c.sendRaw(`{"type":"synthesize","data_length":${LIMITS.maxDataBytes + 1}}\n`), 'WYOMING_EVENT_TOO_LARGE'],
      ['payload over the cap', (c) => c.sendRaw(`{"type":"audio-chunk","payload_length":${LIMITS.maxPayloadBytes + 1}}\n`), 'WYOMING_EVENT_TOO_LARGE'],
      ['text not a string', (c) => c.send('synthesize', { text: 42 }), 'WYOMING_EVENT_INVALID'],
      ['voice not an object', (c) => c.send('synthesize', { text: 'Hi.', voice: 'flite:slt' }), 'WYOMING_EVENT_INVALID'],
      ['empty text', (c) => c.send('synthesize', { text: '  ' }), 'TTS_TEXT_EMPTY'],
      ['chunk outside a stream', (c) => c.send('synthesize-chunk', { text: 'Hi.' }), 'STREAM_PROTOCOL_VIOLATION'],
      ['stop outside a stream', (c) => c.send('synthesize-stop'), 'STREAM_PROTOCOL_VIOLATION'],
    ];
    for (const [what, send, code] of cases) {
      const c = await client(server);
      send(c);
      const error = await c.next('error', 10_000).catch((err: Error) => assert.fail(`${what}: ${err.message}`));
      assert.equal(error.data['code'], code, what);
      assert.equal(typeof error.data['text'], 'string');
      await c.ended(10_000);
    }
    assert.equal(await charactersOf(keyId!), 0, 'nothing was synthesized');
    await assertClean(server);
  });

  test('an unknown event type is ignored, as the reference servers do', async () => {
    const { server } = await serve();
    const c = await client(server);
    c.send('transcribe', { language: 'en' });
    c.send('not-an-event', { x: 1 }, Buffer.alloc(16));
    c.send('describe');
    await c.next('info');
    assert.deepEqual(c.events.map((e) => e.type), ['info']);
  });

  test('a synthesis naming an unknown voice answers TTS_VOICE_NOT_FOUND and closes; nothing is metered', async () => {
    const { server, keyId } = await serve();
    for (const event of ['synthesize', 'synthesize-start']) {
      const c = await client(server);
      c.send(event, { text: 'Hello.', voice: { name: 'flite:nobody' } });
      const error = await c.next('error');
      assert.equal(error.data['code'], 'TTS_VOICE_NOT_FOUND', event);
      await c.ended();
    }
    assert.equal(await charactersOf(keyId!), 0);
    await assertClean(server);
  });

  test('a client that goes away mid-synthesis cancels its session: the node\'s slot and session are freed at once', async () => {
    const { server } = await serve();
    const node = p.nodes[0]!;
    for (const streamed of [false, true]) {
      const c = await client(server);
      const long = Array.from({ length: 30 }, (_, i) => `This is sentence number ${i + 1} of a long answer.`).join(' ');
      if (streamed) {
        c.send('synthesize-start', {});
        c.send('synthesize-chunk', { text: long.slice(0, 1900) });
      } else {
        c.send('synthesize', { text: long.slice(0, 1900) });
      }
      await c.next('audio-chunk');
      await waitFor(() => node.context.admission.inFlight() > 0, 10_000, 'the node synthesizing');
      c.destroy();
      await waitFor(() => node.context.admission.inFlight() === 0 && node.context.admission.sessions() === 0, 3000, `the slot and session freed (${streamed ? 'streamed' : 'one-shot'})`);
    }
    await waitFor(() => server.connections() === 0, 3000, 'the connections gone');
    await assertClean(server);
  });

  test('each synthesis holds one of the key\'s session places: past its tier\'s, SESSION_LIMIT_EXCEEDED; a place comes back when its stream ends', async () => {
    const { server } = await serve({ tier: 'free' });
    const max = p.facade.deps.access.tiers.ofKey('free').concurrentSessions;
    const open: WyomingClient[] = [];
    for (let i = 0; i < max; i++) {
      const c = await client(server);
      c.send('synthesize-start', {});
      c.send('synthesize-chunk', { text: 'Hello, ' });
      open.push(c);
    }
    await waitFor(() => p.nodes[0]!.context.admission.sessions() === max, 10_000, 'the sessions open');
    const refused = await client(server);
    refused.send('synthesize', { text: 'One more.' });
    assert.equal((await refused.next('error')).data['code'], 'SESSION_LIMIT_EXCEEDED');
    await refused.ended();
    // One ends its stream: its place is free for the next.
    open[0]!.send('synthesize-stop');
    await open[0]!.next('synthesize-stopped');
    const next = await client(server);
    next.send('synthesize', { text: 'Now there is room.' });
    await next.next('audio-stop');
    assert.equal(next.ofType('error').length, 0);
  });

  test('a silent client is closed after the inactivity time-out with WYOMING_IDLE_TIMEOUT; one waiting for audio is not', async () => {
    const { server } = await serve({ inactivityMs: 400 });
    const silent = await client(server);
    const error = await silent.next('error', 10_000);
    assert.equal(error.data['code'], 'WYOMING_IDLE_TIMEOUT');
    await silent.ended();
    // Half-way through a stream with nothing sent: closed as well, and its session ended.
    const idle = await client(server);
    idle.send('synthesize-start', {});
    idle.send('synthesize-chunk', { text: 'Hello there.' });
    assert.equal((await idle.next('error', 10_000)).data['code'], 'WYOMING_IDLE_TIMEOUT');
    await idle.ended();
    await assertClean(server);
  });

  test('a key that is not valid: the synthesis answers its AUTH code and nothing is synthesized', async () => {
    const { server } = await serve({ apiKey: 'tts_not_a_real_key_0000000000000000' });
    const c = await client(server);
    c.send('synthesize', { text: 'Hello.' });
    const error = await c.next('error');
    assert.match(String(error.data['code']), /^AUTH_KEY_/);
    await c.ended();
    await assertClean(server);
  });
});

describe('the facade starts the Wyoming server from its config', { timeout: 120_000 }, () => {
  test('TTS_WYOMING_PORT without TTS_WYOMING_API_KEY stops the start naming the key; unset, there is no server', async () => {
    assert.throws(() => loadFacadeConfig({ TTS_WYOMING_PORT: '10200' }), /TTS_WYOMING_API_KEY/);
    const c = loadFacadeConfig({ TTS_WYOMING_PORT: '10200', TTS_WYOMING_API_KEY: 'k' });
    assert.deepEqual([c.wyomingPort, c.wyomingHost], [10200, '127.0.0.1'], 'loopback unless told');
    assert.equal(loadFacadeConfig({}).wyomingPort, undefined);
    await assert.rejects(startLoneFacade({ wyomingPort: 0 }), /TTS_WYOMING_API_KEY/);
    const off = await startLoneFacade();
    try {
      assert.equal(off.facade.wyoming, undefined);
    } finally {
      await off.stop();
    }
  });

  test('with TTS_WYOMING_PORT and a key it listens on loopback, uses that key, and stops with the facade', async () => {
    const lone = await startLoneFacade({ wyomingPort: 0, wyomingApiKey: 'tts_configured_key' });
    let stopped = false;
    try {
      const server = lone.facade.wyoming;
      assert.ok(server && server.port > 0);
      assert.equal(server.host, '127.0.0.1');
      // No scheduler behind this facade: describe says so (Home Assistant retries its setup later).
      const described = await WyomingClient.connect(server.port);
      described.send('describe');
      assert.equal((await described.next('error')).data['code'], 'TTS_NO_NODE_AVAILABLE');
      // The configured key is the caller, checked before anything else: it does not exist.
      const refused = await WyomingClient.connect(server.port);
      refused.send('synthesize', { text: 'Hello.' });
      assert.match(String((await refused.next('error')).data['code']), /^AUTH_KEY_/);
      const c = await WyomingClient.connect(server.port);
      await lone.stop();
      stopped = true;
      await c.ended(10_000);
      await assert.rejects(WyomingClient.connect(server.port), 'no longer listening');
    } finally {
      if (!stopped) await lone.stop();
    }
  });
});
