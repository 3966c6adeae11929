/**
 * Who owns what a caller stores (reference clips, terms acceptances) and the web jobs it submits:
 * the API key, or the studio user (`studio:<user_id>`, the same subject its usage is counted
 * under). Operations that store are documented with API-key or studio security only, so any other
 * caller here is a wiring mistake.
 */
import { JobOwnerKind } from '@tts/proto/scheduler';
import { TtsError } from '@tts/common';
import type { Caller } from '../middleware/access.js';
import { studioTierOf, studioUsageSubject } from '../studio/tiers.js';

/** The owner id of what `caller` stores: the key id, or `studio:<user_id>`. */
export function ownerKeyIdOf(caller: Caller): string {
  if (caller.method === 'api_key') return caller.key.record.keyId;
  if (caller.method === 'studio') return studioUsageSubject(caller.principal.user.userId);
  throw new TtsError('AUTH_KEY_MISSING');
}

/** The owner of a web job: the studio user, or the pass / key subject as a web owner. */
export function webJobOwnerOf(caller: Caller): { id: string; kind: JobOwnerKind; tier: string } {
  if (caller.method === 'studio') return { id: caller.principal.user.userId, kind: JobOwnerKind.JOB_OWNER_KIND_STUDIO, tier: studioTierOf(caller.principal).name };
  return { id: caller.method === 'challenge' || caller.method === 'api_key' ? caller.subject : 'anonymous', kind: JobOwnerKind.JOB_OWNER_KIND_WEB, tier: 'web' };
}

