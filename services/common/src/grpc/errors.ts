/**
 * Carries catalogue errors across gRPC: a TtsError becomes a ServiceError whose metadata holds the
 * stable code, the field at fault and Retry-After, and is rebuilt on the other side.
 */
import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { ERROR_CATALOGUE, isErrorCode, type ErrorCode } from '../errors/catalogue.js';
import { TtsError } from '../errors/tts-error.js';

const CODE_KEY = 'tts-error-code';
const LOC_KEY = 'tts-error-loc';
const RETRY_KEY = 'tts-retry-after';

/** Converts any thrown value into a gRPC ServiceError; internal failures keep their message out. */
export function toServiceError(err: unknown): ServiceError {
  const tts = err instanceof TtsError ? err : new TtsError('INTERNAL_ERROR');
  const metadata = new Metadata();
  metadata.set(CODE_KEY, tts.code);
  if (tts.loc.length > 0) metadata.set(LOC_KEY, JSON.stringify(tts.loc));
  if (tts.retryAfterSec !== undefined) metadata.set(RETRY_KEY, String(tts.retryAfterSec));
  const out = new Error(tts.message) as ServiceError;
  out.code = GrpcStatus[ERROR_CATALOGUE[tts.code].grpc];
  out.details = tts.message;
  out.metadata = metadata;
  return out;
}

const FALLBACK: Partial<Record<GrpcStatus, ErrorCode>> = {
  [GrpcStatus.UNAVAILABLE]: 'TTS_NO_NODE_AVAILABLE',
  [GrpcStatus.DEADLINE_EXCEEDED]: 'TTS_DEADLINE_EXCEEDED',
  [GrpcStatus.CANCELLED]: 'TTS_CANCELLED',
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'TTS_NODE_OVERLOADED',
};

/** Rebuilds the TtsError a peer sent; transport failures map to retryable catalogue codes. */
export function fromServiceError(err: unknown): TtsError {
  if (err instanceof TtsError) return err;
  const se = err as Partial<ServiceError>;
  const md = se.metadata instanceof Metadata ? se.metadata : undefined;
  const code = md?.get(CODE_KEY)[0];
  if (isErrorCode(code)) {
    const locRaw = md?.get(LOC_KEY)[0];
    const retryRaw = md?.get(RETRY_KEY)[0];
    let loc: (string | number)[] = [];
    if (typeof locRaw === 'string') {
      try {
        loc = JSON.parse(locRaw) as (string | number)[];
      } catch {
        loc = [];
      }
    }
    return new TtsError(code, se.details ?? undefined, {
      loc,
      retryAfterSec: typeof retryRaw === 'string' ? Number(retryRaw) : undefined,
    });
  }
  const mapped = se.code === undefined ? undefined : FALLBACK[se.code];
  return new TtsError(mapped ?? 'INTERNAL_ERROR', undefined, { cause: err });
}
