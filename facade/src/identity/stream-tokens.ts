/**
 * Streaming tokens: what a browser opens the speech WebSocket (GET /v1/audio/speech/stream) with,
 * so that no API key sits in a page or in a URL that gets logged. A server holding the key mints
 * one (POST /v1/audio/speech/stream/tokens) and hands it to the page; the page connects with
 * `?token=` within the token's life. A token is single use and short-lived, and stands for the key
 * that minted it: the session is that key's, with its tier, quotas and limits.
 *
 * Tokens live in the facade's Kv (Redis when configured), so a token minted on one replica opens a
 * session on any other. The store holds the token's SHA-256, never the token, so neither a Kv dump
 * nor a key listing gives one away. Redemption is atomic across replicas: of two concurrent uses,
 * only the one whose delete removed the entry wins.
 */
import { randomBytes } from 'node:crypto';
import { TtsError, isApiKeyId } from '@tts/common';
import type { Kv } from '@tts/common/kv';
import type { ApiKeyService } from './api-keys.js';
import type { Principal } from './authenticator.js';
import { sha256Hex } from './crypto.js';

/** How long a minted token may be used, seconds. */
export const STREAM_TOKEN_TTL_SEC = 60;

/** Tokens start with this, so a leaked one is recognised (and the log scan finds it). */
const TOKEN_PREFIX = 'wst_';
/** `wst_` and the base64url form of 32 random bytes. */
const TOKEN_SHAPE = /^wst_[A-Za-z0-9_-]{43}$/;

/** A minted token. */
export interface StreamToken {
  /** The token; handed to the client once, never stored or logged. */
  readonly token: string;
  /** Unix time (seconds) after which it no longer opens a session. */
  readonly expiresAt: number;
}

/** Mints and redeems streaming tokens. */
export class StreamTokens {
  /** `ttlSec`: how long a token may be used. @default STREAM_TOKEN_TTL_SEC */
  constructor(
    private readonly kv: Pick<Kv, 'get' | 'del' | 'setIfAbsent'>,
    private readonly apiKeys: Pick<ApiKeyService, 'byId'>,
    private readonly ttlSec: number = STREAM_TOKEN_TTL_SEC,
  ) {}

  /** A new token for the key `keyId` (the caller that presented it). */
  async issue(keyId: string): Promise<StreamToken> {
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    // 256 random bits: a collision is not a case to handle, but a refused write must not hand out a dead token.
    if (!(await this.kv.setIfAbsent(entryOf(token), keyId, this.ttlSec))) throw new TtsError('INTERNAL_ERROR', 'A streaming token could not be stored.');
    return { token, expiresAt: Math.ceil(Date.now() / 1000 + this.ttlSec) };
  }

  /**
   * The caller a token stands for; the token is used up. Throws AUTH_STREAM_TOKEN_INVALID
   * (malformed, unknown, expired or used: one code, so the answer tells nothing of which), and the
   * key's own refusal (AUTH_KEY_DISABLED) when the key was disabled since.
   */
  async redeem(token: string): Promise<Principal & { method: 'api_key' }> {
    if (!TOKEN_SHAPE.test(token)) throw new TtsError('AUTH_STREAM_TOKEN_INVALID');
    const entry = entryOf(token);
    const keyId = await this.kv.get(entry);
    if (keyId === null || !isApiKeyId(keyId) || !(await this.kv.del(entry))) throw new TtsError('AUTH_STREAM_TOKEN_INVALID');
    const key = await this.apiKeys.byId(keyId);
    return { method: 'api_key', key, rateProfile: 'api_key', subject: key.record.keyId };
  }
}

function entryOf(token: string): string {
  return `stream-token:${sha256Hex(token)}`;
}
