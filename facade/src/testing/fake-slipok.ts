/**
 * A local fake of the SlipOK slip-verification API for tests (tests only; not part of dist/). It
 * speaks the protocol `SlipOkVerifier` speaks to the real service: `POST /api/line/apikey/<branchId>`
 * with `x-authorization: <apiKey>` and a multipart body (`files`, `amount`, `log`); HTTP 200
 * `{ success: true, data }` or HTTP 4xx `{ code, message, data? }`.
 *
 * It "reads the QR code" of an image by looking up the SHA-256 of the image's bytes in a table the
 * test fills with `register`. The checks, in order:
 *
 * 1. path `/api/line/apikey/<branch>` (another path: 404); unknown branch: 1001; method not POST: 405
 * 2. `x-authorization` not the key: 1002 (HTTP 401)
 * 3. no file in `files`, a body that is not multipart, or an `amount` that is not a number: 1000
 * 4. an unregistered image: 1005 when its bytes start with no PNG or JPEG signature, else 1007
 * 5. the registered outcome: 1008 (`fraud_not_slip`), 1011 (`not_found`), 1007 (`no_qr`),
 *    1009 (`bank_down`), 1010 (`too_soon`, with `data.delay`), HTTP 500 (`server_error`)
 * 6. with `log=true`: a transRef already seen with `log=true` answers 1012 (with the slip data);
 *    the first sight is remembered, whatever the checks below then answer
 * 7. `amount` present and different from the slip's (by 0.005 or more): 1013 (with the slip data)
 * 8. with `log=true` and an expected receiver account configured: a slip paid elsewhere answers
 *    1014 (with the slip data)
 *
 * The order of 6 to 8 is the fake's choice: the documentation does not say which check wins.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { encode as encodePng } from 'fast-png';
import { closeServer, listenOnLoopback } from './loopback-server.js';

/** What the fake answers for a registered image. */
export type FakeSlipOutcome = 'genuine' | 'fraud_not_slip' | 'not_found' | 'no_qr' | 'bank_down' | 'too_soon' | 'server_error';

/** The transfer a registered image stands for. */
export interface FakeSlip {
  readonly transRef: string;
  /** Amount on the slip, baht. */
  readonly amount: number;
  /** @default 'genuine' */
  readonly outcome?: FakeSlipOutcome;
  /** Receiver account on the slip. @default the fake's `receiverAccount` */
  readonly receiverAccount?: string;
}

/** The last request the fake received, as it saw it. */
export interface FakeSlipOkRequest {
  readonly method: string;
  readonly path: string;
  /** The `x-authorization` header. */
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  /** Text fields of the multipart body. */
  readonly fields: Readonly<Record<string, string>>;
  /** Form field of the (first) file, its name, MIME type, size and SHA-256. */
  readonly fileField: string | undefined;
  readonly fileName: string | undefined;
  readonly fileType: string | undefined;
  readonly fileBytes: number;
  readonly fileSha256: string | undefined;
  /** The `amount` and `log` fields as sent. */
  readonly amount: string | undefined;
  readonly log: string | undefined;
}

/** Options of the fake. */
export interface FakeSlipOkOptions {
  /** The key `x-authorization` must carry. */
  readonly apiKey: string;
  /** The only branch id the path may name. */
  readonly branchId: string;
  /**
   * Account registered for the branch: with `log=true`, a slip paid to another one answers 1014.
   * @default undefined (no receiver check; slips are paid to "xxx-x-x5678-x")
   */
  readonly receiverAccount?: string;
}

/** A running fake provider. */
export interface FakeSlipOk {
  /** Base URL, e.g. "http://127.0.0.1:40123". */
  readonly url: string;
  /** Makes the fake read `imageBytes` as `slip`. */
  register(imageBytes: Buffer, slip: FakeSlip): void;
  /** Delay before every answer, ms; an answer whose client has gone is dropped. @default 0 */
  delayMs: number;
  /** Requests received. */
  readonly calls: number;
  readonly lastRequest: FakeSlipOkRequest | undefined;
  /** Stops the server, dropping delayed answers and open connections. */
  close(): Promise<void>;
}

const DEFAULT_RECEIVER_ACCOUNT = 'xxx-x-x5678-x';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_FILE_BYTES = 16 * 1024 * 1024;
const ROUTE = /^\/api\/line\/apikey\/([^/?#]+)\/?(?:\?.*)?$/;

interface Registered extends FakeSlip {
  readonly at: Date;
}

type Answer = readonly [status: number, body: unknown];

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const isPngOrJpeg = (b: Buffer): boolean => b.subarray(0, 8).equals(PNG_SIGNATURE) || (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff);
const refusal = (code: number, message: string, data?: unknown, status = 400): Answer => [status, data === undefined ? { code, message } : { code, message, data }];

/** Starts the fake on 127.0.0.1, on a free port. */
export async function startFakeSlipOk(options: FakeSlipOkOptions): Promise<FakeSlipOk> {
  const slips = new Map<string, Registered>();
  const logged = new Map<string, Date>();
  const timers = new Set<NodeJS.Timeout>();
  const state = { delayMs: 0, calls: 0, last: undefined as FakeSlipOkRequest | undefined };

  /** Slip data as SlipOK returns it; the time is the registration's, in Thai time (UTC+7). */
  const dataOf = (s: Registered): Record<string, unknown> => {
    const thai = new Date(s.at.getTime() + 7 * 3_600_000).toISOString();
    return {
      success: true,
      message: '✅',
      rqUID: `fake_${s.transRef}`,
      language: 'TH',
      receivingBank: '004',
      sendingBank: '014',
      transRef: s.transRef,
      transDate: thai.slice(0, 10).replaceAll('-', ''),
      transTime: thai.slice(11, 19),
      transTimestamp: new Date(Math.floor(s.at.getTime() / 1000) * 1000).toISOString(),
      sender: { displayName: 'นาย ทดสอบ ก', name: 'MR. TEST K', proxy: { type: null, value: null }, account: { type: 'BANKAC', value: 'xxx-x-x1234-x' } },
      receiver: { displayName: 'สตูดิโอ ทดสอบ', name: 'STUDIO TEST', proxy: { type: '', value: '' }, account: { type: 'BANKAC', value: s.receiverAccount ?? options.receiverAccount ?? DEFAULT_RECEIVER_ACCOUNT } },
      amount: s.amount,
      paidLocalAmount: s.amount,
      paidLocalCurrency: '764',
      countryCode: 'TH',
      transFeeAmount: 0,
      ref1: '',
      ref2: '',
      ref3: '',
      toMerchantId: '',
    };
  };

  function judge(req: FakeSlipOkRequest, file: Buffer | undefined): Answer {
    if (req.amount !== undefined && (req.amount.trim() === '' || !Number.isFinite(Number(req.amount)))) return refusal(1000, 'Missing or invalid data: amount must be a number.');
    if (file === undefined || file.length === 0) return refusal(1000, 'Missing data: no image in the field "files".');
    const slip = slips.get(sha256(file));
    if (slip === undefined) return isPngOrJpeg(file) ? refusal(1007, 'The image has no QR code.') : refusal(1005, 'The file is not an image (jpg, jpeg, png, jfif or webp).');
    switch (slip.outcome ?? 'genuine') {
      case 'fraud_not_slip':
        return refusal(1008, 'The QR code is not a QR code for checking a payment.');
      case 'not_found':
        return refusal(1011, 'The QR code has expired or the transaction does not exist.');
      case 'no_qr':
        return refusal(1007, 'The image has no QR code.');
      case 'bank_down':
        return refusal(1009, 'The bank is temporarily unavailable; try again in 15 minutes.');
      case 'too_soon':
        return refusal(1010, 'Slips of this bank can be checked a few minutes after the transfer.', { bankCode: '014', bankName: 'SCB', delay: 3 });
      case 'server_error':
        return [500, 'Internal Server Error'];
      case 'genuine':
        break;
    }
    const data = dataOf(slip);
    const log = req.log === 'true';
    if (log) {
      const seen = logged.get(slip.transRef);
      if (seen !== undefined) return refusal(1012, `Repeated slip: this slip was checked before, at ${seen.toISOString()}.`, data);
      logged.set(slip.transRef, new Date());
    }
    if (req.amount !== undefined && Math.round(Number(req.amount) * 100) !== Math.round(slip.amount * 100)) return refusal(1013, `The amount ${req.amount} does not match the slip amount ${slip.amount}.`, data);
    if (log && options.receiverAccount !== undefined && (slip.receiverAccount ?? options.receiverAccount) !== options.receiverAccount) return refusal(1014, 'The slip was paid to another account than the branch\'s.', data);
    return [200, { success: true, data }];
  }

  function answer(res: ServerResponse, [status, body]: Answer): void {
    const send = (): void => {
      if (res.destroyed || res.writableEnded) return;
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8' }).end(text);
    };
    if (state.delayMs <= 0) {
      send();
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, state.delayMs);
    timers.add(timer);
    // The client gave up (or the fake is closing): drop the answer.
    res.on('close', () => {
      clearTimeout(timer);
      timers.delete(timer);
    });
  }

  /** Reads the multipart body; resolves with nothing usable for a body that is not multipart. */
  function readForm(req: IncomingMessage): Promise<{ fields: Record<string, string>; file?: { field: string; name: string; type: string; bytes: Buffer } }> {
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: MAX_FILE_BYTES, fields: 20 } });
    } catch {
      req.resume();
      return new Promise((resolve) => req.on('end', () => resolve({ fields })).on('error', () => resolve({ fields })));
    }
    return new Promise((resolve) => {
      let file: { field: string; name: string; type: string; bytes: Buffer } | undefined;
      const reading: Promise<void>[] = [];
      parser.on('field', (name, value) => {
        fields[name] = value;
      });
      parser.on('file', (name, stream: Readable & { truncated?: boolean }, info) => {
        const chunks: Buffer[] = [];
        reading.push(
          new Promise<void>((done) => {
            stream.on('data', (c: Buffer) => chunks.push(c));
            stream.on('end', () => {
              if (name === 'files' && file === undefined && stream.truncated !== true) file = { field: name, name: info.filename ?? '', type: info.mimeType, bytes: Buffer.concat(chunks) };
              done();
            });
            stream.on('error', () => done());
          }),
        );
      });
      const finish = (): void => void Promise.all(reading).then(() => resolve(file === undefined ? { fields } : { fields, file }));
      parser.on('close', finish);
      parser.on('error', () => {
        req.unpipe(parser);
        req.resume();
        finish();
      });
      req.pipe(parser);
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    state.calls++;
    const path = req.url ?? '/';
    const route = ROUTE.exec(path);
    if (route === null) {
      req.resume();
      answer(res, [404, { message: `Cannot ${req.method ?? 'GET'} ${path}` }]);
      return;
    }
    if (req.method !== 'POST') req.resume();
    const form: Awaited<ReturnType<typeof readForm>> = req.method === 'POST' ? await readForm(req) : { fields: {} };
    const header = req.headers['x-authorization'];
    const seen: FakeSlipOkRequest = {
      method: req.method ?? '',
      path,
      authorization: typeof header === 'string' ? header : undefined,
      contentType: req.headers['content-type'],
      fields: { ...form.fields },
      fileField: form.file?.field,
      fileName: form.file?.name,
      fileType: form.file?.type,
      fileBytes: form.file?.bytes.length ?? 0,
      fileSha256: form.file === undefined ? undefined : sha256(form.file.bytes),
      amount: form.fields['amount'],
      log: form.fields['log'],
    };
    state.last = seen;
    if (req.method !== 'POST') return answer(res, [405, { message: 'Method not allowed' }]);
    if (decodeURIComponent(route[1] ?? '') !== options.branchId) return answer(res, refusal(1001, 'The branch was not found.'));
    if (seen.authorization !== options.apiKey) return answer(res, refusal(1002, 'The authorization header is invalid.', undefined, 401));
    answer(res, judge(seen, form.file?.bytes));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => answer(res, [500, 'Internal Server Error']));
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    register(imageBytes: Buffer, slip: FakeSlip): void {
      slips.set(sha256(imageBytes), { ...slip, at: new Date() });
    },
    get delayMs(): number {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    get calls(): number {
      return state.calls;
    },
    get lastRequest(): FakeSlipOkRequest | undefined {
      return state.last;
    },
    async close(): Promise<void> {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await closeServer(server);
    },
  };
}

/**
 * A whole, well-formed PNG slip for tests: `width` x `height` pixels of random colours, so every call
 * gives another image (another SHA-256) that the platform's slip checks accept.
 */
export function testSlipPng(width = 16, height = 16): Buffer {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i++) data[i] = Math.floor(Math.random() * 256);
  return Buffer.from(encodePng({ width, height, data, channels: 3 }));
}
