/**
 * The facade's storage: the migrations of its tables, repositories of API keys, usage, audits,
 * server secrets and SLI rows over the shared `Database` (`@tts/common/data`), and the batch writer
 * that writes records behind responses.
 */
export { FACADE_MIGRATIONS, SQLSTATE_APPEND_ONLY } from './migrations/index.js';
export {
  ApiKeyRepository,
  type ApiKeyCredential,
  type ApiKeyRecord,
  type ApiKeyUpdate,
  type NewApiKey,
} from './api-keys.js';
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
} from './usage.js';
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
} from './audits.js';
export { SecretRepository } from './secrets.js';
export { JobUsageRepository, type PendingJobUsage } from './job-usage.js';
export { ReferenceRepository, type NewReference, type ReferenceRecord } from './references.js';
export { LexiconRepository, type LexiconEntryRecord } from './lexicons.js';
export { ComplianceRepository, type AbuseAuditEntry, type AbuseReport, type AbuseStatus, type SampleWatermark, type TermsAcceptance } from './compliance.js';
export { SloRepository, type LatencyThresholds, type SliBucketAggregate, type SliMinuteCounts, type SliRow, type SliWindowAggregate } from './slo.js';
export { BatchWriter, type BatchWriterOptions } from './batch-writer.js';
export {
  StudioRepository,
  writeStudioAudit,
  type NewAuditEntry,
  type NewStudioSession,
  type NewStudioUser,
  type PresetFields,
  type StudioAuditEntry,
  type StudioPreset,
  type StudioRole,
  type StudioSessionRow,
  type StudioShare,
  type StudioUser,
  type StudioUserKind,
  type VipRequest,
  type VipStatus,
} from './studio.js';
