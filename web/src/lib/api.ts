/** Calls of the platform's REST API from the browser (same origin; the pass cookie travels along). */
import { credentialHeaders, forgetRejected } from './credentials.js';

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

async function errorOf(res: Response): Promise<ApiError> {
  let code = `HTTP_${res.status}`;
  let message = res.statusText;
  try {
    const body = (await res.json()) as { code?: string; message?: string; detail?: { msg?: string }[] };
    if (body.code) code = body.code;
    // A validation failure (422) says what is wrong in its first detail.
    const said = body.message ?? body.detail?.[0]?.msg;
    if (said) message = said;
  } catch {
    // Not JSON: keep the status.
  }
  const retry = Number(res.headers.get('retry-after'));
  return new ApiError(res.status, code, message, Number.isFinite(retry) && retry > 0 ? retry : undefined);
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
export interface WebConfig {
  readonly auth_mode: string;
  readonly challenge: { path: string; algorithm: string; difficulty_bits: number };
  readonly rate_limit: { limit: number; window_sec: number };
  readonly max_text_chars: number;
  readonly default_voice?: string;
  readonly formats?: readonly string[];
  readonly speed?: { min: number; max: number; default: number };
  readonly poll_interval_ms?: number;
}

/** One analysis feature of GET /api/capabilities: whether it works, and why not. */
export interface AnalysisFeature {
  readonly available: boolean;
  readonly reason: string | null;
  readonly missing_models: readonly string[];
}

/** The analysis features of GET /api/capabilities (the fields the public page uses). */
export interface AnalysisFeatures {
  readonly vad: AnalysisFeature;
  readonly transcription: AnalysisFeature;
  readonly speaker_embedding: AnalysisFeature;
  readonly cloning: AnalysisFeature;
}

/** The caller's own limits (GET /api/web/config `caller_limits`, sent with the caller's credential). */
export interface CallerLimits {
  readonly identity: 'anonymous' | 'api_key' | 'studio';
  readonly tier: string | null;
  readonly max_text_chars: number;
  readonly rate_limit: { readonly limit: number; readonly window_sec: number };
}

/** A voice of GET /v1/audio/voices. */
export interface Voice {
  readonly id: string;
  readonly name: string;
  readonly language: string;
  readonly engine: string;
  readonly gender: string;
  readonly description: string;
}

/** The answer of POST /api/web/jobs/tts. */
export interface WebJobCreated {
  readonly job_id: string;
  readonly job_token: string;
  readonly rate_limit: { remaining: number; limit: number; reset_unix: number; window_sec: number };
}

/** A page of GET /api/web/jobs/{job_id}/events. */
export interface JobEventsPage {
  readonly status: string;
  readonly done: boolean;
  readonly events: readonly { event_id: number; kind: string; progress: number; error_code?: string | null; error_message?: string | null }[];
}

/** A warning of POST /api/reference/validate (stable code, what was measured and what to do). */
export interface AnalysisWarning {
  readonly code: string;
  readonly message: string;
}

/** The answer of POST /api/reference/validate (the fields the public page shows). */
export interface ReferenceValidation {
  readonly passed: boolean;
  readonly audio: { readonly duration_sec: number; readonly sample_rate: number; readonly channels: number };
  readonly warnings: readonly AnalysisWarning[];
  readonly failed_checks: readonly string[];
  readonly metrics: { readonly speech_ratio: number; readonly snr_db: number; readonly median_f0_hz: number };
  readonly transcription: { readonly text: string; readonly confidence: number } | null;
  readonly reference_id: string | null;
  readonly expires_at: string | null;
  readonly not_stored_reason: string | null;
}

/** GET /api/compliance/terms. */
export interface Terms {
  readonly version: string;
  readonly title: string;
  readonly sections: readonly { readonly heading: string; readonly text: string }[];
}

/** A preset of GET /api/studio/presets (the fields the public page applies). */
export interface StudioPreset {
  readonly preset_id: string;
  readonly name: string;
  readonly voice: string | null;
  readonly speed: number | null;
  readonly format: string | null;
}
