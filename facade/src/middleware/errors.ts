/**
 * The one error middleware: every error (a handler's TtsError, the body readers' and the OpenAPI
 * validator's, or an unexpected one) becomes one of the three documented bodies:
 * - /api/* validation failures: 422 HTTPValidationError {detail: [{loc, msg, type}], code, request_id, trace_id}
 * - other /api/* errors: {code, message, request_id, hint, trace_id}
 *   (trace_id: the request's OpenTelemetry trace, absent when telemetry is off)
 * - /v1/* errors: OpenAI's {error: {message, type, param, code, platform_code}} (OpenAI's own type
 *   and code, the catalogue code in platform_code), validation failures 422 with `detail` too
 * - the ElevenLabs-compatible routes (/v1/text-to-speech/*, /v1/voices, /v2/*): ElevenLabs'
 *   {detail: {type, code, status, message, param, request_id, platform_code}}; a request that breaks
 *   its schema gets FastAPI's 422 {detail: [{loc, msg, type}], code, request_id}, as ElevenLabs' API
 *   answers it
 * Internal failures are logged with the request id; their messages never reach the client.
 */
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { ERROR_CATALOGUE, elevenLabsErrorOf, openAiCodeOf, openAiValidationCode, type ErrorCode, TtsError } from '@tts/common';
import type { Logger } from '@tts/common';
import { QUOTA_STAGE_HEADER, QuotaExceededError } from '../identity/index.js';
import { requestIdOf } from './request-id.js';
import { setErrorCode, traceIdOf } from './telemetry.js';

/** One field problem, FastAPI style. */
export interface ValidationIssue {
  readonly loc: (string | number)[];
  readonly msg: string;
  readonly type: string;
}

interface Problem {
  readonly code: ErrorCode;
  readonly message: string;
  readonly issues: ValidationIssue[];
  readonly retryAfterSec: number | undefined;
}

interface ValidatorError {
  status: number;
  errors: { path?: string; message?: string; errorCode?: string }[];
}

function isValidatorError(err: unknown): err is ValidatorError {
  return typeof err === 'object' && err !== null && typeof (err as ValidatorError).status === 'number' && Array.isArray((err as ValidatorError).errors);
}

const PYDANTIC_TYPES: Readonly<Record<string, string>> = {
  required: 'missing',
  type: 'type_error',
  enum: 'enum',
  minimum: 'greater_than_equal',
  maximum: 'less_than_equal',
  exclusiveMinimum: 'greater_than',
  exclusiveMaximum: 'less_than',
  minLength: 'string_too_short',
  maxLength: 'string_too_long',
  pattern: 'string_pattern_mismatch',
  additionalProperties: 'extra_forbidden',
  minProperties: 'missing',
  format: 'value_error',
  const: 'literal_error',
};

function locOf(path: string | undefined): (string | number)[] {
  if (!path) return [];
  return path
    .split(/[./]/)
    .filter((p) => p !== '')
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

function fromValidator(err: ValidatorError): Problem {
  const byStatus: Partial<Record<number, ErrorCode>> = {
    404: 'ROUTE_NOT_FOUND',
    405: 'METHOD_NOT_ALLOWED',
    413: 'REQUEST_BODY_TOO_LARGE',
    415: 'REQUEST_CONTENT_TYPE_UNSUPPORTED',
  };
  const code = byStatus[err.status];
  if (code) return { code, message: ERROR_CATALOGUE[code].message, issues: [], retryAfterSec: undefined };
  const issues = err.errors.map((e) => {
    const keyword = (e.errorCode ?? '').split('.')[0] ?? '';
    const loc = locOf(e.path);
    const field = loc.length > 0 ? String(loc[loc.length - 1]) : '';
    const msg = (e.message ?? 'Invalid value').replace(/^must /, `${field || 'value'} must `);
    // "required" errors name the missing property inside the message's parent path.
    return { loc, msg, type: PYDANTIC_TYPES[keyword] ?? 'value_error' };
  });
  return { code: 'VALIDATION_FAILED', message: issues[0]?.msg ?? 'The request failed validation.', issues, retryAfterSec: undefined };
}

function toProblem(err: unknown): Problem | undefined {
  if (err instanceof TtsError) {
    // Malformed JSON keeps pydantic's issue type, as FastAPI answers it.
    const type = err.code === 'REQUEST_JSON_MALFORMED' ? 'json_invalid' : err.code.toLowerCase();
    const issues = err.spec.http === 422 ? [{ loc: [...err.loc], msg: err.message, type }] : [];
    return { code: err.code, message: err.message, issues, retryAfterSec: err.retryAfterSec };
  }
  if (isValidatorError(err)) return fromValidator(err);
  // The router decodes path parameters before any handler: a stray `%` or percent-encoded bytes
  // that are not UTF-8 are the client's mistake, like any other malformed parameter.
  if (err instanceof URIError) {
    const msg = 'The path is not valid percent-encoded UTF-8.';
    return { code: 'VALIDATION_FAILED', message: msg, issues: [{ loc: ['path'], msg, type: 'value_error' }], retryAfterSec: undefined };
  }
  return undefined;
}

/** The ElevenLabs-compatible routes (the document's `elevenlabs` operations, and anything else under /v2). */
const ELEVENLABS_ROUTE = /^\/(?:v1\/text-to-speech\/|v1\/voices(?:\/|$)|v2\/)/;

function isElevenLabsRoute(req: Request): boolean {
  return ELEVENLABS_ROUTE.test(req.path);
}

function isOpenAiRoute(req: Request): boolean {
  return req.path.startsWith('/v1/');
}

/** Builds the error middleware. */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const requestId = requestIdOf(res);
    const known = toProblem(err);
    if (!known) logger.error('unhandled error', { request_id: requestId, method: req.method, path: req.path, err });
    const problem: Problem = known ?? { code: 'INTERNAL_ERROR', message: ERROR_CATALOGUE.INTERNAL_ERROR.message, issues: [], retryAfterSec: undefined };
    setErrorCode(res, problem.code);
    const traceId = traceIdOf(res);
    if (problem.code === 'TTS_CANCELLED' && (req.socket.destroyed || res.destroyed)) {
      // The client went away: nobody is left to answer.
      res.destroy();
      return;
    }
    if (res.headersSent) {
      // Audio was already streaming: the only honest signal left is to cut the response.
      logger.warn('error after response started', { request_id: requestId, code: problem.code });
      res.destroy();
      return;
    }
    const spec = ERROR_CATALOGUE[problem.code];
    const retryAfter = problem.retryAfterSec ?? (spec.retryable && spec.http >= 500 ? 1 : undefined);
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfter))));
    if (err instanceof QuotaExceededError) res.setHeader(QUOTA_STAGE_HEADER, err.status.stage);
    const detail = problem.issues.length > 0 ? problem.issues : [{ loc: ['body'], msg: problem.message, type: problem.code.toLowerCase() }];
    const trace = traceId === undefined ? {} : { trace_id: traceId };
    if (isElevenLabsRoute(req)) {
      if (problem.code === 'VALIDATION_FAILED' || problem.code === 'REQUEST_JSON_MALFORMED') {
        res.status(spec.http).json({ detail, code: problem.code, request_id: requestId, ...trace });
        return;
      }
      const issue = problem.issues[0];
      const { type, code } = elevenLabsErrorOf(problem.code);
      const param = issue ? String(issue.loc[issue.loc.length - 1] ?? '') || null : null;
      res.status(spec.http).json({ detail: { type, code, status: code, message: problem.message, param, request_id: requestId, platform_code: problem.code } });
      return;
    }
    if (isOpenAiRoute(req)) {
      const issue = problem.issues[0];
      const param = issue ? String(issue.loc[issue.loc.length - 1] ?? '') || null : null;
      const code = problem.code === 'VALIDATION_FAILED' && issue ? openAiValidationCode(issue.type) : openAiCodeOf(problem.code);
      const error = { message: problem.message, type: spec.openaiType, param, code, platform_code: problem.code };
      res.status(spec.http).json(spec.http === 422 ? { error, detail } : { error });
      return;
    }
    if (spec.http === 422) {
      res.status(422).json({ detail, code: problem.code, request_id: requestId, ...trace });
      return;
    }
    res.status(spec.http).json({ code: problem.code, message: problem.message, request_id: requestId, hint: spec.hint, ...trace });
  };
}

/** Answers unknown routes with ROUTE_NOT_FOUND through the error middleware. */
export function notFound(): RequestHandler {
  return (_req, _res, next) => next(new TtsError('ROUTE_NOT_FOUND'));
}
