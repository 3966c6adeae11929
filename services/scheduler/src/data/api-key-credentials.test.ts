import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, it } from 'node:test';
import type { Logger } from '@tts/common';
import type { Database } from '@tts/common/data';
import { databaseBackends } from '@tts/common/testing';
import { ApiKeyCredentialsView } from './api-key-credentials.js';
import { SCHEDULER_MIGRATIONS } from './migrations/index.js';

const KEY = `tts_${'k'.repeat(16)}_${'S'.repeat(40)}`;
const DISABLED = `tts_${'d'.repeat(16)}_${'S'.repeat(40)}`;
const sha256Hex = (s: string): string => createHash('sha256').update(s).digest('hex');
/** The last character changed: the same key id, another secret. */
const otherSecret = (apiKey: string): string => `${apiKey.slice(0, -1)}T`;

/** A logger that keeps the warnings. */
function warnings(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger: Logger = { debug: () => undefined, info: () => undefined, warn: (msg) => lines.push(msg), error: () => undefined, child: () => logger };
  return { logger, lines };
}

/**
 * The facade's published contract as ARCHITECTURE.md documents it (the real view is the facade's
 * migration 27; tests/scheduler-callers.test.ts runs against it): a view named
 * api_key_credentials with key_id, secret_hash, tier and disabled.
 */
async function publishCredentials(db: Database): Promise<void> {
  await db.query('CREATE TABLE keys_behind (id text PRIMARY KEY, hash text NOT NULL, tier text NOT NULL, off boolean NOT NULL)');
  await db.query('CREATE VIEW api_key_credentials AS SELECT id AS key_id, hash AS secret_hash, tier, off AS disabled FROM keys_behind');
  await db.query('INSERT INTO keys_behind VALUES ($1::text, $2::text, $3::text, false), ($4::text, $5::text, $6::text, true)', ['k'.repeat(16), sha256Hex(KEY), 'pro', 'd'.repeat(16), sha256Hex(DISABLED), 'free']);
}

for (const backend of databaseBackends(SCHEDULER_MIGRATIONS)) {
  describe(`api key credentials view (${backend.name})`, () => {
    after(() => backend.close());

    it('verifies a key through the view: its id and tier; invalid when malformed, unknown or with a wrong secret; disabled only with the secret', async (t) => {
      const db = await backend.open(t);
      await publishCredentials(db);
      const callers = new ApiKeyCredentialsView(db, warnings().logger);
      assert.deepEqual(await callers.verifyApiKey(KEY), { keyId: 'k'.repeat(16), tier: 'pro' });
      assert.equal(await callers.verifyApiKey(DISABLED), 'disabled');
      for (const refused of [otherSecret(KEY), otherSecret(DISABLED), `tts_${'u'.repeat(16)}_${'S'.repeat(40)}`, `${KEY} `, KEY.toUpperCase(), '', 'x'.repeat(10_000)]) {
        assert.equal(await callers.verifyApiKey(refused), 'invalid', refused.slice(0, 80));
      }
    });

    it('refuses every key as invalid, warning once, on a job database without the facade\'s view', async (t) => {
      const db = await backend.open(t);
      const { logger, lines } = warnings();
      const callers = new ApiKeyCredentialsView(db, logger);
      assert.equal(await callers.verifyApiKey(KEY), 'invalid');
      assert.equal(await callers.verifyApiKey(DISABLED), 'invalid');
      assert.equal(lines.length, 1);
      assert.match(lines[0]!, /api_key_credentials/);
    });
  });
}
