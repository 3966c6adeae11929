import { ERROR_CATALOGUE, type ErrorCode, type ErrorSpec } from './catalogue.js';

/**
 * Thrown when a request cannot be served for a reason a client should see: it carries a stable
 * catalogue code, a client-safe message, and optionally the request field at fault.
 */
export class TtsError extends Error {
  override readonly name = 'TtsError';
  /** Stable catalogue code. */
  readonly code: ErrorCode;
  /** Field path at fault, e.g. ['body', 'voice']; empty when not about a field. */
  readonly loc: readonly (string | number)[];
  /** Seconds a client should wait before retrying (sets Retry-After). */
  readonly retryAfterSec: number | undefined;

  constructor(code: ErrorCode, message?: string, options: { loc?: readonly (string | number)[]; retryAfterSec?: number; cause?: unknown } = {}) {
    super(message ?? ERROR_CATALOGUE[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.loc = options.loc ?? [];
    this.retryAfterSec = options.retryAfterSec;
  }

  /** The catalogue entry of this error's code. */
  get spec(): ErrorSpec {
    return ERROR_CATALOGUE[this.code];
  }
}
