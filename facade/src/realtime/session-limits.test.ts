import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TtsError } from '@tts/common';
import type { Caller } from '../middleware/access.js';
import type { AuthenticatedKey } from '../identity/api-keys.js';
import { TierTable } from '../identity/tier-table.js';
import { SessionLimits } from './session-limits.js';

const keyOf = (tiers: TierTable, keyId: string, tier: string): Caller => ({
  method: 'api_key',
  key: { record: { keyId }, tier: tiers.ofKey(tier), ratePerMinute: 360 } as unknown as AuthenticatedKey,
  rateProfile: 'api_key',
  subject: keyId,
});

describe('SessionLimits', () => {
  it('caps each key by its tier (administrator overrides apply), refuses with SESSION_LIMIT_EXCEEDED (429, Retry-After) and frees a place once', () => {
    const tiers = new TierTable({}, {}, { pro: 3 });
    const limits = new SessionLimits({ tiers, inactivityTimeoutSec: 20 });
    const free = keyOf(tiers, 'k_free', 'free');
    const pro = keyOf(tiers, 'k_pro', 'pro');
    const first = limits.acquire(free);
    limits.acquire(free);
    assert.throws(() => limits.acquire(free), (e: unknown) => e instanceof TtsError && e.code === 'SESSION_LIMIT_EXCEEDED' && e.spec.http === 429 && e.retryAfterSec === 5);
    for (let i = 0; i < 3; i++) limits.acquire(pro);
    assert.throws(() => limits.acquire(pro), (e: unknown) => e instanceof TtsError && e.code === 'SESSION_LIMIT_EXCEEDED', 'TTS_TIER_SESSIONS pro=3 applies');
    first();
    first();
    assert.equal(limits.openOf(free), 1, 'a second release frees nothing more');
    assert.doesNotThrow(() => limits.acquire(free));
    assert.equal(new TierTable().find('enterprise')?.concurrentSessions, 128, 'the documented default');
  });

  it('gives the inactivity time-out the client asked for within 1..180 s, else the default', () => {
    const limits = new SessionLimits({ tiers: new TierTable(), inactivityTimeoutSec: 20 });
    assert.equal(limits.inactivityMs(), 20_000);
    assert.equal(limits.inactivityMs(60), 60_000);
    assert.equal(limits.inactivityMs(1000), 180_000);
    assert.equal(limits.inactivityMs(0), 1000);
    assert.equal(limits.inactivityMs(Number.NaN), 20_000);
  });
});
