/**
 * Terms acceptances, abuse reports and the audit of their status changes.
 */
import type { Database, Queryable } from '@tts/common/data';

/** Review states of an abuse report. */
export type AbuseStatus = 'open' | 'reviewing' | 'actioned' | 'dismissed';

/** What watermark detection found in a report's audio sample. */
export interface SampleWatermark {
  readonly detected: boolean;
  readonly confidence: number;
  readonly payload: string | null;
  readonly keyId: number | null;
}

/** A stored abuse report. */
export interface AbuseReport {
  readonly reportId: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly status: AbuseStatus;
  readonly category: string;
  readonly description: string;
  readonly reporterContact: string | null;
  readonly reportedRequestId: string | null;
  readonly evidenceUrl: string | null;
  readonly sampleSha256: string | null;
  readonly sampleBytes: number | null;
  readonly watermark: SampleWatermark | null;
  /** The request the sample's watermark names, found on the server. */
  readonly linkedRequestId: string | null;
}

/** One status change of a report. */
export interface AbuseAuditEntry {
  readonly at: Date;
  readonly actor: string;
  readonly fromStatus: AbuseStatus | null;
  readonly toStatus: AbuseStatus;
  readonly note: string | null;
}

/** A recorded acceptance. */
export interface TermsAcceptance {
  readonly subjectType: 'api_key' | 'studio_user';
  readonly subjectId: string;
  readonly termsVersion: string;
  readonly termsSha256: string;
  readonly acceptedAt: Date;
}

type Row = Record<string, unknown>;

function reportOf(r: Row): AbuseReport {
  const wm = (typeof r['watermark'] === 'string' ? JSON.parse(r['watermark']) : r['watermark']) as SampleWatermark | null;
  return {
    reportId: String(r['report_id']),
    createdAt: r['created_at'] as Date,
    updatedAt: r['updated_at'] as Date,
    status: r['status'] as AbuseStatus,
    category: String(r['category']),
    description: String(r['description']),
    reporterContact: (r['reporter_contact'] as string | null) ?? null,
    reportedRequestId: (r['reported_request_id'] as string | null) ?? null,
    evidenceUrl: (r['evidence_url'] as string | null) ?? null,
    sampleSha256: (r['sample_sha256'] as string | null) ?? null,
    sampleBytes: r['sample_bytes'] === null || r['sample_bytes'] === undefined ? null : Number(r['sample_bytes']),
    watermark: wm ?? null,
    linkedRequestId: (r['linked_request_id'] as string | null) ?? null,
  };
}

const REPORT_COLUMNS = 'report_id, created_at, updated_at, status, category, description, reporter_contact, reported_request_id, evidence_url, sample_sha256, sample_bytes, watermark, linked_request_id';

/** Reads and writes the compliance tables. */
export class ComplianceRepository {
  constructor(private readonly db: Database) {}

  /** Records an acceptance; an existing one of the same version is returned unchanged. */
  async accept(a: Omit<TermsAcceptance, 'acceptedAt'>, requestId: string): Promise<{ acceptance: TermsAcceptance; created: boolean }> {
    const inserted = await this.db.query<Row>(
      `INSERT INTO terms_acceptances (subject_type, subject_id, terms_version, terms_sha256, request_id) VALUES ($1::text, $2::text, $3::text, $4::text, $5::text)
       ON CONFLICT (subject_type, subject_id, terms_version) DO NOTHING RETURNING accepted_at`,
      [a.subjectType, a.subjectId, a.termsVersion, a.termsSha256, requestId],
    );
    if (inserted[0]) return { acceptance: { ...a, acceptedAt: inserted[0]['accepted_at'] as Date }, created: true };
    const rows = await this.db.query<Row>(
      'SELECT terms_sha256, accepted_at FROM terms_acceptances WHERE subject_type = $1::text AND subject_id = $2::text AND terms_version = $3::text',
      [a.subjectType, a.subjectId, a.termsVersion],
    );
    return { acceptance: { ...a, termsSha256: String(rows[0]!['terms_sha256']), acceptedAt: rows[0]!['accepted_at'] as Date }, created: false };
  }

  /** The subject's acceptances, newest first. */
  async acceptances(subjectType: string, subjectId: string): Promise<TermsAcceptance[]> {
    const rows = await this.db.query<Row>(
      'SELECT subject_type, subject_id, terms_version, terms_sha256, accepted_at FROM terms_acceptances WHERE subject_type = $1::text AND subject_id = $2::text ORDER BY accepted_at DESC, id DESC',
      [subjectType, subjectId],
    );
    return rows.map((r) => ({ subjectType: r['subject_type'] as 'api_key', subjectId: String(r['subject_id']), termsVersion: String(r['terms_version']), termsSha256: String(r['terms_sha256']), acceptedAt: r['accepted_at'] as Date }));
  }

  /** Stores a new report (status open) and its first audit entry. */
  async createReport(report: Omit<AbuseReport, 'createdAt' | 'updatedAt' | 'status'>, requestId: string): Promise<AbuseReport> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<Row>(
        `INSERT INTO abuse_reports (report_id, status, category, description, reporter_contact, reported_request_id, evidence_url, sample_sha256, sample_bytes, watermark, linked_request_id, request_id)
         VALUES ($1::text, 'open', $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::integer, $9::jsonb, $10::text, $11::text) RETURNING ${REPORT_COLUMNS}`,
        [report.reportId, report.category, report.description, report.reporterContact, report.reportedRequestId, report.evidenceUrl, report.sampleSha256, report.sampleBytes,
          report.watermark === null ? null : JSON.stringify(report.watermark), report.linkedRequestId, requestId],
      );
      await audit(tx, report.reportId, 'reporter', null, 'open', null);
      return reportOf(rows[0]!);
    });
  }

  async listReports(status: AbuseStatus | undefined, limit: number): Promise<AbuseReport[]> {
    const rows = status === undefined
      ? await this.db.query<Row>(`SELECT ${REPORT_COLUMNS} FROM abuse_reports ORDER BY created_at DESC, report_id LIMIT $1::integer`, [limit])
      : await this.db.query<Row>(`SELECT ${REPORT_COLUMNS} FROM abuse_reports WHERE status = $1::text ORDER BY created_at DESC, report_id LIMIT $2::integer`, [status, limit]);
    return rows.map(reportOf);
  }

  async getReport(reportId: string): Promise<AbuseReport | undefined> {
    const rows = await this.db.query<Row>(`SELECT ${REPORT_COLUMNS} FROM abuse_reports WHERE report_id = $1::text`, [reportId]);
    return rows[0] === undefined ? undefined : reportOf(rows[0]);
  }

  async history(reportId: string): Promise<AbuseAuditEntry[]> {
    const rows = await this.db.query<Row>('SELECT at, actor, from_status, to_status, note FROM abuse_report_audit WHERE report_id = $1::text ORDER BY id', [reportId]);
    return rows.map((r) => ({ at: r['at'] as Date, actor: String(r['actor']), fromStatus: (r['from_status'] as AbuseStatus | null) ?? null, toStatus: r['to_status'] as AbuseStatus, note: (r['note'] as string | null) ?? null }));
  }

  /**
   * Moves a report from `from` to `to` and audits it, in one transaction; undefined when the report
   * is no longer in `from` (another change won).
   */
  async move(reportId: string, from: AbuseStatus, to: AbuseStatus, actor: string, note: string | null): Promise<AbuseReport | undefined> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<Row>(
        `UPDATE abuse_reports SET status = $3::text, updated_at = now() WHERE report_id = $1::text AND status = $2::text RETURNING ${REPORT_COLUMNS}`,
        [reportId, from, to],
      );
      if (!rows[0]) return undefined;
      await audit(tx, reportId, actor, from, to, note);
      return reportOf(rows[0]);
    });
  }
}

async function audit(tx: Queryable, reportId: string, actor: string, from: AbuseStatus | null, to: AbuseStatus, note: string | null): Promise<void> {
  await tx.query('INSERT INTO abuse_report_audit (report_id, actor, from_status, to_status, note) VALUES ($1::text, $2::text, $3::text, $4::text, $5::text)', [reportId, actor, from, to, note]);
}
