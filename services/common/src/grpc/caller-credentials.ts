/**
 * Who calls a scheduler over gRPC, carried in call metadata:
 * - platform components (the facade) send the internal token as `authorization: Bearer <token>`
 *   (TTS_INTERNAL_TOKEN); they have authenticated the end user and state the job's owner;
 * - internal services calling gRPC directly send an API key in `x-api-key`; they act as that key's
 *   owner and tier only;
 * - inference nodes send the join token in `x-tts-node-token` (TTS_NODE_JOIN_TOKEN) when they
 *   register and heart-beat.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { InterceptingCall, type Interceptor, type Metadata } from '@grpc/grpc-js';

/** A credential a client attaches to every call. */
export type CallerCredential =
  | { readonly kind: 'internal'; readonly token: string }
  | { readonly kind: 'api_key'; readonly apiKey: string }
  | { readonly kind: 'node'; readonly token: string };

/** Metadata keys of the credentials. */
export const CREDENTIAL_METADATA = { internal: 'authorization', apiKey: 'x-api-key', node: 'x-tts-node-token' } as const;

/** The metadata key and value of a credential. */
function entryOf(credential: CallerCredential): [string, string] {
  switch (credential.kind) {
    case 'internal':
      return [CREDENTIAL_METADATA.internal, `Bearer ${credential.token}`];
    case 'api_key':
      return [CREDENTIAL_METADATA.apiKey, credential.apiKey];
    case 'node':
      return [CREDENTIAL_METADATA.node, credential.token];
  }
}

/** A client interceptor that adds `credential` to the metadata of every call. */
export function credentialInterceptor(credential: CallerCredential): Interceptor {
  const [key, value] = entryOf(credential);
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set(key, value);
        next(metadata, listener);
      },
    });
}

/** A short, stable name of a credential (client caches key on it; never the secret itself). */
export function credentialFingerprint(credential: CallerCredential | undefined): string {
  if (credential === undefined) return 'none';
  const [key, value] = entryOf(credential);
  return `${key}:${createHash('sha256').update(value).digest('hex').slice(0, 16)}`;
}

/** The one value of `key` in `metadata`, or undefined (absent, empty or repeated). */
export function metadataValue(metadata: Metadata, key: string): string | undefined {
  const values = metadata.get(key);
  if (values.length !== 1) return undefined;
  const v = values[0];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Compares a presented secret with the expected one in constant time. */
export function sameSecret(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
