/**
 * Clients that hold the facade's connections open: headers sent a line at a time, bodies a byte at
 * a time, many sockets from one address, many long-lived streams on one credential. Real sockets
 * (node:net) against a facade started in-process; each refusal is bounded in time (generous for a
 * loaded machine) and a normal client is served meanwhile; a stream's slot comes back when it ends.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setLogSink } from '@tts/common';
import { loadFacadeConfig, parseAddressRanges } from '@tts/facade';
import { startLoneFacade, type LoneFacade } from './support/platform.js';

if (process.env['TEST_LOGS'] !== '1') setLogSink(() => undefined);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A raw client socket: what it received, and when it closed (ms after it connected). */
interface RawClient {
  readonly socket: Socket;
  readonly received: () => string;
  /** Resolves with the ms from connect to close. */
  readonly closed: Promise<number>;
  readonly isClosed: () => boolean;
}

function rawClient(url: string): Promise<RawClient> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const started = Date.now();
    let received = '';
    let isClosed = false;
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (received += d));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((r) =>
      socket.once('close', () => {
        isClosed = true;
        r(Date.now() - started);
      }),
    );
    socket.once('connect', () => resolve({ socket, received: () => received, closed, isClosed: () => isClosed }));
    socket.once('error', reject);
  });
}

/** Writes `pieces` one per `intervalMs` until the socket closes or the pieces run out. */
async function dribble(client: RawClient, pieces: readonly string[], intervalMs: number): Promise<void> {
  for (const piece of pieces) {
    if (client.isClosed() || client.socket.destroyed) return;
    client.socket.write(piece);
    await Promise.race([sleep(intervalMs), client.closed]);
  }
}

/** Resolves with the close time, or rejects when the socket is still open after `boundMs`. */
async function closedWithin(client: RawClient, boundMs: number, what: string): Promise<number> {
  const timeout = sleep(boundMs).then(() => 'open' as const);
  const result = await Promise.race([client.closed, timeout]);
  assert.notEqual(result, 'open', `${what}: the socket was still open after ${boundMs} ms`);
  return result as number;
}

async function healthy(url: string): Promise<void> {
  const res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(10_000) });
  await res.arrayBuffer();
  assert.ok(res.status === 200 || res.status === 503, `health answered ${res.status}`);
}

describe('slow-client settings', () => {
  test('defaults, and a bad value stops the start naming its variable', () => {
    const c = loadFacadeConfig({});
    assert.deepEqual(
      [c.httpHeadersTimeoutMs, c.httpRequestTimeoutMs, c.httpKeepAliveTimeoutMs, c.minBodyBytesPerSec, c.bodyRateWindowMs, c.maxConnectionsPerAddress, c.maxStreamsPerCredential],
      [10_000, 300_000, 65_000, 1024, 10_000, 64, 4],
    );
    assert.deepEqual(c.connectionCapExempt.ranges, ['127.0.0.0/8', '::1']);
    assert.deepEqual(loadFacadeConfig({ TTS_CONNECTION_CAP_EXEMPT: 'none' }).connectionCapExempt.ranges, []);
    for (const [name, value] of [
      ['TTS_HTTP_HEADERS_TIMEOUT_MS', '0'],
      ['TTS_HTTP_REQUEST_TIMEOUT_MS', 'soon'],
      ['TTS_HTTP_KEEP_ALIVE_TIMEOUT_MS', '-1'],
      ['TTS_MIN_BODY_BYTES_PER_SEC', '-5'],
      ['TTS_BODY_RATE_WINDOW_MS', '10'],
      ['TTS_MAX_CONNECTIONS_PER_ADDRESS', '1.5'],
      ['TTS_CONNECTION_CAP_EXEMPT', 'localhost'],
      ['TTS_MAX_STREAMS_PER_CREDENTIAL', '0'],
    ] as const) {
      assert.throws(() => loadFacadeConfig({ [name]: value }), new RegExp(name), `${name}=${value}`);
    }
    assert.throws(() => loadFacadeConfig({ TTS_HTTP_HEADERS_TIMEOUT_MS: '20000', TTS_HTTP_REQUEST_TIMEOUT_MS: '10000' }), /TTS_HTTP_HEADERS_TIMEOUT_MS/);
  });
});

describe('slow clients: headers and bodies', { concurrency: false }, () => {
  // Shorter than the defaults (checked above) so that each refusal comes sooner: headers within
  // HEADERS_MS, bodies at the default 1 KiB/s over WINDOW_MS windows.
  const HEADERS_MS = 4000;
  const WINDOW_MS = 4000;
  let p: LoneFacade;
  before(async () => {
    p = await startLoneFacade({ httpHeadersTimeoutMs: HEADERS_MS, bodyRateWindowMs: WINDOW_MS, connectionCapExempt: parseAddressRanges('none', 'TTS_CONNECTION_CAP_EXEMPT') });
  });
  after(async () => p?.stop());

  test('headers sent a line a second: every socket is closed within the headers time-out, a normal client is served meanwhile', async () => {
    const clients = await Promise.all(Array.from({ length: 10 }, () => rawClient(p.url)));
    const lines = ['GET /api/health HTTP/1.1\r\n', ...Array.from({ length: 60 }, (_, i) => `x-slow-${i}: ${i}\r\n`)];
    const dribbling = clients.map((c) => dribble(c, lines, 1000));
    await sleep(1000);
    await healthy(p.url);
    // HEADERS_MS plus the 1 s check interval; 60 s and up to 30 s more before.
    const times = await Promise.all(clients.map((c) => closedWithin(c, 25_000, 'slow headers')));
    await Promise.all(dribbling);
    for (const t of times) assert.ok(t >= HEADERS_MS / 2, `closed after ${t} ms, before the time-out could expire`);
    await healthy(p.url);
  });

  test('a body sent a byte a second is refused with 408 REQUEST_BODY_TOO_SLOW and its socket closed', async () => {
    const clients = await Promise.all(Array.from({ length: 10 }, () => rawClient(p.url)));
    const head = `POST /api/studio/auth/login HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n`;
    const body = Array.from({ length: 60 }, (_, i) => (i === 0 ? '{' : ' '));
    for (const c of clients) c.socket.write(head);
    const dribbling = clients.map((c) => dribble(c, body, 1000));
    await sleep(1000);
    await healthy(p.url);
    const times = await Promise.all(clients.map((c) => closedWithin(c, 25_000, 'slow body')));
    await Promise.all(dribbling);
    for (const [i, c] of clients.entries()) {
      assert.match(c.received(), /^HTTP\/1\.1 408 /, `client ${i} got ${c.received().split('\r\n')[0]}`);
      assert.match(c.received(), /REQUEST_BODY_TOO_SLOW/);
      assert.ok(times[i]! >= WINDOW_MS / 2, `closed after ${times[i]} ms`);
    }
    await healthy(p.url);
  });

  test('an upload (multipart) sent a byte a second is refused with 408 REQUEST_BODY_TOO_SLOW', async () => {
    const client = await rawClient(p.url);
    const boundary = 'slowupload';
    client.socket.write(
      `POST /api/provenance/watermark/detect HTTP/1.1\r\nhost: x\r\nx-admin-key: ${p.adminKey}\r\ncontent-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: 100000\r\n\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF`,
    );
    const dribbling = dribble(client, Array.from({ length: 60 }, () => 'a'), 1000);
    const t = await closedWithin(client, 25_000, 'slow upload');
    await dribbling;
    assert.match(client.received(), /^HTTP\/1\.1 408 /, client.received().split('\r\n')[0]);
    assert.match(client.received(), /REQUEST_BODY_TOO_SLOW/);
    assert.ok(t >= WINDOW_MS / 2, `closed after ${t} ms`);
  });

  test('the unread rest of a body trickling after the answer does not keep the connection', async () => {
    const client = await rawClient(p.url);
    // An operation that reads no body: the answer goes out at once, the body is left to discard.
    client.socket.write(`GET /api/health HTTP/1.1\r\nhost: x\r\ncontent-type: text/plain\r\ncontent-length: 1000\r\n\r\nx`);
    const dribbling = dribble(client, Array.from({ length: 60 }, () => 'x'), 1000);
    await closedWithin(client, 25_000, 'slow leftovers');
    await dribbling;
    assert.match(client.received(), /^HTTP\/1\.1 (200|503) /, client.received().split('\r\n')[0]);
  });

  test('a body sent at a modest pace (4 KiB/s for 6 s, longer than a window) is read whole', async () => {
    const body = `{"username":"nobody-here","password":"${'p'.repeat(100)}"}`.padEnd(24 * 1024, ' ');
    const client = await rawClient(p.url);
    client.socket.write(`POST /api/studio/auth/login HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`);
    const pieces = Array.from({ length: 12 }, (_, i) => body.slice(i * 2048, (i + 1) * 2048));
    await dribble(client, pieces, 500);
    await closedWithin(client, 20_000, 'paced body');
    // The body was read and the login refused on its merits (no such account), not on pace.
    assert.match(client.received(), /^HTTP\/1\.1 (401|422|429) /, client.received().split('\r\n')[0]);
  });

  test('a multi-MB upload at full speed is read whole', async () => {
    const boundary = 'slowclients';
    const file = Buffer.alloc(6 * 1024 * 1024, 0x61);
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await fetch(`${p.url}/api/provenance/watermark/detect`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-admin-key': p.adminKey },
      body,
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    assert.notEqual(res.status, 408, text);
    assert.notEqual(res.status, 413, text);
    assert.doesNotMatch(text, /REQUEST_BODY_TOO_SLOW/);
  });
});

describe('connections per address', { concurrency: false }, () => {
  const CAP = 6;
  let p: LoneFacade;
  before(async () => {
    p = await startLoneFacade({ maxConnectionsPerAddress: CAP, connectionCapExempt: parseAddressRanges('none', 'TTS_CONNECTION_CAP_EXEMPT') });
  });
  after(async () => p?.stop());

  test('over the cap a socket is closed at once; closing one lets a new one in', async () => {
    const held = await Promise.all(Array.from({ length: CAP }, () => rawClient(p.url)));
    await sleep(200);
    assert.ok(held.every((c) => !c.isClosed()), 'a socket under the cap was closed');
    const over = await rawClient(p.url);
    await closedWithin(over, 5_000, 'the socket over the cap');
    assert.equal(over.received(), '', 'nothing is answered on a refused socket');
    assert.ok(held.every((c) => !c.isClosed()), 'a socket under the cap was closed');
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await sleep(200);
    const next = await rawClient(p.url);
    next.socket.write('GET /api/health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    await closedWithin(next, 10_000, 'the next request');
    assert.match(next.received(), /^HTTP\/1\.1 (200|503) /);
    for (const c of held) c.socket.destroy();
  });
});

describe('connections per address: defaults', () => {
  let p: LoneFacade;
  before(async () => {
    p = await startLoneFacade();
  });
  after(async () => p?.stop());

  test('loopback is exempt by default: 80 sockets from 127.0.0.1 stay open (the saturation bench opens 64)', async () => {
    const held = await Promise.all(Array.from({ length: 80 }, () => rawClient(p.url)));
    await sleep(500);
    assert.equal(held.filter((c) => c.isClosed()).length, 0);
    await healthy(p.url);
    for (const c of held) c.socket.destroy();
  });
});

/** Opens the log stream; resolves once its headers arrived. */
async function openLogStream(url: string, adminKey: string): Promise<{ status: number; code: string | undefined; retryAfter: string | null; controller: AbortController; events: () => number }> {
  const controller = new AbortController();
  const res = await fetch(`${url}/api/logs/stream?tail=0&heartbeat_sec=0.5`, { headers: { 'x-admin-key': adminKey, accept: 'text/event-stream' }, signal: controller.signal });
  if (res.status !== 200) {
    const body = (await res.json()) as { code?: string };
    return { status: res.status, code: body.code, retryAfter: res.headers.get('retry-after'), controller, events: () => 0 };
  }
  let heartbeats = 0;
  void (async () => {
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) heartbeats += (Buffer.from(chunk).toString('utf8').match(/event: heartbeat/g) ?? []).length;
    } catch {
      // aborted by the test
    }
  })();
  return { status: 200, code: undefined, retryAfter: null, controller, events: () => heartbeats };
}

describe('long-lived streams per credential', { concurrency: false }, () => {
  let p: LoneFacade;
  before(async () => {
    // A short request time-out: it covers receiving the request only, never a long answer.
    p = await startLoneFacade({ httpRequestTimeoutMs: 2000, httpHeadersTimeoutMs: 2000 });
  });
  after(async () => p?.stop());

  test('the fifth log stream of one credential answers 429 STREAM_LIMIT_EXCEEDED; one closed lets another in', async () => {
    const open = [];
    for (let i = 0; i < 4; i++) open.push(await openLogStream(p.url, p.adminKey));
    assert.deepEqual(open.map((s) => s.status), [200, 200, 200, 200]);
    const fifth = await openLogStream(p.url, p.adminKey);
    assert.equal(fifth.status, 429);
    assert.equal(fifth.code, 'STREAM_LIMIT_EXCEEDED');
    assert.ok(Number(fifth.retryAfter) >= 1, `Retry-After ${fifth.retryAfter}`);
    // The client goes away: its slot is released.
    open[0]!.controller.abort();
    let again: Awaited<ReturnType<typeof openLogStream>> | undefined;
    for (let tries = 0; tries < 50; tries++) {
      again = await openLogStream(p.url, p.adminKey);
      if (again.status === 200) break;
      await sleep(100);
    }
    assert.equal(again?.status, 200, 'no stream was accepted after one closed');
    open[0] = again!;
    // Past the 2 s request time-out, the streams still flow.
    const before = open.map((s) => s.events());
    await sleep(4000);
    for (const [i, s] of open.entries()) assert.ok(s.events() > before[i]! + 2, `stream ${i} stopped: ${before[i]} -> ${s.events()} heartbeats`);
    for (const s of open) s.controller.abort();
    // Every slot comes back once the server has seen the clients go.
    for (let tries = 0; tries < 50 && p.facade.deps.streamSlots.openOf('admin') > 0; tries++) await sleep(100);
    assert.equal(p.facade.deps.streamSlots.openOf('admin'), 0);
  });

  test('streams that end by themselves (follow=false) release their slots', async () => {
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${p.url}/api/logs/stream?tail=1&follow=false`, { headers: { 'x-admin-key': p.adminKey } });
      await res.text();
      assert.equal(res.status, 200, `stream ${i}`);
    }
  });
});
