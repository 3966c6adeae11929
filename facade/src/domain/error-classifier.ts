/**
 * Classifies an error a client saw (a catalogue code, an HTTP status or a gRPC status) into a
 * category with retry advice.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { ERROR_CATALOGUE, isErrorCode, type ErrorCode } from '@tts/common';

/** Input of the classifier. */
export interface ClassifyInput {
  readonly code?: string;
  readonly http_status?: number;
  readonly grpc_status?: number | string;
  readonly message?: string;
}

type Category = 'client_error' | 'authentication' | 'rate_limit' | 'unavailable' | 'timeout' | 'cancelled' | 'server_error' | 'unknown';

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

function grpcToHttp(value: number | string): number | undefined {
  const n = typeof value === 'number' ? value : (GrpcStatus as unknown as Record<string, number>)[value.toUpperCase()];
  if (n === undefined) return undefined;
  const table: Partial<Record<number, number>> = {
    [GrpcStatus.INVALID_ARGUMENT]: 422, [GrpcStatus.NOT_FOUND]: 404, [GrpcStatus.UNAUTHENTICATED]: 401,
    [GrpcStatus.PERMISSION_DENIED]: 403, [GrpcStatus.RESOURCE_EXHAUSTED]: 429, [GrpcStatus.UNAVAILABLE]: 503,
    [GrpcStatus.DEADLINE_EXCEEDED]: 504, [GrpcStatus.CANCELLED]: 499, [GrpcStatus.INTERNAL]: 500,
    [GrpcStatus.UNIMPLEMENTED]: 404, [GrpcStatus.FAILED_PRECONDITION]: 409, [GrpcStatus.ALREADY_EXISTS]: 409,
  };
  return table[n];
}

/** Classifies `input`; a catalogue code wins over statuses. */
export function classifyError(input: ClassifyInput): Record<string, unknown> {
  const code = input.code?.trim().toUpperCase();
  if (code && isErrorCode(code)) {
    const spec = ERROR_CATALOGUE[code as ErrorCode];
    return { matched: true, code, category: categoryOfHttp(spec.http), retryable: spec.retryable, http_status: spec.http, message: spec.message, hint: spec.hint };
  }
  const http = input.http_status ?? (input.grpc_status === undefined ? undefined : grpcToHttp(input.grpc_status));
  if (http === undefined) return { matched: false, code: null, category: 'unknown', retryable: false, http_status: null, message: null, hint: null };
  const category = categoryOfHttp(http);
  const retryable = ['rate_limit', 'unavailable', 'timeout', 'server_error'].includes(category);
  const sameStatus = Object.entries(ERROR_CATALOGUE).filter(([, s]) => s.http === http);
  const only = sameStatus.length === 1 ? sameStatus[0] : undefined;
  return {
    matched: only !== undefined,
    code: only ? only[0] : null,
    category,
    retryable,
    http_status: http,
    message: only ? only[1].message : null,
    hint: only ? only[1].hint : retryable ? 'Retry with exponential back-off, honouring Retry-After.' : 'Fix the request; retrying it unchanged will fail again.',
  };
}
