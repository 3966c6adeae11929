/**
 * The places of streaming sessions (the WebSocket and Wyoming sessions) and their inactivity
 * time-out, common to every protocol adapter. A session is long and mostly idle (an agent keeps one
 * per conversation), so it is capped apart from synchronous requests: per API key by its tier's
 * `concurrentSessions` (TTS_TIER_SESSIONS). Counted in this process, like the stream slots: the cap
 * is per facade replica, and a replica that dies cannot leave places taken in a shared counter.
 * What the nodes can carry is theirs to refuse (TTS_NODE_MAX_SESSIONS), with a code.
 */
import { TtsError } from '@tts/common';
import type { Caller } from '../middleware/access.js';
import { DEFAULT_TIER, findTier, type Tier } from '../identity/tiers.js';
import type { TierTable } from '../identity/tier-table.js';
import { InFlightLimiter } from '../speech/concurrency.js';

/** The longest inactivity time-out a client may ask for, seconds (ElevenLabs' bound). */
export const MAX_SESSION_INACTIVITY_SEC = 180;

/** Seconds a refused client is asked to wait: sessions are long, a place comes back when one closes. */
const RETRY_AFTER_SEC = 5;

/** Options of `SessionLimits`. */
export interface SessionLimitsOptions {
  /** The tiers with their configured session caps. */
  readonly tiers: TierTable;
  /** Inactivity time-out when the client asks for none, seconds. */
  readonly inactivityTimeoutSec: number;
}

/** Streaming-session places per holder, and the inactivity time-out. */
export class SessionLimits {
  private readonly places = new InFlightLimiter();

  constructor(private readonly options: SessionLimitsOptions) {}

  /** Sessions `caller` holds open now on this replica. */
  openOf(caller: Caller): number {
    return this.places.count(holderOf(caller));
  }

  /**
   * Takes a place for one session of `caller`: an API key by its tier's cap; any other caller (a
   * studio user, a challenge pass) by the default tier's. Returns the place's release
   * (idempotent); throws SESSION_LIMIT_EXCEEDED (429) when the caller holds its cap already.
   */
  acquire(caller: Caller): () => void {
    const max = this.tierOf(caller).concurrentSessions;
    const release = this.places.tryAcquire(holderOf(caller), max);
    if (release === undefined) {
      throw new TtsError('SESSION_LIMIT_EXCEEDED', `This caller already holds ${max} open streaming sessions, as many as its tier allows; close one first.`, { retryAfterSec: RETRY_AFTER_SEC });
    }
    return release;
  }

  /**
   * The inactivity time-out of a session, ms: what the client asked for (seconds; ElevenLabs'
   * `inactivity_timeout`) within 1..180 s, else the configured default.
   */
  inactivityMs(askedSec?: number): number {
    const sec = askedSec === undefined || !Number.isFinite(askedSec) ? this.options.inactivityTimeoutSec : Math.min(Math.max(askedSec, 1), MAX_SESSION_INACTIVITY_SEC);
    return Math.round(sec * 1000);
  }

  private tierOf(caller: Caller): Tier {
    if (caller.method === 'api_key') return this.options.tiers.ofKey(caller.key.tier.name);
    return this.options.tiers.find(DEFAULT_TIER) ?? findTier(DEFAULT_TIER)!;
  }
}

/** Who a session's place is counted against. */
function holderOf(caller: Caller): string {
  switch (caller.method) {
    case 'api_key':
    case 'challenge':
      return `${caller.method}:${caller.subject}`;
    case 'studio':
      return `studio:${caller.principal.user.userId}`;
    default:
      return caller.method;
  }
}
