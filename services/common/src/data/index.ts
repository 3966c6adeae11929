/**
 * Storage: one `Database` interface over PostgreSQL (postgres.js, when DATABASE_URL is set) or the
 * embedded PGlite (persisted under DATA_DIR), versioned migrations applied at open, and the
 * repositories. Every query is parameterized; no SQL is ever built from input.
 */
export { DatabaseError, SQLSTATE_APPEND_ONLY, type Database, type Queryable, type Row, type SqlParam } from './database.js';
export { openDatabase, type OpenDatabaseOptions } from './open.js';
export { MigrationError, migrationChecksum } from './migrate.js';
export { MIGRATIONS, type Migration } from './migrations/index.js';
export {
  ApiKeyRepository,
  type ApiKeyCredential,
  type ApiKeyRecord,
  type ApiKeyUpdate,
  type NewApiKey,
} from './repositories/api-keys.js';
export {
  UsageRepository,
  type CharactersUsed,
  type CostFilter,
  type CostResult,
  type CostRow,
  type CostTierTotal,
  type DayRange,
  type RecordedQuotaStage,
  type UsageEventInput,
  type UsageStatus,
  type UsageSummaryFilter,
  type UsageSummaryResult,
  type UsageSummaryRow,
  type UsageTotals,
} from './repositories/usage.js';
export {
  AuditRepository,
  type AuditPage,
  type ConsentFilter,
  type ConsentInput,
  type ConsentOutcome,
  type ConsentRecord,
  type JobAccessFilter,
  type JobAccessInput,
  type JobAccessRecord,
  type JobRequesterKind,
} from './repositories/audits.js';
export { SecretRepository } from './repositories/secrets.js';
export { SloRepository, type LatencyThresholds, type SliMinuteCounts, type SliRow, type SliWindowAggregate } from './repositories/slo.js';
export { BatchWriter, type BatchWriterOptions } from './batch-writer.js';
