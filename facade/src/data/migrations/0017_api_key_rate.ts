import type { Migration } from '@tts/common/data';

/**
 * Per-key rate limit: calls per minute for one API key, overriding its tier's default; null uses
 * the tier's. Bounded like the rate limiter (1 to 100000).
 */
export const migration: Migration = {
  version: 17,
  name: 'api_key_rate',
  sql: `
ALTER TABLE api_keys ADD COLUMN rate_limit_per_minute integer CHECK (rate_limit_per_minute BETWEEN 1 AND 100000);
`,
};
