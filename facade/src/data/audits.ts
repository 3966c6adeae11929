/**
 * The two append-only audits: job access (every read of a job's status or audio) and consent
 * (every synthesis request). Rows are only inserted; the tables' triggers reject UPDATE, DELETE and
 * TRUNCATE.
 */
import type { Database } from '@tts/common/data';
import { DAY_RANGE_SQL } from './day-range.js';
import type { DayRange } from './usage.js';

/** Who asked for a job. */
export type JobRequesterKind = 'api_key' | 'job_token' | 'admin' | 'anonymous';

/** One read of a job's status or audio. */
export interface JobAccessInput {
  readonly requestId: string | null;
  /** The operation, e.g. "GET /api/jobs/{job_id}/audio". */
  readonly endpoint: string;
  readonly jobId: string;
  readonly requesterKind: JobRequesterKind;
  /** The asking key, or null when the requester has no key. */
  readonly requesterKeyId: string | null;
  /** The key that owns the job, or null (web jobs, unknown job). */
  readonly ownerKeyId: string | null;
  readonly allowed: boolean;
  /** Short machine-readable reason, e.g. "owner", "not_owner", "job_not_found". */
  readonly reason: string;
  /** Requests the record stands for (repeated denials aggregated, see identity/denied-access.ts). @default 1 */
  readonly attempts?: number;
  /** The client address, where the record names one. @default null */
  readonly clientAddress?: string | null;
  /** @default now (the database clock) */
  readonly at?: Date;
}

/** A job access record as stored. */
export interface JobAccessRecord extends Omit<JobAccessInput, 'at' | 'attempts' | 'clientAddress'> {
  readonly id: number;
  readonly createdAt: Date;
  readonly attempts: number;
  readonly clientAddress: string | null;
}

/** Filters of the job access audit. */
export interface JobAccessFilter extends DayRange {
  readonly endpoint: string | null;
  readonly requesterKeyId: string | null;
  readonly ownerKeyId: string | null;
  readonly onlyDenied: boolean;
  readonly limit: number;
}

/** How a synthesis request ended, for the consent audit. */
export type ConsentOutcome = 'ok' | 'refused' | 'error';

/** One synthesis request. */
export interface ConsentInput {
  readonly requestId: string | null;
  readonly endpoint: string;
  /** The request's synthesis mode (e.g. "auto"), or null when it has none. */
  readonly mode: string | null;
  readonly authMethod: string;
  readonly keyId: string | null;
  /** The request's consent_confirmed value, or null when absent. */
  readonly consentConfirmed: boolean | null;
  /** ok: synthesized; refused: rejected before synthesis (consent, quota...); error: synthesis failed. */
  readonly outcome: ConsentOutcome;
  readonly errorCode: string | null;
  /** The provenance payload the request's audio is marked with (provenance.ts); absent for none. */
  readonly watermarkPayload?: number;
  /** @default now (the database clock) */
  readonly at?: Date;
}

/** A consent record as stored. */
export interface ConsentRecord extends Omit<ConsentInput, 'at'> {
  readonly id: number;
  readonly createdAt: Date;
}

/** Filters of the consent audit. */
export interface ConsentFilter extends DayRange {
  readonly endpoint: string | null;
  readonly mode: string | null;
  /** Only outcomes other than ok. */
  readonly onlyFailures: boolean;
  readonly limit: number;
}

/** A page of audit records, newest first, with the count before the limit. */
export interface AuditPage<T> {
  readonly records: T[];
  readonly total: number;
}

interface JobAccessRow {
  id: number;
  created_at: Date;
  request_id: string | null;
  endpoint: string;
  job_id: string;
  requester_kind: JobRequesterKind;
  requester_key_id: string | null;
  owner_key_id: string | null;
  allowed: boolean;
  reason: string;
  attempts: number;
  client_address: string | null;
  total: number;
}

interface ConsentRow {
  id: number;
  created_at: Date;
  request_id: string | null;
  endpoint: string;
  mode: string | null;
  auth_method: string;
  key_id: string | null;
  consent_confirmed: boolean | null;
  outcome: ConsentOutcome;
  error_code: string | null;
  total: number;
}

/** Appends to and reads the audits. */
export class AuditRepository {
  constructor(private readonly db: Database) {}

  /** Appends one job access record. */
  async recordJobAccess(input: JobAccessInput): Promise<void> {
    await this.db.query(
      `INSERT INTO job_access_audit (created_at, request_id, endpoint, job_id, requester_kind, requester_key_id, owner_key_id, allowed, reason, attempts, client_address)
       VALUES (COALESCE($1::timestamptz, now()), $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::boolean, $9::text, $10::integer, $11::text)`,
      [input.at ?? null, input.requestId, input.endpoint, input.jobId, input.requesterKind, input.requesterKeyId, input.ownerKeyId, input.allowed, input.reason, input.attempts ?? 1, input.clientAddress ?? null],
    );
  }

  /** Job access records matching `filter`, newest first. */
  async listJobAccess(filter: JobAccessFilter): Promise<AuditPage<JobAccessRecord>> {
    const rows = await this.db.query<JobAccessRow>(
      `SELECT id, created_at, request_id, endpoint, job_id, requester_kind, requester_key_id, owner_key_id, allowed, reason, attempts, client_address,
              COUNT(*) OVER ()::int8 AS total
       FROM job_access_audit
       WHERE ${DAY_RANGE_SQL}
         AND ($3::text IS NULL OR endpoint = $3::text)
         AND ($4::text IS NULL OR requester_key_id = $4::text)
         AND ($5::text IS NULL OR owner_key_id = $5::text)
         AND (NOT $6::boolean OR NOT allowed)
       ORDER BY id DESC
       LIMIT $7::integer`,
      [filter.dayFrom, filter.dayTo, filter.endpoint, filter.requesterKeyId, filter.ownerKeyId, filter.onlyDenied, filter.limit],
    );
    return {
      records: rows.map((r) => ({
        id: r.id,
        createdAt: r.created_at,
        requestId: r.request_id,
        endpoint: r.endpoint,
        jobId: r.job_id,
        requesterKind: r.requester_kind,
        requesterKeyId: r.requester_key_id,
        ownerKeyId: r.owner_key_id,
        allowed: r.allowed,
        reason: r.reason,
        attempts: r.attempts,
        clientAddress: r.client_address,
      })),
      total: rows[0]?.total ?? 0,
    };
  }

  /** Appends one consent record. */
  async recordConsent(input: ConsentInput): Promise<void> {
    await this.recordConsentMany([input]);
  }

  /** Appends consent records in one statement. */
  async recordConsentMany(inputs: readonly ConsentInput[]): Promise<void> {
    if (inputs.length === 0) return;
    const payload = JSON.stringify(
      inputs.map((i) => ({
        created_at: i.at?.toISOString() ?? null, request_id: i.requestId, endpoint: i.endpoint, mode: i.mode, auth_method: i.authMethod,
        key_id: i.keyId, consent_confirmed: i.consentConfirmed, outcome: i.outcome, error_code: i.errorCode, watermark_payload: i.watermarkPayload ?? null,
      })),
    );
    await this.db.query(
      `INSERT INTO consent_audit (created_at, request_id, endpoint, mode, auth_method, key_id, consent_confirmed, outcome, error_code, watermark_payload)
       SELECT COALESCE(r.created_at, now()), r.request_id, r.endpoint, r.mode, r.auth_method, r.key_id, r.consent_confirmed, r.outcome, r.error_code, r.watermark_payload
       FROM jsonb_to_recordset($1::text::jsonb) AS r(created_at timestamptz, request_id text, endpoint text, mode text, auth_method text,
            key_id text, consent_confirmed boolean, outcome text, error_code text, watermark_payload bigint)`,
      [payload],
    );
  }

  /** Consent records matching `filter`, newest first. */
  async listConsent(filter: ConsentFilter): Promise<AuditPage<ConsentRecord>> {
    const rows = await this.db.query<ConsentRow>(
      `SELECT id, created_at, request_id, endpoint, mode, auth_method, key_id, consent_confirmed, outcome, error_code,
              COUNT(*) OVER ()::int8 AS total
       FROM consent_audit
       WHERE ${DAY_RANGE_SQL}
         AND ($3::text IS NULL OR endpoint = $3::text)
         AND ($4::text IS NULL OR mode = $4::text)
         AND (NOT $5::boolean OR outcome <> 'ok')
       ORDER BY id DESC
       LIMIT $6::integer`,
      [filter.dayFrom, filter.dayTo, filter.endpoint, filter.mode, filter.onlyFailures, filter.limit],
    );
    return {
      records: rows.map((r) => ({
        id: r.id,
        createdAt: r.created_at,
        requestId: r.request_id,
        endpoint: r.endpoint,
        mode: r.mode,
        authMethod: r.auth_method,
        keyId: r.key_id,
        consentConfirmed: r.consent_confirmed,
        outcome: r.outcome,
        errorCode: r.error_code,
      })),
      total: rows[0]?.total ?? 0,
    };
  }
}
