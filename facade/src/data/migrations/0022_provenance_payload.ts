import type { Migration } from '@tts/common/data';

/**
 * Provenance payloads kept beside the request they name: the payload is keyed (HMAC of the
 * platform's own request id under a server secret), so the database cannot compute it and
 * detection looks a found payload up here. Rows written before have none (NULL).
 *
 * Released with `ALTER TABLE jobs ADD COLUMN watermark_payload bigint` at the end (the payload a
 * job keeps); that column is the scheduler's migration 26 now, so databases that ran the released
 * text record its checksum.
 */
export const migration: Migration = {
  version: 22,
  name: 'provenance_payload',
  sql: `
ALTER TABLE consent_audit ADD COLUMN watermark_payload bigint;
CREATE INDEX consent_audit_watermark_payload_idx ON consent_audit (watermark_payload) WHERE watermark_payload IS NOT NULL;
`,
  formerChecksums: ['f131ec44a1e3879a1ba268bcaf22951ac74ddc62fa96d1bbbf87bb67f931227a'],
};
