/**
 * Limits everywhere input enters the facade, sent as an attacker would over real HTTP: bodies over
 * their caps (declared and chunked, refused before the body is read), multipart on operations that
 * take none or take no file, busboy's limits, compressed bodies and odd charsets, numbers beyond
 * their ranges, the job-token rate limit and the aggregated audit of denied guesses. Every refusal
 * answers 4xx with a stable code; memory stays bounded under large uploads; nothing stored changes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setLogSink } from '@tts/common';
import { parseTrustedProxies } from '@tts/facade';
import { startLoneFacade, type LoneFacade } from './support/platform.js';

if (process.env['TEST_LOGS'] !== '1') setLogSink(() => undefined);

const MiB = 1024 * 1024;
/** The facade's caps in this test: JSON 64 KiB, uploads 1 MiB. */
const JSON_CAP = 64 * 1024;
const UPLOAD_CAP = MiB;
/**
 * Denials of one address and job within this window are one audit record (shorter than the default
 * minute for the test, long enough that 150 guesses fit in it on a loaded machine: with 1.5 s, a run
 * under a load average of 8 took 4 windows and made 5 records).
 */
const DENIAL_WINDOW_MS = 10_000;

interface Answer {
  readonly status: number;
  readonly code: string | undefined;
  readonly headers: IncomingMessage['headers'];
  /** Bytes of the body the client had written when the answer arrived. */
  readonly sentWhenAnswered: number;
}

/**
 * Sends a request whose body is `total` bytes (`head` first, then filler) in 64 KiB chunks,
 * chunked unless `contentLength` is given, and stops sending once the answer arrives: the answer
 * tells how much had been sent by then.
 */
function send(url: string, options: { method?: string; headers?: Record<string, string>; head?: string; total?: number; contentLength?: number; tail?: string }): Promise<Answer> {
  const head = Buffer.from(options.head ?? '');
  const tail = Buffer.from(options.tail ?? '');
  const total = Math.max(options.total ?? 0, head.length + tail.length);
  const filler = Buffer.alloc(64 * 1024, 0x61);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const headers: Record<string, string> = { ...options.headers };
    if (options.contentLength !== undefined) headers['content-length'] = String(options.contentLength);
    const req = request(url, { method: options.method ?? 'POST', headers }, (res) => {
      answered = true;
      const sentWhenAnswered = sent;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let code: string | undefined;
        try {
          const body = JSON.parse(text) as { code?: string; error?: { platform_code?: string } };
          code = body.code ?? body.error?.platform_code;
        } catch {
          code = undefined;
        }
        req.destroy();
        resolve({ status: res.statusCode ?? 0, code, headers: res.headers, sentWhenAnswered });
      });
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const pump = (): void => {
      if (answered) return;
      if (sent === 0 && head.length > 0) {
        sent += head.length;
        if (!req.write(head)) {
          req.once('drain', pump);
          return;
        }
      }
      while (!answered && sent < total - tail.length) {
        const chunk = filler.subarray(0, Math.min(filler.length, total - tail.length - sent));
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) {
        sent += tail.length;
        req.end(tail);
      }
    };
    pump();
  });
}

/**
 * A hostile client: sends a chunked body of `total` bytes (`head` first) over a raw socket whatever
 * the server answers meanwhile, then returns the status line of the answer.
 */
async function sendWhole(url: string, path: string, headers: Record<string, string>, head: string, total: number): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => (received += d));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  const lines = Object.entries({ host: hostname, 'transfer-encoding': 'chunked', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  const write = async (data: Buffer | string): Promise<void> => {
    if (!socket.destroyed && !socket.write(data)) await Promise.race([new Promise((r) => socket.once('drain', r)), closed]);
  };
  await write(`POST ${path} HTTP/1.1\r\n${lines}\r\n`);
  await write(`${Buffer.byteLength(head).toString(16)}\r\n${head}\r\n`);
  // One buffer sent again and again: the client itself allocates nothing per chunk.
  const filler = Buffer.alloc(MiB, 0x61);
  const size = Buffer.from(`${filler.length.toString(16)}\r\n`);
  const crlf = Buffer.from('\r\n');
  for (let sent = head.length; sent < total && !socket.destroyed; sent += filler.length) {
    await write(size);
    await write(filler);
    await write(crlf);
  }
  socket.end('0\r\n\r\n');
  await Promise.race([closed, new Promise((r) => setTimeout(r, 2000))]);
  socket.destroy();
  return received.split('\r\n')[0] ?? '';
}

/** A multipart body's opening with one part (a file part when `filename` is given). */
function part(boundary: string, name: string, filename?: string): string {
  if (filename === undefined) return `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`;
  return `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
}

/** The temporary files of uploads left in `dir`. */
const leftovers = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

describe('input limits of the facade', () => {
  let lone: LoneFacade;
  let facade: { url: string };
  let apiKey: string;
  let keyId: string;
  let admin: Record<string, string>;
  let uploadTmpDir: string;

  before(async () => {
    uploadTmpDir = mkdtempSync(join(tmpdir(), 'tts-limits-uploads-'));
    lone = await startLoneFacade({
      validateResponses: true,
      maxBodyBytes: JSON_CAP,
      maxUploadBytes: UPLOAD_CAP,
      uploadTmpDir,
      auditDenialWindowMs: DENIAL_WINDOW_MS,
      // The loopback peer is a proxy: X-Forwarded-For picks each test's own client address.
      trustedProxies: parseTrustedProxies('127.0.0.1,::1'),
    });
    facade = lone;
    admin = { 'x-admin-key': lone.adminKey };
    const created = await fetch(`${lone.url}/api/auth/keys`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'limits', tier: 'pro' }) });
    assert.equal(created.status, 201);
    const key = (await created.json()) as { key_id: string; api_key: string };
    apiKey = key.api_key;
    keyId = key.key_id;
  });

  after(async () => {
    await lone.stop();
    rmSync(uploadTmpDir, { recursive: true, force: true });
  });

  describe('body size', () => {
    test('a declared Content-Length over the JSON cap: 413 at once, before any byte of the body', async () => {
      const answer = await send(`${facade.url}/api/errors/classify`, { headers: { 'content-type': 'application/json' }, contentLength: 50 * MiB, total: 50 * MiB });
      assert.equal(answer.status, 413);
      assert.equal(answer.code, 'REQUEST_BODY_TOO_LARGE');
      assert.ok(answer.sentWhenAnswered < 8 * MiB, `answered after ${answer.sentWhenAnswered} bytes`);
    });

    test('a chunked JSON body: 413 as soon as it passes the cap, not after the end', async () => {
      const answer = await send(`${facade.url}/api/errors/classify`, { headers: { 'content-type': 'application/json' }, head: '{"message": "', total: 64 * MiB });
      assert.equal(answer.status, 413);
      assert.equal(answer.code, 'REQUEST_BODY_TOO_LARGE');
      assert.ok(answer.sentWhenAnswered < 32 * MiB, `answered after ${answer.sentWhenAnswered} of 64 MiB`);
    });

    test('a JSON body within the cap is still read and answered', async () => {
      const res = await fetch(`${facade.url}/api/errors/classify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'x', pad: 'x'.repeat(JSON_CAP / 2) }) });
      assert.equal(res.status, 200);
    });

    test('an urlencoded form over 64 KiB or 100 fields: 413', async () => {
      const big = await send(`${facade.url}/api/auth/challenge`, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, head: 'challenge=', total: 4 * MiB });
      assert.equal(big.status, 413);
      assert.equal(big.code, 'REQUEST_BODY_TOO_LARGE');
      const many = await fetch(`${facade.url}/api/auth/challenge`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: Array.from({ length: 150 }, (_, i) => `f${i}=1`).join('&'),
      });
      assert.equal(many.status, 413);
      assert.equal(((await many.json()) as { code: string }).code, 'REQUEST_BODY_TOO_LARGE');
    });
  });

  describe('multipart', () => {
    const boundary = 'limitsboundary';
    const multipart = { 'content-type': `multipart/form-data; boundary=${boundary}` };

    test('an operation that takes no multipart answers 415 without reading the body', async () => {
      for (const path of ['/api/errors/classify', '/v1/audio/speech', '/api/auth/keys']) {
        const answer = await send(`${facade.url}${path}`, { headers: { ...multipart, ...admin, 'x-api-key': apiKey }, head: part(boundary, 'file', 'big.bin'), total: 16 * MiB });
        assert.equal(answer.status, 415, path);
        assert.equal(answer.code, 'REQUEST_CONTENT_TYPE_UNSUPPORTED', path);
        assert.ok(answer.sentWhenAnswered < 8 * MiB, `${path}: answered after ${answer.sentWhenAnswered} bytes`);
      }
    });

    test('a text-only form (the challenge, web jobs) refuses a file part at once', async () => {
      const challenge = await send(`${facade.url}/api/auth/challenge`, { headers: multipart, head: part(boundary, 'challenge', 'big.bin'), total: 16 * MiB });
      assert.equal(challenge.status, 422);
      assert.equal(challenge.code, 'UPLOAD_TOO_MANY_FILES');
      assert.ok(challenge.sentWhenAnswered < 8 * MiB, `answered after ${challenge.sentWhenAnswered} bytes`);
      // The web job form documents no file: a 10 MB file part is refused, not accepted.
      const webJob = await send(`${facade.url}/api/web/jobs/tts`, {
        headers: { ...multipart, 'x-api-key': apiKey, 'x-forwarded-for': '198.51.100.1' },
        head: `${part(boundary, 'text')}Hello.\r\n${part(boundary, 'audio', 'big.wav')}`,
        total: 10 * MiB,
      });
      assert.equal(webJob.status, 422);
      assert.equal(webJob.code, 'UPLOAD_TOO_MANY_FILES');
      // A text field of a text-only form over its size, too many fields, a body over the form's cap.
      const longField = await send(`${facade.url}/api/auth/challenge`, { headers: multipart, head: part(boundary, 'challenge'), total: 200 * 1024, tail: `\r\n--${boundary}--\r\n` });
      assert.equal(longField.status, 422);
      assert.equal(longField.code, 'VALIDATION_FAILED');
      const fields = Array.from({ length: 60 }, (_, i) => `${part(boundary, `f${i}`)}1\r\n`).join('') + `--${boundary}--\r\n`;
      const tooMany = await send(`${facade.url}/api/auth/challenge`, { headers: multipart, head: fields });
      assert.equal(tooMany.status, 413);
      assert.equal(tooMany.code, 'REQUEST_BODY_TOO_LARGE');
      // One endless text field: the form's cap (256 KiB beside no file) stops it while it streams.
      const endless = await send(`${facade.url}/api/auth/challenge`, { headers: multipart, head: part(boundary, 'challenge'), total: 16 * MiB });
      assert.equal(endless.status, 413);
      assert.equal(endless.code, 'REQUEST_BODY_TOO_LARGE');
      assert.ok(endless.sentWhenAnswered < 8 * MiB, `answered after ${endless.sentWhenAnswered} bytes`);
      const declared = await send(`${facade.url}/api/auth/challenge`, { headers: multipart, contentLength: 64 * MiB, total: 64 * MiB });
      assert.equal(declared.status, 413);
      assert.equal(declared.code, 'REQUEST_BODY_TOO_LARGE');
      assert.ok(declared.sentWhenAnswered < 8 * MiB);
    });

    test("a file over the operation's cap: 413 UPLOAD_TOO_LARGE while it streams, no temporary file left", async () => {
      const headers = { ...multipart, 'x-api-key': apiKey };
      const streamed = await send(`${facade.url}/api/provenance/watermark/detect`, { headers, head: part(boundary, 'audio', 'big.wav'), total: 64 * MiB });
      assert.equal(streamed.status, 413);
      assert.equal(streamed.code, 'UPLOAD_TOO_LARGE');
      assert.ok(streamed.sentWhenAnswered < 32 * MiB, `answered after ${streamed.sentWhenAnswered} of 64 MiB`);
      const declared = await send(`${facade.url}/api/reference/validate`, { headers, contentLength: 64 * MiB, total: 64 * MiB });
      assert.equal(declared.status, 413);
      assert.equal(declared.code, 'UPLOAD_TOO_LARGE');
      // Two files where the form has one file field.
      const two = `${part(boundary, 'audio', 'a.wav')}abc\r\n${part(boundary, 'audio2', 'b.wav')}def\r\n--${boundary}--\r\n`;
      const twice = await send(`${facade.url}/api/provenance/watermark/detect`, { headers, head: two });
      assert.equal(twice.status, 422);
      assert.equal(twice.code, 'UPLOAD_TOO_MANY_FILES');
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(leftovers(uploadTmpDir), []);
    });

    test('four concurrent 256 MB uploads to an operation that takes no file keep the facade within 100 MB', async (t) => {
      // The facade runs in this process: its growth is this process's.
      global.gc?.();
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
      try {
        const answers = await Promise.all(
          Array.from({ length: 4 }, (_, i) =>
            // Sent whole, whatever the answer: the facade discards the rest unread, never buffering it.
            sendWhole(facade.url, '/api/auth/challenge', { ...multipart, 'x-forwarded-for': `198.51.100.${10 + i}` }, part(boundary, 'challenge', `big-${i}.bin`), 256 * MiB),
          ),
        );
        for (const statusLine of answers) assert.equal(statusLine, 'HTTP/1.1 422 Unprocessable Entity');
      } finally {
        clearInterval(sampler);
      }
      const growth = (peak - baseline) / MiB;
      t.diagnostic(`RSS ${(baseline / MiB).toFixed(0)} MB before, peak ${(peak / MiB).toFixed(0)} MB during 4 x 256 MB (growth ${growth.toFixed(0)} MB)`);
      assert.ok(growth < 100, `RSS grew by ${growth.toFixed(0)} MB`);
    });
  });

  describe('encodings and charsets', () => {
    test('a Content-Encoding other than identity answers 415 without inflating anything', async () => {
      for (const encoding of ['gzip', 'br', 'deflate', 'garbage', 'gzip, br']) {
        const res = await fetch(`${facade.url}/api/errors/classify`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': encoding }, body: '{"message": "x"}' });
        assert.equal(res.status, 415, encoding);
        assert.equal(((await res.json()) as { code: string }).code, 'REQUEST_CONTENT_ENCODING_UNSUPPORTED', encoding);
      }
      const identity = await fetch(`${facade.url}/api/errors/classify`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'identity' }, body: '{"message": "x"}' });
      assert.equal(identity.status, 200);
      const openai = await fetch(`${facade.url}/v1/audio/speech`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', authorization: `Bearer ${apiKey}` }, body: '{}' });
      assert.equal(openai.status, 415);
      assert.equal(((await openai.json()) as { error: { platform_code: string } }).error.platform_code, 'REQUEST_CONTENT_ENCODING_UNSUPPORTED');
    });

    test('a charset other than UTF-8 answers 415; UTF-8 spelled either way is read', async () => {
      for (const type of ['application/json; charset=latin1', 'application/json; charset=klingon', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded; charset=foo']) {
        const res = await fetch(`${facade.url}/api/errors/classify`, { method: 'POST', headers: { 'content-type': type }, body: '{"message": "x"}' });
        assert.equal(res.status, 415, type);
        assert.equal(((await res.json()) as { code: string }).code, 'REQUEST_CONTENT_TYPE_UNSUPPORTED', type);
      }
      for (const type of ['application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'application/json;charset=utf8']) {
        const res = await fetch(`${facade.url}/api/errors/classify`, { method: 'POST', headers: { 'content-type': type }, body: '{"message": "x"}' });
        assert.equal(res.status, 200, type);
      }
    });
  });

  describe('numbers', () => {
    test('query numbers beyond their range, int32 or finite answer 422, never 500', async () => {
      const paths = [
        '/api/compliance/abuse/reports?limit=', '/api/usage/job-access-audit?limit=', '/api/usage/summary?limit=', '/api/studio/admin/users?limit=',
        '/api/slo/alerts?window_minutes=', '/api/slo/dashboard?window_minutes=', '/api/hub/token/status?timeout_sec=',
      ];
      for (const path of paths) {
        for (const value of ['1e400', 'Infinity', '-Infinity', '2147483648', '-2147483649', '99999999999999999999', '1e21', 'NaN']) {
          const res = await fetch(`${facade.url}${path}${encodeURIComponent(value)}`, { headers: admin });
          const body = (await res.json()) as { code: string };
          assert.equal(res.status, 422, `${path}${value}: ${JSON.stringify(body)}`);
          assert.equal(body.code, 'VALIDATION_FAILED');
        }
      }
    });

    test('job token routes: after_event_id beyond int32 answers 422', async () => {
      const res = await fetch(`${facade.url}/api/web/jobs/job_abcdefgh/events?token=x&after_event_id=4294967296`);
      assert.equal(res.status, 422);
      assert.equal(((await res.json()) as { code: string }).code, 'VALIDATION_FAILED');
    });

    test('body numbers beyond their range or not finite answer 422', async () => {
      const bodies = [
        '{"name": "x", "tier": "pro", "rate_limit_per_minute": 1e400}', '{"name": "x", "tier": "pro", "rate_limit_per_minute": 2147483648}', '{"name": "x", "tier": "pro", "rate_limit_per_minute": -1e400}',
        '{"name": "x", "tier": "pro", "daily_char_quota": 1e20}', '{"name": "x", "tier": "pro", "monthly_char_quota": 2147483648}', '{"name": "x", "tier": "pro", "daily_char_quota": 1e400}',
      ];
      for (const body of bodies) {
        const res = await fetch(`${facade.url}/api/auth/keys`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body });
        assert.equal(res.status, 422, body);
        assert.equal(((await res.json()) as { code: string }).code, 'VALIDATION_FAILED');
      }
      for (const body of ['{"daily_char_quota": 1e20}', '{"monthly_char_quota": 9007199254740993}']) {
        const res = await fetch(`${facade.url}/api/auth/keys/${keyId}`, { method: 'PATCH', headers: { ...admin, 'content-type': 'application/json' }, body });
        assert.equal(res.status, 422, body);
      }
      for (const body of ['{"text": "hi", "sample_rate": 1e400}', '{"text": "hi", "speed": 1e400}', '{"text": "hi", "sample_rate": 4294967296}']) {
        const res = await fetch(`${facade.url}/api/tts`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body });
        assert.equal(res.status, 422, body);
      }
    });
  });

  test('refused requests change nothing stored', async () => {
    const patch = `${facade.url}/api/auth/keys/${keyId}`;
    const refused = [
      await send(patch, { method: 'PATCH', headers: { ...admin, 'content-type': 'application/json' }, head: '{"name": "changed", "pad": "', total: 2 * MiB }),
      await send(patch, { method: 'PATCH', headers: { ...admin, 'content-type': 'application/json', 'content-encoding': 'gzip' }, head: '{"name": "changed"}' }),
      await send(patch, { method: 'PATCH', headers: { ...admin, 'content-type': 'multipart/form-data; boundary=b' }, head: '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nchanged\r\n--b--\r\n' }),
      await send(patch, { method: 'PATCH', headers: { ...admin, 'content-type': 'application/json; charset=latin1' }, head: '{"name": "changed"}' }),
    ];
    assert.deepEqual(refused.map((a) => a.status), [413, 415, 415, 415]);
    const list = (await (await fetch(`${facade.url}/api/auth/keys`, { headers: admin })).json()) as { keys: { key_id: string; name: string }[] };
    assert.equal(list.keys.find((k) => k.key_id === keyId)?.name, 'limits');
  });

  describe('job token routes', () => {
    const jobId = `job_${randomBytes(8).toString('hex')}`;
    const guess = (address: string, path = ''): Promise<Response> => fetch(`${facade.url}/api/web/jobs/${jobId}${path}?token=guess-${randomBytes(4).toString('hex')}`, { headers: { 'x-forwarded-for': address } });

    test('are counted per client address (job_token profile, 300 a minute): the 301st call answers 429', async () => {
      const first = await guess('203.0.113.50');
      assert.equal(first.status, 403);
      assert.equal(first.headers.get('ratelimit-limit'), '300');
      assert.equal(first.headers.get('ratelimit-remaining'), '299');
      for (let i = 1; i < 300; i++) await (await guess('203.0.113.50', i % 2 === 0 ? '/audio' : '/events')).arrayBuffer();
      const over = await guess('203.0.113.50');
      assert.equal(over.status, 429);
      assert.equal(((await over.json()) as { code: string }).code, 'RATE_LIMITED');
      assert.ok(Number(over.headers.get('retry-after')) >= 1);
      const other = await guess('203.0.113.51');
      assert.equal(other.status, 403, 'another address has its own budget');
    });

    test('150 denied guesses from one address are two audit records with their count, not 150', async () => {
      const target = `job_${randomBytes(8).toString('hex')}`;
      const started = Date.now();
      for (let i = 0; i < 150; i++) {
        const res = await fetch(`${facade.url}/api/web/jobs/${target}?token=wrong-${i}`, { headers: { 'x-forwarded-for': '203.0.113.60' } });
        assert.equal(res.status, 403);
        await res.arrayBuffer();
      }
      const records = async (): Promise<{ job_id: string; attempts: number; client_address: string | null; allowed: boolean }[]> => {
        const res = await fetch(`${facade.url}/api/usage/job-access-audit?only_denied=true&limit=5000`, { headers: admin });
        assert.equal(res.status, 200);
        return ((await res.json()) as { records: { job_id: string; attempts: number; client_address: string | null; allowed: boolean }[] }).records.filter((r) => r.job_id === target);
      };
      const first = await records();
      assert.ok(Date.now() - started < DENIAL_WINDOW_MS, `the guesses fit in one window (${Date.now() - started} ms)`);
      assert.equal(first.length, 1, 'the first denial is recorded at once');
      assert.equal(first[0]!.attempts, 1);
      assert.equal(first[0]!.client_address, '203.0.113.60');
      await new Promise((r) => setTimeout(r, DENIAL_WINDOW_MS - (Date.now() - started) + 1000));
      const all = await records();
      assert.equal(all.length, 2, JSON.stringify(all));
      assert.equal(all.reduce((n, r) => n + r.attempts, 0), 150);
      assert.ok(all.every((r) => !r.allowed && r.client_address === '203.0.113.60'));
    });
  });
});
