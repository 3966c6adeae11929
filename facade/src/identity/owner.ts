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

/** Who a job belongs to, as the scheduler records it. */
export interface JobOwner {
  readonly id: string;
  readonly kind: JobOwnerKind;
  /** The tier its queue priority comes from. */
  readonly tier: string;
}

/** The owner of a job submitted through the jobs API: the API key, or the pass / administrator as a web owner. */
export function apiJobOwnerOf(caller: Caller): JobOwner {
  if (caller.method === 'api_key') return { id: caller.key.record.keyId, kind: JobOwnerKind.JOB_OWNER_KIND_API_KEY, tier: caller.key.tier.name };
  return { id: caller.method === 'challenge' ? caller.subject : 'admin', kind: JobOwnerKind.JOB_OWNER_KIND_WEB, tier: 'web' };
}

/** The owner of a web job: the studio user, or the pass / key subject as a web owner. */
export function webJobOwnerOf(caller: Caller): JobOwner {
  if (caller.method === 'studio') return { id: caller.principal.user.userId, kind: JobOwnerKind.JOB_OWNER_KIND_STUDIO, tier: studioTierOf(caller.principal).name };
  return { id: caller.method === 'challenge' || caller.method === 'api_key' ? caller.subject : 'anonymous', kind: JobOwnerKind.JOB_OWNER_KIND_WEB, tier: 'web' };
}

