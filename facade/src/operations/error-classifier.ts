/**
 * Classifies an error a client saw into a category with retry advice and, where one matches, the
 * catalogue entry. It reads, strongest evidence first: a catalogue code (also inside a message);
 * a whole error body (this platform's `{code, ...}`, OpenAI's `{error: {type, code, message}}`
 * with our `platform_code`, a validation `{detail: [...]}`, a gRPC `{code, details}`); an OpenAI
 * error code; an HTTP or gRPC status (numbers, names, or as printed in a message, e.g.
 * "14 UNAVAILABLE: ..." or "Request failed with status code 429"); and finally the words of a
 * free-text message (ECONNRESET, "context deadline exceeded", "rate limit exceeded", ...). Input
 * it cannot place gets a best-effort `unknown` answer, never an error.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { ERROR_CATALOGUE, isErrorCode, openAiCodeOf, type ErrorCode } from '@tts/common';

/** Input of the classifier (at least one member). */
export interface ClassifyInput {
  readonly code?: string;
  readonly http_status?: number;
  readonly grpc_status?: number | string;
  readonly message?: string;
  /** A whole error body as received: an object, or its text. */
  readonly body?: unknown;
}

type Category = 'client_error' | 'authentication' | 'rate_limit' | 'unavailable' | 'timeout' | 'cancelled' | 'server_error' | 'unknown';

/** What identified the error. */
type Source = 'code' | 'body' | 'openai_code' | 'http_status' | 'grpc_status' | 'message' | 'none';

/** What the client should do, per category. */
const ADVICE: Record<Category, string> = {
  client_error: 'Fix the request (see the hint); sending it again unchanged fails again.',
  authentication: 'Check the credential: send a valid, enabled API key in X-API-Key (or Authorization: Bearer), or the administrator key where required.',
  rate_limit: 'Wait for Retry-After (or the RateLimit-Reset header) and retry with exponential back-off; for quotas, wait for the next period or raise the tier.',
  unavailable: 'Retry with exponential back-off (a few attempts); if it persists, check GET /api/health.',
  timeout: 'Retry with back-off; for long texts use the asynchronous job API (POST /api/jobs/tts).',
  cancelled: 'The call was cancelled (usually by the client); send it again if the result is still needed.',
  server_error: 'Retry once later; if it persists, report the request_id (X-Request-Id).',
  unknown: 'The error could not be placed; keep the request_id (X-Request-Id) and the full error body when reporting it.',
};

function categoryOfHttp(status: number): Category {
  if (status === 401 || status === 403) return 'authentication';
  if (status === 429) return 'rate_limit';
  if (status === 499) return 'cancelled';
  if (status === 504 || status === 408) return 'timeout';
  if (status === 503 || status === 502) return 'unavailable';
  if (status >= 500) return 'server_error';
  if (status >= 400) return 'client_error';
  return 'unknown';
}

const GRPC_TO_HTTP: Partial<Record<number, number>> = {
  [GrpcStatus.INVALID_ARGUMENT]: 422, [GrpcStatus.NOT_FOUND]: 404, [GrpcStatus.UNAUTHENTICATED]: 401,
  [GrpcStatus.PERMISSION_DENIED]: 403, [GrpcStatus.RESOURCE_EXHAUSTED]: 429, [GrpcStatus.UNAVAILABLE]: 503,
  [GrpcStatus.DEADLINE_EXCEEDED]: 504, [GrpcStatus.CANCELLED]: 499, [GrpcStatus.INTERNAL]: 500,
  [GrpcStatus.UNIMPLEMENTED]: 404, [GrpcStatus.FAILED_PRECONDITION]: 409, [GrpcStatus.ALREADY_EXISTS]: 409,
  [GrpcStatus.ABORTED]: 409, [GrpcStatus.OUT_OF_RANGE]: 422, [GrpcStatus.DATA_LOSS]: 500, [GrpcStatus.UNKNOWN]: 500,
};

function grpcNumber(value: number | string): number | undefined {
  if (typeof value === 'number') return value >= 0 && value <= 16 ? value : undefined;
  const n = (GrpcStatus as unknown as Record<string, number>)[value.trim().toUpperCase()];
  return typeof n === 'number' ? n : undefined;
}

/** Our code for an OpenAI `error.code` (the first of ours that maps to it). */
function codeOfOpenAi(openAi: string): ErrorCode | undefined {
  const preferred: Record<string, ErrorCode> = { invalid_api_key: 'AUTH_KEY_INVALID', model_not_found: 'TTS_MODEL_NOT_FOUND', rate_limit_exceeded: 'RATE_LIMITED', insufficient_quota: 'QUOTA_EXCEEDED', unknown_url: 'ROUTE_NOT_FOUND' };
  if (preferred[openAi]) return preferred[openAi];
  return (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).find((c) => openAiCodeOf(c) === openAi && ERROR_CATALOGUE[c].http !== 422);
}

/** Words of free text and what they mean. */
const MESSAGE_RULES: readonly { readonly pattern: RegExp; readonly category: Category; readonly code?: ErrorCode; readonly http?: number }[] = [
  { pattern: /\b(rate.?limit|too many requests)\b/i, category: 'rate_limit', code: 'RATE_LIMITED', http: 429 },
  { pattern: /\b(quota|insufficient_quota)\b/i, category: 'rate_limit', code: 'QUOTA_EXCEEDED', http: 429 },
  { pattern: /\b(deadline exceeded|timed? ?out|timeout|ETIMEDOUT|ESOCKETTIMEDOUT)\b/i, category: 'timeout', http: 504 },
  { pattern: /\b(ECONNREFUSED|ECONNRESET|EPIPE|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|socket hang up|connection (reset|refused|closed)|network error|fetch failed)\b/i, category: 'unavailable', http: 503 },
  { pattern: /\b(overloaded|service unavailable|temporarily unavailable|no (inference )?node)\b/i, category: 'unavailable', http: 503 },
  { pattern: /\b(invalid|incorrect|missing|disabled) (api[ _-]?key|credential|token)\b|\bunauthori[sz]ed\b/i, category: 'authentication', code: 'AUTH_KEY_INVALID', http: 401 },
  { pattern: /\bforbidden\b|\bpermission denied\b/i, category: 'authentication', http: 403 },
  { pattern: /\bvoice\b.*\b(not found|does not exist|unknown)\b|\bunknown voice\b/i, category: 'client_error', code: 'TTS_VOICE_NOT_FOUND', http: 422 },
  { pattern: /\bmodel\b.*\b(not found|does not exist)\b/i, category: 'client_error', code: 'TTS_MODEL_NOT_FOUND', http: 404 },
  { pattern: /\b(text|input)\b.*\b(too long|exceeds)\b|\bmaximum (context|input) length\b/i, category: 'client_error', code: 'TTS_TEXT_TOO_LONG', http: 422 },
  { pattern: /\b(payload|entity|body|file|upload) too large\b/i, category: 'client_error', code: 'UPLOAD_TOO_LARGE', http: 413 },
  { pattern: /\bcancel(l)?ed\b|\baborted\b/i, category: 'cancelled', http: 499 },
  { pattern: /\binternal (server )?error\b/i, category: 'server_error', http: 500 },
];

interface Evidence {
  code?: ErrorCode;
  http?: number;
  category?: Category;
  source: Source;
}

function fromText(text: string): Evidence | undefined {
  // A catalogue code quoted in the text.
  for (const word of text.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g) ?? []) if (isErrorCode(word)) return { code: word, source: 'message' };
  // gRPC as printed by grpc-js ("14 UNAVAILABLE: ...") or a status name.
  const grpc = /\b(\d{1,2}) ([A-Z_]{5,}):/.exec(text) ?? /\b(UNAVAILABLE|DEADLINE_EXCEEDED|RESOURCE_EXHAUSTED|UNAUTHENTICATED|PERMISSION_DENIED|INVALID_ARGUMENT|FAILED_PRECONDITION|NOT_FOUND|INTERNAL|CANCELLED)\b/.exec(text);
  if (grpc) {
    const n = grpcNumber(grpc[2] ?? grpc[1]!);
    if (n !== undefined && GRPC_TO_HTTP[n] !== undefined) return { http: GRPC_TO_HTTP[n], source: 'message' };
  }
  // An HTTP status as clients print it.
  const http = /\b(?:status(?: code)?|HTTP(?:\/\d(?:\.\d)?)?)[ :=]+([1-5]\d\d)\b/i.exec(text);
  if (http) return { http: Number(http[1]), source: 'message' };
  for (const rule of MESSAGE_RULES) {
    if (rule.pattern.test(text)) return { category: rule.category, source: 'message', ...(rule.code ? { code: rule.code } : {}), ...(rule.http ? { http: rule.http } : {}) };
  }
  return undefined;
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function fromBody(raw: unknown): Evidence | undefined {
  let body = raw;
  if (typeof raw === 'string') {
    try {
      body = JSON.parse(raw) as unknown;
    } catch {
      return fromText(raw);
    }
  }
  const b = record(body);
  if (!b) return typeof body === 'string' ? fromText(body) : undefined;
  const err = record(b['error']);
  const candidates = [err?.['platform_code'], b['code'], err?.['code']];
  for (const c of candidates) if (typeof c === 'string' && isErrorCode(c.toUpperCase())) return { code: c.toUpperCase() as ErrorCode, source: 'body' };
  if (err) {
    const openAi = typeof err['code'] === 'string' ? codeOfOpenAi(err['code']) : undefined;
    if (openAi) return { code: openAi, source: 'body' };
    const type = typeof err['type'] === 'string' ? err['type'] : '';
    const byType: Record<string, Category> = { authentication_error: 'authentication', permission_error: 'authentication', rate_limit_error: 'rate_limit', invalid_request_error: 'client_error', not_found_error: 'client_error', server_error: 'server_error' };
    if (byType[type]) return { category: byType[type], source: 'body', ...(typeof err['message'] === 'string' ? { ...pick(fromText(err['message'])) } : {}) };
    if (typeof err['message'] === 'string') return fromText(err['message']);
  }
  if (Array.isArray(b['detail'])) return { code: 'VALIDATION_FAILED', source: 'body' };
  if (typeof b['code'] === 'number' && GRPC_TO_HTTP[b['code']] !== undefined) return { http: GRPC_TO_HTTP[b['code']], source: 'body' };
  const status = b['status'] ?? b['statusCode'];
  if (typeof status === 'number' && status >= 400 && status <= 599) return { http: status, source: 'body' };
  for (const key of ['message', 'details', 'detail', 'error']) if (typeof b[key] === 'string') return fromText(b[key]);
  return undefined;
}

/** The code and status a message adds to a type-only OpenAI answer. */
function pick(e: Evidence | undefined): Partial<Evidence> {
  return e ? { ...(e.code ? { code: e.code } : {}), ...(e.http ? { http: e.http } : {}) } : {};
}

function evidenceOf(input: ClassifyInput): Evidence {
  const code = input.code?.trim();
  if (code && isErrorCode(code.toUpperCase())) return { code: code.toUpperCase() as ErrorCode, source: 'code' };
  if (code) {
    const openAi = codeOfOpenAi(code.toLowerCase());
    if (openAi) return { code: openAi, source: 'openai_code' };
  }
  if (input.body !== undefined) {
    const fromB = fromBody(input.body);
    if (fromB) return fromB;
  }
  if (input.http_status !== undefined) return { http: input.http_status, source: 'http_status' };
  if (input.grpc_status !== undefined) {
    const n = grpcNumber(input.grpc_status);
    if (n !== undefined && GRPC_TO_HTTP[n] !== undefined) return { http: GRPC_TO_HTTP[n], source: 'grpc_status' };
    if (n === GrpcStatus.OK) return { category: 'unknown', source: 'grpc_status' };
  }
  const text = [input.message, code].filter((t): t is string => typeof t === 'string' && t !== '').join(' ');
  if (text !== '') return fromText(text) ?? { source: 'none' };
  return { source: 'none' };
}

/** Classifies `input` (see the module comment). */
export function classifyError(input: ClassifyInput): Record<string, unknown> {
  const e = evidenceOf(input);
  if (e.code) {
    const spec = ERROR_CATALOGUE[e.code];
    const category = categoryOfHttp(spec.http);
    return {
      matched: true, code: e.code, category, retryable: spec.retryable, http_status: spec.http, message: spec.message, hint: spec.hint,
      what_to_do: `${spec.hint} ${spec.retryable ? ADVICE[category] : ''}`.trim(), source: e.source,
      catalogue_entry: { code: e.code, http_status: spec.http, message: spec.message, hint: spec.hint, retryable: spec.retryable },
    };
  }
  const http = e.http;
  const category = e.category ?? (http === undefined ? 'unknown' : categoryOfHttp(http));
  const retryable = ['rate_limit', 'unavailable', 'timeout', 'server_error'].includes(category);
  const sameStatus = http === undefined ? [] : Object.entries(ERROR_CATALOGUE).filter(([, s]) => s.http === http);
  const only = sameStatus.length === 1 ? sameStatus[0] : undefined;
  return {
    matched: only !== undefined,
    code: only ? only[0] : null,
    category,
    retryable,
    http_status: http ?? null,
    message: only ? only[1].message : null,
    hint: only ? only[1].hint : retryable ? 'Retry with exponential back-off, honouring Retry-After.' : category === 'unknown' ? null : 'Fix the request; retrying it unchanged will fail again.',
    what_to_do: ADVICE[category],
    source: e.source,
    catalogue_entry: only ? { code: only[0], http_status: only[1].http, message: only[1].message, hint: only[1].hint, retryable: only[1].retryable } : null,
  };
}
