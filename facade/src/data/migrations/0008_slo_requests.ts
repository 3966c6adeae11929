import type { Migration } from '@tts/common/data';

/**
 * SLIs: one row per request the facade answered (its operation, status, latency and whether it
 * counts against availability), written in batches by every facade replica. The SLO dashboard and
 * alerts aggregate these rows, so their figures survive restarts and agree across replicas. Rows
 * older than the SLO retention are deleted by the cleanup.
 */
export const migration: Migration = {
  version: 8,
  name: 'slo_requests',
  sql: `
CREATE TABLE slo_requests (
  id          bigserial PRIMARY KEY,
  at          timestamptz NOT NULL,
  endpoint    text NOT NULL,
  status      integer NOT NULL CHECK (status >= 100 AND status <= 599),
  ok          boolean NOT NULL,
  latency_ms  double precision NOT NULL CHECK (latency_ms >= 0),
  error_code  text
);
CREATE INDEX slo_requests_at_idx ON slo_requests (at);
CREATE INDEX slo_requests_endpoint_at_idx ON slo_requests (endpoint, at);
`,
};
