import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import { startFakeSlipOk, type FakeSlipOk } from '../testing/fake-slipok.js';
import { SlipOkVerifier, type SlipImage, type SlipVerdict } from './slip-verifier.js';

const KEY = 'slipok-unit-key-7Qx9';
const BRANCH = '31337';
const RECEIVER = 'xxx-x-x5678-x';
const PRICE = 99;

/** A valid 1x1 RGB PNG; `seed` picks the pixel, so each seed gives other bytes. */
function png(seed: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const scanline = Buffer.from([0, seed & 0xff, (seed >> 8) & 0xff, (seed >> 16) & 0xff]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(scanline)), chunk('IEND', Buffer.alloc(0))]);
}

function expectKind<K extends SlipVerdict['kind']>(v: SlipVerdict, kind: K): Extract<SlipVerdict, { kind: K }> {
  assert.equal(v.kind, kind, `verdict ${JSON.stringify(v)}`);
  return v as Extract<SlipVerdict, { kind: K }>;
}

function pick(v: Extract<SlipVerdict, { kind: 'error' }>): [number | null, number | null] {
  return [v.httpStatus, v.providerCode];
}

let dir: string;
let seed = 0;
const transRef = (): string => `0141${randomUUID().replaceAll('-', '').slice(0, 16).toUpperCase()}`;

/** A slip image on disk, as an upload's temporary file. */
async function slipFile(bytes: Buffer = png(++seed), contentType = 'image/png'): Promise<{ bytes: Buffer; image: SlipImage }> {
  const path = join(dir, `upload-${randomUUID()}`);
  await writeFile(path, bytes);
  return { bytes, image: { path, filename: 'slip.png', contentType } };
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'slip-verifier-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('SlipOkVerifier against the fake SlipOK', () => {
  let fake: FakeSlipOk;
  let verifier: SlipOkVerifier;
  before(async () => {
    fake = await startFakeSlipOk({ apiKey: KEY, branchId: BRANCH, receiverAccount: RECEIVER });
    verifier = new SlipOkVerifier({ baseUrl: fake.url, apiKey: KEY, branchId: BRANCH, timeoutMs: 5000 });
  });
  after(async () => {
    await fake?.close();
  });

  it('a slip of the expected amount is genuine; the request carries the key, the image in "files", the amount and log=true', async () => {
    const { bytes, image } = await slipFile();
    const ref = transRef();
    fake.register(bytes, { transRef: ref, amount: PRICE });
    const calls = fake.calls;
    const v = expectKind(await verifier.verify(image, PRICE), 'genuine');
    assert.equal(fake.calls - calls, 1);
    assert.equal(v.facts.transRef, ref);
    assert.equal(v.facts.amount, PRICE);
    assert.equal(v.facts.receiverAccount, RECEIVER);
    assert.equal(v.facts.receiverName, 'สตูดิโอ ทดสอบ');
    assert.deepEqual([v.facts.sendingBank, v.facts.receivingBank], ['014', '004']);
    assert.ok(v.facts.transTimestamp !== null && Math.abs(Date.parse(v.facts.transTimestamp) - Date.now()) < 60_000, `transTimestamp ${v.facts.transTimestamp}`);
    assert.equal(verifier.provider, 'slipok');

    const seen = fake.lastRequest;
    assert.ok(seen);
    assert.equal(seen.method, 'POST');
    assert.equal(seen.path, `/api/line/apikey/${BRANCH}`);
    assert.equal(seen.authorization, KEY);
    assert.match(seen.contentType ?? '', /^multipart\/form-data; boundary=/);
    assert.equal(seen.fileField, 'files');
    assert.equal(seen.fileName, 'slip.png');
    assert.equal(seen.fileType, 'image/png');
    assert.equal(seen.fileSha256, createHash('sha256').update(bytes).digest('hex'), 'the image goes unchanged');
    assert.equal(seen.amount, String(PRICE));
    assert.equal(seen.log, 'true');
    assert.deepEqual(Object.keys(seen.fields).sort(), ['amount', 'log']);
  });

  it('a slip of another amount is amount_mismatch (1013) with the facts', async () => {
    const { bytes, image } = await slipFile();
    const ref = transRef();
    fake.register(bytes, { transRef: ref, amount: PRICE - 1 });
    const v = expectKind(await verifier.verify(image, PRICE), 'amount_mismatch');
    assert.equal(v.providerCode, 1013);
    assert.equal(v.facts?.transRef, ref);
    assert.equal(v.facts?.amount, PRICE - 1);
    assert.ok(v.message.length > 0);
  });

  it('a slip paid to another account is wrong_receiver (1014) with the facts', async () => {
    const { bytes, image } = await slipFile();
    fake.register(bytes, { transRef: transRef(), amount: PRICE, receiverAccount: 'xxx-x-x0000-x' });
    const v = expectKind(await verifier.verify(image, PRICE), 'wrong_receiver');
    assert.equal(v.providerCode, 1014);
    assert.equal(v.facts?.receiverAccount, 'xxx-x-x0000-x');
  });

  it('a QR that is not a payment slip (1008) and a transaction the bank does not have (1011) are fraud', async () => {
    const forged = await slipFile();
    fake.register(forged.bytes, { transRef: transRef(), amount: PRICE, outcome: 'fraud_not_slip' });
    const notSlip = expectKind(await verifier.verify(forged.image, PRICE), 'fraud');
    assert.equal(notSlip.providerCode, 1008);
    assert.equal(notSlip.facts, null);

    const invented = await slipFile();
    fake.register(invented.bytes, { transRef: transRef(), amount: PRICE, outcome: 'not_found' });
    const notFound = expectKind(await verifier.verify(invented.image, PRICE), 'fraud');
    assert.equal(notFound.providerCode, 1011);
  });

  it('an image without a QR code (1007) and a file that is not an image (1005) are unreadable', async () => {
    const plain = await slipFile();
    assert.equal(expectKind(await verifier.verify(plain.image, PRICE), 'unreadable').providerCode, 1007);
    const blurred = await slipFile();
    fake.register(blurred.bytes, { transRef: transRef(), amount: PRICE, outcome: 'no_qr' });
    assert.equal(expectKind(await verifier.verify(blurred.image, PRICE), 'unreadable').providerCode, 1007);
    const text = await slipFile(Buffer.from('this is not an image at all'), 'text/plain');
    assert.equal(expectKind(await verifier.verify(text.image, PRICE), 'unreadable').providerCode, 1005);
  });

  it('the second submission of a slip is duplicate (1012) with the facts of the transfer', async () => {
    const { bytes, image } = await slipFile();
    const ref = transRef();
    fake.register(bytes, { transRef: ref, amount: PRICE });
    expectKind(await verifier.verify(image, PRICE), 'genuine');
    const again = expectKind(await verifier.verify(image, PRICE), 'duplicate');
    assert.equal(again.providerCode, 1012);
    assert.equal(again.facts?.transRef, ref, 'the caller can match the transfer');
    assert.equal(again.facts?.amount, PRICE);
    // Another image of the same transfer is the same slip to the provider.
    const rescreen = await slipFile();
    fake.register(rescreen.bytes, { transRef: ref, amount: PRICE });
    assert.equal(expectKind(await verifier.verify(rescreen.image, PRICE), 'duplicate').facts?.transRef, ref);
  });

  it('bank unavailable (1009) and too soon after the transfer (1010) are pending', async () => {
    const down = await slipFile();
    fake.register(down.bytes, { transRef: transRef(), amount: PRICE, outcome: 'bank_down' });
    assert.equal(expectKind(await verifier.verify(down.image, PRICE), 'pending').providerCode, 1009);
    const early = await slipFile();
    fake.register(early.bytes, { transRef: transRef(), amount: PRICE, outcome: 'too_soon' });
    assert.equal(expectKind(await verifier.verify(early.image, PRICE), 'pending').providerCode, 1010);
  });

  it('a provider failure (HTTP 500) is error with its status', async () => {
    const { bytes, image } = await slipFile();
    fake.register(bytes, { transRef: transRef(), amount: PRICE, outcome: 'server_error' });
    const v = expectKind(await verifier.verify(image, PRICE), 'error');
    assert.deepEqual(pick(v), [500, null]);
  });

  it('a wrong API key (1002) or an unknown branch (1001) is error, and no verdict carries a key', async () => {
    const { bytes, image } = await slipFile();
    fake.register(bytes, { transRef: transRef(), amount: PRICE });
    const wrongKey = 'slipok-wrong-key-Zz81';
    const badKey = expectKind(await new SlipOkVerifier({ baseUrl: fake.url, apiKey: wrongKey, branchId: BRANCH, timeoutMs: 5000 }).verify(image, PRICE), 'error');
    assert.deepEqual(pick(badKey), [401, 1002]);
    assert.equal(fake.lastRequest?.authorization, wrongKey);
    assert.ok(!JSON.stringify(badKey).includes(wrongKey));
    const badBranch = expectKind(await new SlipOkVerifier({ baseUrl: fake.url, apiKey: KEY, branchId: '999', timeoutMs: 5000 }).verify(image, PRICE), 'error');
    assert.deepEqual(pick(badBranch), [400, 1001]);
    assert.equal(fake.lastRequest?.path, '/api/line/apikey/999');
    // Neither check used up the slip: the right key and branch still verify it.
    expectKind(await verifier.verify(image, PRICE), 'genuine');
  });

  it('a slow provider is timeout after timeoutMs, and the fake closes at once with an answer pending', async (t) => {
    const slow = await startFakeSlipOk({ apiKey: KEY, branchId: BRANCH });
    t.after(() => slow.close());
    const { bytes, image } = await slipFile();
    slow.register(bytes, { transRef: transRef(), amount: PRICE });
    slow.delayMs = 2000;
    const started = Date.now();
    const v = await new SlipOkVerifier({ baseUrl: slow.url, apiKey: KEY, branchId: BRANCH, timeoutMs: 200 }).verify(image, PRICE);
    const elapsed = Date.now() - started;
    assert.deepEqual(v, { kind: 'timeout', timeoutMs: 200 });
    assert.ok(elapsed >= 150 && elapsed < 1000, `answered after ${elapsed} ms`);
    assert.equal(slow.calls, 1);
    // A second, still delayed request is in flight while the fake closes.
    const inFlight = new SlipOkVerifier({ baseUrl: slow.url, apiKey: KEY, branchId: BRANCH, timeoutMs: 5000 }).verify(image, PRICE);
    await new Promise((r) => setTimeout(r, 100));
    const closing = Date.now();
    await slow.close();
    assert.ok(Date.now() - closing < 500, 'close() does not wait for delayed answers');
    assert.equal(expectKind(await inFlight, 'error').httpStatus, null);
  });

  it("the caller's abort rejects with the abort error instead of answering", async (t) => {
    const slow = await startFakeSlipOk({ apiKey: KEY, branchId: BRANCH });
    t.after(() => slow.close());
    const { bytes, image } = await slipFile();
    slow.register(bytes, { transRef: transRef(), amount: PRICE });
    slow.delayMs = 2000;
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 100);
    const started = Date.now();
    await assert.rejects(new SlipOkVerifier({ baseUrl: slow.url, apiKey: KEY, branchId: BRANCH, timeoutMs: 5000 }).verify(image, PRICE, caller.signal), { name: 'AbortError' });
    assert.ok(Date.now() - started < 1000);
    const already = new AbortController();
    already.abort();
    await assert.rejects(new SlipOkVerifier({ baseUrl: slow.url, apiKey: KEY, branchId: BRANCH, timeoutMs: 5000 }).verify(image, PRICE, already.signal), { name: 'AbortError' });
    assert.equal(slow.calls, 1, 'an aborted signal sends nothing');
  });
});

describe('SlipOkVerifier on answers the fake never gives', () => {
  let reply: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  let calls = 0;
  let url: string;
  const server = createServer((req, res) => {
    calls++;
    req.resume();
    req.on('end', () => reply(req, res));
  });
  const json = (status: number, body: unknown) => (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  /** Slip data shaped like the documented example answer. */
  const slipData = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
    success: true,
    message: '✅',
    transRef: '010092101507665143',
    sendingBank: '004',
    receivingBank: '006',
    transDate: '20200401',
    transTime: '10:15:07',
    transTimestamp: '2020-04-01T03:15:07.000Z',
    receiver: { displayName: 'กสิกร ร', name: 'KASIKORN R', proxy: { type: '', value: '' }, account: { type: 'BANKAC', value: 'xxx-x-x3109-x' } },
    amount: PRICE,
    ...over,
  });
  let verifier: SlipOkVerifier;
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    verifier = new SlipOkVerifier({ baseUrl: `${url}/`, apiKey: KEY, branchId: BRANCH, timeoutMs: 5000 });
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('a 200 whose data.success is false, or without transRef or amount, is error', async () => {
    const { image } = await slipFile();
    reply = json(200, { success: true, data: slipData({ success: false }) });
    assert.equal(expectKind(await verifier.verify(image, PRICE), 'error').httpStatus, 200);
    reply = json(200, { success: false, data: slipData() });
    expectKind(await verifier.verify(image, PRICE), 'error');
    reply = json(200, { success: true, data: slipData({ transRef: '' }) });
    expectKind(await verifier.verify(image, PRICE), 'error');
    reply = json(200, { success: true, data: slipData({ amount: '99' }) });
    expectKind(await verifier.verify(image, PRICE), 'error');
    reply = json(200, { success: true });
    expectKind(await verifier.verify(image, PRICE), 'error');
  });

  it('a genuine answer of another amount is amount_mismatch; within 0.005 it is genuine', async () => {
    const { image } = await slipFile();
    reply = json(200, { success: true, data: slipData({ amount: 9.9 }) });
    const v = expectKind(await verifier.verify(image, PRICE), 'amount_mismatch');
    assert.deepEqual([v.providerCode, v.facts?.amount, v.facts?.transRef], [1013, 9.9, '010092101507665143']);
    reply = json(200, { success: true, data: slipData({ amount: PRICE + 0.004 }) });
    expectKind(await verifier.verify(image, PRICE), 'genuine');
  });

  it('reads the facts; without transTimestamp the time comes from transDate and transTime in Thai time', async () => {
    const { image } = await slipFile();
    reply = json(200, { success: true, data: slipData({ transTimestamp: undefined }) });
    const v = expectKind(await verifier.verify(image, PRICE), 'genuine');
    assert.deepEqual(v.facts, {
      transRef: '010092101507665143',
      amount: PRICE,
      transTimestamp: '2020-04-01T03:15:07.000Z',
      sendingBank: '004',
      receivingBank: '006',
      receiverName: 'กสิกร ร',
      receiverAccount: 'xxx-x-x3109-x',
    });
  });

  it('an answer that is not JSON, has no code, or has an unknown code is error', async () => {
    const { image } = await slipFile();
    reply = (_req, res) => res.writeHead(400, { 'content-type': 'text/html' }).end('<h1>Bad Request</h1>');
    assert.deepEqual(pick(expectKind(await verifier.verify(image, PRICE), 'error')), [400, null]);
    reply = json(400, { message: 'no code here' });
    assert.deepEqual(pick(expectKind(await verifier.verify(image, PRICE), 'error')), [400, null]);
    reply = json(429, { code: 1099, message: 'Something new' });
    const unknown = expectKind(await verifier.verify(image, PRICE), 'error');
    assert.deepEqual([...pick(unknown), unknown.message], [429, 1099, 'Something new']);
    reply = json(400, { code: 1004, message: 'Quota exceeded' });
    assert.deepEqual(pick(expectKind(await verifier.verify(image, PRICE), 'error')), [400, 1004]);
    reply = json(503, { code: 1009, message: 'maintenance' });
    assert.deepEqual(pick(expectKind(await verifier.verify(image, PRICE), 'error')), [503, 1009], 'a 5xx is error whatever its body');
  });

  it('a redirect is not followed (the key never goes elsewhere)', async () => {
    const { image } = await slipFile();
    reply = (_req, res) => res.writeHead(307, { location: 'http://127.0.0.1:9/steal' }).end();
    const before = calls;
    assert.deepEqual(pick(expectKind(await verifier.verify(image, PRICE), 'error')), [307, null]);
    assert.equal(calls - before, 1);
  });

  it('an answer over 256 KiB is error, declared or chunked', async () => {
    const { image } = await slipFile();
    const big = JSON.stringify({ success: true, data: slipData({ padding: 'x'.repeat(300 * 1024) }) });
    reply = (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) }).end(big);
    assert.match(expectKind(await verifier.verify(image, PRICE), 'error').message, /exceeds 262144 bytes/);
    reply = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 30; i++) res.write('x'.repeat(16 * 1024));
      res.end();
    };
    assert.match(expectKind(await verifier.verify(image, PRICE), 'error').message, /exceeds 262144 bytes/);
  });

  it("the provider's text never brings the key into a verdict", async () => {
    const { image } = await slipFile();
    reply = json(401, { code: 1002, message: `key ${KEY} is not valid` });
    const v = expectKind(await verifier.verify(image, PRICE), 'error');
    assert.ok(!v.message.includes(KEY), v.message);
    assert.match(v.message, /\[redacted\]/);
  });

  it('a provider that cannot be reached is error without a status', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { image } = await slipFile();
    const v = expectKind(await new SlipOkVerifier({ baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY, branchId: BRANCH, timeoutMs: 5000 }).verify(image, PRICE), 'error');
    assert.deepEqual(pick(v), [null, null]);
    assert.match(v.message, /ECONNREFUSED/);
  });

  it('an empty key or branch answers error without calling; bad arguments throw', async () => {
    const { image } = await slipFile();
    const before = calls;
    expectKind(await new SlipOkVerifier({ baseUrl: url, apiKey: '', branchId: BRANCH, timeoutMs: 5000 }).verify(image, PRICE), 'error');
    expectKind(await new SlipOkVerifier({ baseUrl: url, apiKey: KEY, branchId: '', timeoutMs: 5000 }).verify(image, PRICE), 'error');
    assert.equal(calls, before);
    await assert.rejects(verifier.verify(image, Number.NaN), RangeError);
    await assert.rejects(verifier.verify(image, 0), RangeError);
    await assert.rejects(verifier.verify({ ...image, path: join(dir, 'missing') }, PRICE), TypeError, 'a missing file is a programming error');
    assert.throws(() => new SlipOkVerifier({ baseUrl: 'not a url', apiKey: KEY, branchId: BRANCH, timeoutMs: 5000 }), TypeError);
    assert.throws(() => new SlipOkVerifier({ baseUrl: 'ftp://example.com', apiKey: KEY, branchId: BRANCH, timeoutMs: 5000 }), TypeError);
    assert.throws(() => new SlipOkVerifier({ baseUrl: url, apiKey: KEY, branchId: BRANCH, timeoutMs: 0 }), RangeError);
    assert.equal(calls, before);
  });
});
