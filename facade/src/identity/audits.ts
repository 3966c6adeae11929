/**
 * The job access audit (every read of a job's status or audio: who asked, who owns it, allowed or
 * denied) and the consent audit (every synthesis request: endpoint, mode, consent_confirmed,
 * outcome). Records are append-only; the reports filter as the interface lists.
 */
import { BatchWriter, type AuditPage, type AuditRepository, type ConsentInput, type ConsentRecord, type JobAccessInput, type JobAccessRecord } from '../data/index.js';
import type { Logger } from '@tts/common';
import { DeniedAccessAggregator, type DeniedAccess } from './denied-access.js';
import { parseDayRange, parseFilter, parseFlag, parseLimit } from './report-query.js';

/** Query of GET /api/usage/job-access-audit (raw or coerced values). */
export interface JobAccessAuditQuery {
  readonly day_from?: unknown;
  readonly day_to?: unknown;
  readonly endpoint?: unknown;
  readonly requester_key_id?: unknown;
  readonly owner_key_id?: unknown;
  readonly only_denied?: unknown;
  readonly limit?: unknown;
}

/** Query of GET /api/compliance/consent-audit (raw or coerced values). */
export interface ConsentAuditQuery {
  readonly day_from?: unknown;
  readonly day_to?: unknown;
  readonly endpoint?: unknown;
  readonly mode?: unknown;
  readonly only_failures?: unknown;
  readonly limit?: unknown;
}

/** A page of an audit with the filters that produced it. */
export interface AuditReport<T> extends AuditPage<T> {
  readonly dayFrom: string | null;
  readonly dayTo: string | null;
  readonly limit: number;
  /** True when records were left out by the limit. */
  readonly truncated: boolean;
}

/** Appends to and reads the audits. */
export class AuditService {
  /** Consent records are written behind the response, in batches (one per synthesis request). */
  private readonly consentWriter: BatchWriter<ConsentInput>;

  /** Repeated job-token denials, aggregated per client address, job and endpoint. */
  private readonly denials: DeniedAccessAggregator;

  constructor(
    private readonly repository: AuditRepository,
    logger: Logger,
    options: { readonly flushMs?: number; /** Window of aggregated denials, ms. @default 60000 */ readonly denialWindowMs?: number } = {},
  ) {
    this.consentWriter = new BatchWriter<ConsentInput>({ name: 'consent records', write: (rows) => repository.recordConsentMany(rows), logger, ...(options.flushMs === undefined ? {} : { flushMs: options.flushMs }) });
    this.denials = new DeniedAccessAggregator({ write: (input) => repository.recordJobAccess(input), windowMs: options.denialWindowMs ?? 60_000, logger });
  }

  /** Appends a job access record (call it for every read of a job's status or audio, allowed or not). */
  recordJobAccess(input: JobAccessInput): Promise<void> {
    return this.repository.recordJobAccess(input);
  }

  /** Records a denied job-token access; repeats from one address are aggregated (identity/denied-access.ts). */
  recordDeniedAccess(denial: DeniedAccess): Promise<void> {
    return this.denials.record(denial);
  }

  /**
   * Appends a consent record (call it once per synthesis request, whatever its outcome). It is
   * stamped now and written within the flush interval; `drain()` waits for it.
   */
  recordConsent(input: ConsentInput): void {
    this.consentWriter.record({ ...input, at: input.at ?? new Date() });
  }

  /** Consent records waiting to be written, and dropped (storage unreachable with the buffer full). */
  consentBacklog(): { buffered: number; dropped: number } {
    return this.consentWriter.backlog();
  }

  /** Writes every buffered consent record and aggregated denial, and waits (shutdown; tests before reading). */
  async drain(): Promise<void> {
    await Promise.all([this.consentWriter.drain(), this.denials.flush()]);
  }

  /** GET /api/usage/job-access-audit. Throws USAGE_DATE_INVALID, USAGE_DATE_RANGE_INVALID, VALIDATION_FAILED (422). */
  async jobAccess(query: JobAccessAuditQuery): Promise<AuditReport<JobAccessRecord>> {
    const range = parseDayRange(query);
    const limit = parseLimit(query.limit);
    const page = await this.repository.listJobAccess({
      ...range,
      endpoint: parseFilter(query.endpoint, 'endpoint'),
      requesterKeyId: parseFilter(query.requester_key_id, 'requester_key_id'),
      ownerKeyId: parseFilter(query.owner_key_id, 'owner_key_id'),
      onlyDenied: parseFlag(query.only_denied, 'only_denied'),
      limit,
    });
    return { ...range, limit, ...page, truncated: page.total > page.records.length };
  }

  /** GET /api/compliance/consent-audit. Throws USAGE_DATE_INVALID, USAGE_DATE_RANGE_INVALID, VALIDATION_FAILED (422). */
  async consent(query: ConsentAuditQuery): Promise<AuditReport<ConsentRecord>> {
    const range = parseDayRange(query);
    const limit = parseLimit(query.limit);
    const page = await this.repository.listConsent({
      ...range,
      endpoint: parseFilter(query.endpoint, 'endpoint'),
      mode: parseFilter(query.mode, 'mode'),
      onlyFailures: parseFlag(query.only_failures, 'only_failures'),
      limit,
    });
    return { ...range, limit, ...page, truncated: page.total > page.records.length };
  }
}
