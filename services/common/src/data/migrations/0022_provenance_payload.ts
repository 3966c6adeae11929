import type { Migration } from './migration.js';

/**
 * Provenance payloads kept beside the request they name: the payload is keyed (HMAC of the
 * platform's own request id under a server secret), so the database cannot compute it and
 * detection looks a found payload up here. A job keeps the payload its submitting request chose,
 * so whichever scheduler runs it marks its audio alike. Rows written before have none (NULL).
 */
export const migration: Migration = {
  version: 22,
  name: 'provenance_payload',
  sql: `
ALTER TABLE consent_audit ADD COLUMN watermark_payload bigint;
CREATE INDEX consent_audit_watermark_payload_idx ON consent_audit (watermark_payload) WHERE watermark_payload IS NOT NULL;
ALTER TABLE jobs ADD COLUMN watermark_payload bigint;
`,
};
