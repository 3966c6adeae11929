/** Calls of the platform's REST API from the browser (same origin; the pass cookie travels along). */
import { credentialHeaders, forgetRejected } from './credentials.js';
import type { Schema } from './schema.js';

/** An error answer of the API: its stable code, message and, for 429, the wait. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSec: number | undefined,
  ) {
    super(message);
  }
}

/** The ApiError of error answer `res`, with its code and message as the body gave them and the wait of its Retry-After. */
export function apiErrorOf(res: Response, code: string, message: string): ApiError {
  const retry = Number(res.headers.get('retry-after'));
  return new ApiError(res.status, code, message, Number.isFinite(retry) && retry > 0 ? retry : undefined);
}

async function errorOf(res: Response): Promise<ApiError> {
  let code = `HTTP_${res.status}`;
  let message = res.statusText;
  try {
    const body = (await res.json()) as Partial<Schema<'ErrorResponse'> & Schema<'HTTPValidationError'>>;
    if (body.code) code = body.code;
    // A validation failure (422) says what is wrong in its first detail.
    const said = body.message ?? body.detail?.[0]?.msg;
    if (said) message = said;
  } catch {
    // Not JSON: keep the status.
  }
  return apiErrorOf(res, code, message);
}

/** Which credential a call carries (see credentials.ts); none by default. */
export type Auth = 'none' | 'studio' | 'admin' | 'apiKey';

/** What request() sends: a JSON body, a form (url-encoded or multipart), extra headers. */
export interface RequestOptions {
  readonly auth?: Auth;
  readonly json?: unknown;
  readonly form?: Record<string, string> | FormData;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
}

/**
 * Any call of the API: the credential asked for, the body, the error answer turned into ApiError.
 * Answers the JSON (undefined for 204) and the response headers.
 */
export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<{ body: T; headers: Headers }> {
  const headers: Record<string, string> = { accept: 'application/json', ...credentialHeaders(options.auth ?? 'none'), ...options.headers };
  let body: BodyInit | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form instanceof FormData) {
    body = options.form;
  } else if (options.form) {
    body = new URLSearchParams(options.form);
  }
  const res = await fetch(path, { method, headers, body, credentials: 'same-origin', signal: options.signal });
  if (res.status === 401 && options.auth && options.auth !== 'none') forgetRejected(options.auth);
  if (!res.ok) throw await errorOf(res);
  const text = res.status === 204 ? '' : await res.text();
  return { body: (text ? JSON.parse(text) : undefined) as T, headers: res.headers };
}

/** GETs JSON; throws ApiError on an error answer. */
export async function getJson<T>(path: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(path, { headers: { accept: 'application/json', ...headers }, credentials: 'same-origin' });
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

/** POSTs a form (url-encoded); answers the JSON and the response headers. */
export async function postForm<T>(path: string, fields: Record<string, string>): Promise<{ body: T; headers: Headers }> {
  const res = await fetch(path, { method: 'POST', body: new URLSearchParams(fields), credentials: 'same-origin' });
  if (!res.ok) throw await errorOf(res);
  return { body: (await res.json()) as T, headers: res.headers };
}

/** GET /api/web/config. */
export type WebConfig = Schema<'WebConfig'>;

/** The analysis features of GET /api/capabilities. */
export type AnalysisFeatures = Schema<'AnalysisFeatures'>;

/** The caller's own limits (GET /api/web/config `caller_limits`, sent with the caller's credential). */
export type CallerLimits = WebConfig['caller_limits'];

/** A voice of GET /v1/audio/voices. */
export type Voice = Schema<'Voice'>;

/** The answer of POST /api/web/jobs/tts. */
export type WebJobCreated = Schema<'WebJobCreated'>;

/** A page of GET /api/web/jobs/{job_id}/events. */
export type JobEventsPage = Schema<'JobEventsPage'>;

/** The answer of POST /api/reference/validate. */
export type ReferenceValidation = Schema<'ReferenceValidation'>;

/** GET /api/compliance/terms. */
export type Terms = Schema<'Terms'>;

/** A preset of GET /api/studio/presets. */
export type StudioPreset = Schema<'StudioPreset'>;
