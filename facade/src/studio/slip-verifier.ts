/**
 * Verification of Thai bank-transfer slips with an external provider, behind one interface
 * (`SlipVerifier`), and its adapter for SlipOK (https://slipok.com/api-documentation/).
 *
 * SlipOK reads the QR code printed on a slip image, asks the sending bank for that transaction
 * (Thai banks print a verification QR on every transfer slip), and answers with the transfer's
 * details. The adapter sends `POST {baseUrl}/api/line/apikey/{branchId}` with the header
 * `x-authorization: <apiKey>` and a multipart/form-data body: the image in `files`, the plan's
 * price in `amount` (SlipOK compares it with the slip's amount) and `log=true` (SlipOK remembers the
 * slip, so a repeat answers 1012, and checks the receiver against the branch's registered
 * account, 1014). Check slip: https://slipok.com/api-documentation/check-slip/; change log on
 * https://slipok.com/api-documentation/ (v1.2: `log`, `amount`, 1012-1014; v1.4: slip data with
 * 1012, `delay` with 1010); examples: https://slipok.com/api-documentation/request-response-example/
 * (1008 answered with HTTP 400).
 *
 * A success is HTTP 200 `{ success: true, data: { success: true, transRef, amount, ... } }`; a
 * refusal is HTTP 4xx `{ code, message, data? }`. Verdicts, in the order the answer is read:
 *
 * | provider answer                                             | verdict           | why |
 * |-------------------------------------------------------------|-------------------|-----|
 * | 200, `data.success` true, transRef, amount within 0.005     | `genuine`         | the bank confirmed the transfer and SlipOK the amount |
 * | 200 as above, amount differs by more than 0.005             | `amount_mismatch` | defence in depth: SlipOK normally answers 1013 itself; reported with code 1013 |
 * | 200 with `data.success` not true, no transRef or no amount  | `error`           | not a verification we can act on |
 * | 1000 data missing from the request                          | `error`           | our request or our account is at fault, never the slip: |
 * | 1001 branch not found                                       | `error`           |   nothing is known about the transfer, so an administrator |
 * | 1002 invalid `x-authorization`                              | `error`           |   decides (and operators see the provider error) |
 * | 1003 package expired, 1004 quota exceeded                   | `error`           |   |
 * | 1005 not an image file, 1006 invalid image                  | `unreadable`      | the picture could not be read; says nothing about the transfer |
 * | 1007 no QR code in the image                                | `unreadable`      | a real slip can be cropped or photographed badly |
 * | 1008 the QR code is not a payment-slip QR                   | `fraud`           | a QR was read and it is not a bank's slip QR: the image is not a transfer slip |
 * | 1009 bank temporarily unavailable                           | `pending`         | temporary; says nothing about the slip |
 * | 1010 too soon after the transfer (`data.delay`)             | `pending`         | temporary: the bank needs a few minutes before a slip can be checked |
 * | 1011 QR expired or no such transaction at the bank          | `fraud`           | the bank has no such transfer, so the slip proves no payment (a very old real slip also lands here; its owner can still ask an administrator by a manual request) |
 * | 1012 repeated slip (with slip data)                         | `duplicate`       | SlipOK logged this transfer before; it can be our own earlier attempt (e.g. one that timed out here after SlipOK logged it), so an administrator decides; the facts let the caller match the transRef |
 * | 1013 amount does not match (with slip data)                 | `amount_mismatch` | a real transfer of another amount (another plan, a partial payment): an administrator decides |
 * | 1014 wrong receiver account (with slip data)                | `wrong_receiver`  | a real transfer to another account: a slip paid to someone else, or a changed account |
 * | any other code (e.g. 1015, package not found)               | `error`           | unknown to this adapter: never guess a slip outcome |
 * | 5xx, another status, not JSON, body over 256 KiB            | `error`           | the provider failed; retrying later can still verify the slip |
 * | network failure                                             | `error`           | as above, with no HTTP status |
 * | no answer within `timeoutMs`                                | `timeout`         | as above |
 * | the caller's signal aborts                                  | (throws)          | the caller gave up; its abort error is rethrown |
 *
 * The verdicts feed the VIP state table (`vip.ts`): `fraud` -> rejected, `genuine` -> approved,
 * everything else -> waiting for an administrator. Only answers in which SlipOK positively says the
 * slip is not a real transfer (1008, 1011) reject; anything ambiguous or temporary waits.
 *
 * The API key is sent in the header only: it is never logged, and any echo of it in the provider's
 * text is redacted before it reaches a verdict.
 */
import { openAsBlob } from 'node:fs';

/** Where and how to reach SlipOK. */
export interface SlipVerifierConfig {
  /** Origin of the API, e.g. "https://api.slipok.com" (a trailing slash is ignored). */
  readonly baseUrl: string;
  /** API key of the branch, sent as `x-authorization`. */
  readonly apiKey: string;
  /** Branch id, the last segment of the path. */
  readonly branchId: string;
  /** How long one check may take, request and answer together, milliseconds. */
  readonly timeoutMs: number;
}

/** A slip image on disk (the upload's temporary file). */
export interface SlipImage {
  readonly path: string;
  /** File name sent with the image. */
  readonly filename: string;
  /** MIME type sent with the image. */
  readonly contentType: string;
}

/** What the provider read from a slip; a field the answer lacks is null. */
export interface SlipFacts {
  /** The bank's transaction reference (unique per transfer). */
  readonly transRef: string;
  /** Amount of the transfer, baht. */
  readonly amount: number | null;
  /** Time of the transfer, ISO 8601 UTC. */
  readonly transTimestamp: string | null;
  /** Sending bank's three-digit code. */
  readonly sendingBank: string | null;
  /** Receiving bank's three-digit code. */
  readonly receivingBank: string | null;
  readonly receiverName: string | null;
  /** Receiver's account or proxy, masked as the bank prints it. */
  readonly receiverAccount: string | null;
}

/** The outcome of one verification; see the table at the top of this file. */
export type SlipVerdict =
  /** The provider verified the transfer and (when an amount was sent) the amount. */
  | { readonly kind: 'genuine'; readonly facts: SlipFacts }
  | { readonly kind: 'amount_mismatch'; readonly facts: SlipFacts | null; readonly providerCode: number; readonly message: string }
  | { readonly kind: 'wrong_receiver'; readonly facts: SlipFacts | null; readonly providerCode: number; readonly message: string }
  | { readonly kind: 'duplicate'; readonly facts: SlipFacts | null; readonly providerCode: number; readonly message: string }
  /** The provider says the slip is not a real transfer: QR not a payment slip, or the bank has no such transaction. */
  | { readonly kind: 'fraud'; readonly facts: SlipFacts | null; readonly providerCode: number; readonly message: string }
  /** Not an image, invalid image, no QR code. */
  | { readonly kind: 'unreadable'; readonly providerCode: number; readonly message: string }
  /** Bank unavailable, or too soon after the transfer (1009, 1010). */
  | { readonly kind: 'pending'; readonly providerCode: number; readonly message: string }
  /** Authorization, quota, branch, 5xx, malformed answer, network error. */
  | { readonly kind: 'error'; readonly httpStatus: number | null; readonly providerCode: number | null; readonly message: string }
  | { readonly kind: 'timeout'; readonly timeoutMs: number };

/** A slip-verification provider. */
export interface SlipVerifier {
  /** Stable name of the provider, stored with each request. */
  readonly provider: string;
  /**
   * Checks a slip against the expected amount. Resolves with a verdict for every provider outcome
   * (errors and timeouts included); rejects only on programming errors (a bad amount, an unreadable
   * file) and with the abort error when `signal` aborts.
   */
  verify(image: SlipImage, expectedAmount: number, signal?: AbortSignal): Promise<SlipVerdict>;
}

/** Largest provider answer read, bytes; a larger one is an `error`. */
const MAX_ANSWER_BYTES = 256 * 1024;
/** Amounts closer than this are equal (baht; satang are 0.01). */
const AMOUNT_TOLERANCE = 0.005;
/** Longest provider message kept in a verdict. */
const MAX_MESSAGE_CHARS = 500;
/** Longest text field kept in facts. */
const MAX_FIELD_CHARS = 200;

type CodeVerdict = 'error' | 'unreadable' | 'fraud' | 'pending' | 'duplicate' | 'amount_mismatch' | 'wrong_receiver';

/** SlipOK's error codes: what each means (the message when the answer has none) and its verdict. */
const CODES: Readonly<Record<number, { readonly meaning: string; readonly verdict: CodeVerdict }>> = {
  1000: { meaning: 'The request is missing data.', verdict: 'error' },
  1001: { meaning: 'The branch was not found.', verdict: 'error' },
  1002: { meaning: 'The authorization header is invalid.', verdict: 'error' },
  1003: { meaning: 'The provider package has expired.', verdict: 'error' },
  1004: { meaning: 'The provider quota is exceeded.', verdict: 'error' },
  1005: { meaning: 'The file is not an image.', verdict: 'unreadable' },
  1006: { meaning: 'The image is invalid.', verdict: 'unreadable' },
  1007: { meaning: 'The image has no QR code.', verdict: 'unreadable' },
  1008: { meaning: 'The QR code is not a payment slip QR code.', verdict: 'fraud' },
  1009: { meaning: 'The bank is temporarily unavailable.', verdict: 'pending' },
  1010: { meaning: 'The transfer is too recent to be checked yet.', verdict: 'pending' },
  1011: { meaning: 'The QR code has expired or the bank has no such transaction.', verdict: 'fraud' },
  1012: { meaning: 'The slip was already submitted (repeated slip).', verdict: 'duplicate' },
  1013: { meaning: 'The amount does not match the slip.', verdict: 'amount_mismatch' },
  1014: { meaning: 'The slip was paid to another account.', verdict: 'wrong_receiver' },
  1015: { meaning: 'The provider package was not found.', verdict: 'error' },
};

/** The SlipOK adapter. */
export class SlipOkVerifier implements SlipVerifier {
  readonly provider = 'slipok';
  readonly #endpoint: string;
  readonly #apiKey: string;
  readonly #configured: boolean;
  readonly #timeoutMs: number;

  /** Throws TypeError for a base URL that is not an http(s) URL, RangeError for a bad timeout. */
  constructor(config: SlipVerifierConfig) {
    const base = new URL(config.baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError(`The slip provider URL must be http(s), not ${base.protocol}`);
    if (!Number.isSafeInteger(config.timeoutMs) || config.timeoutMs <= 0) throw new RangeError(`The slip provider timeout must be a positive integer of milliseconds, not ${config.timeoutMs}.`);
    this.#endpoint = `${base.origin}${base.pathname.replace(/\/+$/, '')}/api/line/apikey/${encodeURIComponent(config.branchId)}`;
    this.#apiKey = config.apiKey;
    this.#configured = config.apiKey !== '' && config.branchId !== '';
    this.#timeoutMs = config.timeoutMs;
  }

  async verify(image: SlipImage, expectedAmount: number, signal?: AbortSignal): Promise<SlipVerdict> {
    if (!Number.isFinite(expectedAmount) || expectedAmount <= 0) throw new RangeError(`The expected amount must be a positive number, not ${expectedAmount}.`);
    signal?.throwIfAborted();
    if (!this.#configured) return { kind: 'error', httpStatus: null, providerCode: null, message: 'The slip provider is not configured: its API key or branch id is empty.' };
    const blob = await openAsBlob(image.path, { type: image.contentType });
    const form = new FormData();
    form.append('files', blob, image.filename === '' ? 'slip' : image.filename);
    form.append('amount', String(expectedAmount));
    form.append('log', 'true');
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const both = signal ? AbortSignal.any([timeout, signal]) : timeout;
    let status: number;
    let text: string | null;
    try {
      // redirect: 'manual', so the key in x-authorization never follows a redirect elsewhere.
      const res = await fetch(this.#endpoint, { method: 'POST', headers: { 'x-authorization': this.#apiKey, accept: 'application/json' }, body: form, signal: both, redirect: 'manual' });
      status = res.status;
      text = await readCapped(res, MAX_ANSWER_BYTES);
    } catch (err) {
      if (signal?.aborted) throw err;
      if (timeout.aborted) return { kind: 'timeout', timeoutMs: this.#timeoutMs };
      return { kind: 'error', httpStatus: null, providerCode: null, message: this.#clean(`The slip provider could not be reached: ${networkReason(err)}.`) };
    }
    if (text === null) return { kind: 'error', httpStatus: status, providerCode: null, message: `The slip provider's answer exceeds ${MAX_ANSWER_BYTES} bytes.` };
    return this.#verdictOf(status, text, expectedAmount);
  }

  #verdictOf(status: number, text: string, expectedAmount: number): SlipVerdict {
    const body = parseJson(text);
    if (status === 200) {
      const data = isRecord(body) && body.success === true ? body.data : undefined;
      if (!isRecord(data) || data.success !== true) {
        return { kind: 'error', httpStatus: 200, providerCode: null, message: 'The slip provider answered 200 without a verified slip (success is not true).' };
      }
      const facts = factsOf(data);
      if (facts === null) return { kind: 'error', httpStatus: 200, providerCode: null, message: 'The slip provider answered 200 without a transaction reference.' };
      if (facts.amount === null) return { kind: 'error', httpStatus: 200, providerCode: null, message: 'The slip provider answered 200 without the slip amount.' };
      if (Math.abs(facts.amount - expectedAmount) > AMOUNT_TOLERANCE) {
        return { kind: 'amount_mismatch', facts, providerCode: 1013, message: `The provider verified a slip of ${facts.amount}, not the expected ${expectedAmount} (checked by the adapter).` };
      }
      return { kind: 'genuine', facts };
    }
    const code = isRecord(body) && typeof body.code === 'number' && Number.isInteger(body.code) ? body.code : null;
    const providerMessage = isRecord(body) && typeof body.message === 'string' && body.message.trim() !== '' ? body.message.trim() : null;
    if (status < 400 || status > 499 || code === null) {
      const what = status >= 500 ? 'failed' : 'answered unexpectedly';
      const detail = providerMessage ?? (body === undefined ? 'the answer is not JSON' : 'the answer has no error code');
      return { kind: 'error', httpStatus: status, providerCode: code, message: this.#clean(`The slip provider ${what} (HTTP ${status}): ${detail}.`) };
    }
    const entry = CODES[code];
    const message = this.#clean(providerMessage ?? entry?.meaning ?? `The slip provider refused the slip with code ${code}.`);
    const facts = isRecord(body) ? factsOf(body.data) : null;
    switch (entry?.verdict ?? 'error') {
      case 'duplicate':
        return { kind: 'duplicate', facts, providerCode: code, message };
      case 'amount_mismatch':
        return { kind: 'amount_mismatch', facts, providerCode: code, message };
      case 'wrong_receiver':
        return { kind: 'wrong_receiver', facts, providerCode: code, message };
      case 'fraud':
        return { kind: 'fraud', facts, providerCode: code, message };
      case 'unreadable':
        return { kind: 'unreadable', providerCode: code, message };
      case 'pending':
        return { kind: 'pending', providerCode: code, message };
      case 'error':
        return { kind: 'error', httpStatus: status, providerCode: code, message };
    }
  }

  /** Provider or network text as kept in a verdict: the key redacted, the length capped. */
  #clean(text: string): string {
    const redacted = this.#apiKey === '' ? text : text.split(this.#apiKey).join('[redacted]');
    return redacted.length > MAX_MESSAGE_CHARS ? `${redacted.slice(0, MAX_MESSAGE_CHARS - 1)}…` : redacted;
  }
}

/** The body as text, or null when it exceeds `max` bytes (declared or read); the rest is not read. */
async function readCapped(res: Response, max: number): Promise<string | null> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => undefined);
    return null;
  }
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A non-empty string field, trimmed and capped, else null. */
function text(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const t = v.trim();
  if (t === '') return null;
  return t.length > MAX_FIELD_CHARS ? t.slice(0, MAX_FIELD_CHARS) : t;
}

/** The facts of slip data; null when it has no transaction reference. */
function factsOf(data: unknown): SlipFacts | null {
  if (!isRecord(data)) return null;
  const transRef = text(data.transRef);
  if (transRef === null) return null;
  const receiver = isRecord(data.receiver) ? data.receiver : {};
  const account = isRecord(receiver.account) ? text(receiver.account.value) : null;
  const proxy = isRecord(receiver.proxy) ? text(receiver.proxy.value) : null;
  return {
    transRef,
    amount: typeof data.amount === 'number' && Number.isFinite(data.amount) ? data.amount : null,
    transTimestamp: timestampOf(data),
    sendingBank: text(data.sendingBank),
    receivingBank: text(data.receivingBank),
    receiverName: text(receiver.displayName) ?? text(receiver.name),
    receiverAccount: account ?? proxy,
  };
}

/**
 * The transfer time in ISO 8601 UTC: `transTimestamp`, else `transDate` (yyyyMMdd) and `transTime`
 * (HH:mm:ss) read as Thai time, UTC+7 (the documented example pairs 20200401 10:15:07 with
 * 2020-04-01T03:15:07.000Z; the example answers omit transTimestamp).
 */
function timestampOf(data: Record<string, unknown>): string | null {
  const given = text(data.transTimestamp);
  const parsed = given === null ? NaN : Date.parse(given);
  if (Number.isFinite(parsed)) return new Date(parsed).toISOString();
  const date = /^(\d{4})(\d{2})(\d{2})$/.exec(text(data.transDate) ?? '');
  const time = /^\d{2}:\d{2}:\d{2}$/.exec(text(data.transTime) ?? '');
  if (!date || !time) return null;
  const ms = Date.parse(`${date[1]}-${date[2]}-${date[3]}T${time[0]}+07:00`);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** Why a fetch failed, without the request (no header, hence no key, is ever part of it). */
function networkReason(err: unknown): string {
  const cause = err instanceof Error && isRecord(err.cause) ? err.cause : undefined;
  const code = cause && typeof cause.code === 'string' ? cause.code : undefined;
  if (code !== undefined) return code;
  return err instanceof Error ? err.message : 'unknown error';
}
