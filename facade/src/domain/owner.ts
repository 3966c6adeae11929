/**
 * Who owns what a caller stores (reference clips): the API key. Operations that store are
 * documented with API-key security only, so any other caller here is a wiring mistake.
 */
import { TtsError } from '@tts/common';
import type { Caller } from '../middleware/access.js';

/** The key id owning what `caller` stores. */
export function ownerKeyIdOf(caller: Caller): string {
  if (caller.method === 'api_key') return caller.key.record.keyId;
  throw new TtsError('AUTH_KEY_MISSING');
}
