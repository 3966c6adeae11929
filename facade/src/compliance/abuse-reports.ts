/**
 * Abuse reports: anyone may file one (rate limited); an optional audio sample is checked for the
 * platform's watermark on a node, and the request its payload names is linked on the server (never
 * shown to the reporter). Administrators list reports and move them through
 * open -> reviewing -> actioned | dismissed; every change is audited.
 */
import { createHash, randomBytes } from 'node:crypto';
import { payloadHex, TtsError, type ErrorCode } from '@tts/common';
import type { Database } from '@tts/common/data';
import type { AbuseReport, AbuseStatus, ComplianceRepository, SampleWatermark } from '../data/index.js';
import type { AnalysisGateway } from '../references/audio-analysis.js';
import { requestsNamedBy } from './provenance.js';

/** Largest audio sample of a report, decoded bytes (the JSON body limit leaves room for its base64). */
export const MAX_SAMPLE_BYTES = 512 * 1024;

/** Node answers that mean the sample is not audio the platform reads (kept, without a watermark result). */
const UNREADABLE_SAMPLE: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['AUDIO_DECODE_FAILED', 'AUDIO_CONTAINER_UNSUPPORTED', 'AUDIO_FORMAT_OUT_OF_RANGE']);

/** The moves an administrator may make. */
const MOVES: Readonly<Record<AbuseStatus, readonly AbuseStatus[]>> = { open: ['reviewing'], reviewing: ['actioned', 'dismissed'], actioned: [], dismissed: [] };

/** A report as filed. */
export interface NewAbuseReport {
  readonly category: string;
  readonly description: string;
  readonly reporterContact?: string | undefined;
  readonly requestId?: string | undefined;
  readonly evidenceUrl?: string | undefined;
  readonly audioSampleBase64?: string | undefined;
}

/** Files and reviews abuse reports. */
export class AbuseReports {
  constructor(
    private readonly repo: ComplianceRepository,
    private readonly analysis: AnalysisGateway,
    private readonly db: Database,
  ) {}

  async file(input: NewAbuseReport, requestId: string, signal: AbortSignal): Promise<AbuseReport> {
    let sample: Buffer | undefined;
    if (input.audioSampleBase64 !== undefined) {
      const b64 = input.audioSampleBase64.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) throw new TtsError('ABUSE_SAMPLE_INVALID', 'audio_sample_base64 is not base64.', { loc: ['body', 'audio_sample_base64'] });
      if ((b64.length / 4) * 3 > MAX_SAMPLE_BYTES + 2) throw new TtsError('UPLOAD_TOO_LARGE', `The audio sample exceeds ${MAX_SAMPLE_BYTES} bytes.`, { loc: ['body', 'audio_sample_base64'] });
      sample = Buffer.from(b64, 'base64');
      if (sample.length === 0) throw new TtsError('ABUSE_SAMPLE_INVALID', 'audio_sample_base64 is empty.', { loc: ['body', 'audio_sample_base64'] });
    }
    let watermark: SampleWatermark | null = null;
    let linked: string | null = null;
    if (sample) {
      const d = await this.analysis.detectWatermark({ bytes: sample }, { requestId, filename: 'sample', contentType: 'application/octet-stream', sizeBytes: sample.length }, signal).catch((err: unknown) => {
        // A sample that is not audio the nodes read is kept as evidence; the report still counts.
        if (err instanceof TtsError && UNREADABLE_SAMPLE.has(err.code)) return null;
        throw err;
      });
      if (d) {
        watermark = { detected: d.detected, confidence: d.confidence, payload: d.detected && d.hasPayload ? payloadHex(d.payload) : null, keyId: d.detected ? d.keyId : null };
        if (d.detected && d.hasPayload) linked = (await requestsNamedBy(this.db, d.payload, 1))[0]?.requestId ?? null;
      }
    }
    return this.repo.createReport({
      reportId: `abr_${randomBytes(10).toString('base64url')}`,
      category: input.category,
      description: input.description,
      reporterContact: input.reporterContact ?? null,
      reportedRequestId: input.requestId ?? null,
      evidenceUrl: input.evidenceUrl ?? null,
      sampleSha256: sample ? createHash('sha256').update(sample).digest('hex') : null,
      sampleBytes: sample ? sample.length : null,
      watermark,
      linkedRequestId: linked,
    }, requestId);
  }

  list(status: AbuseStatus | undefined, limit: number): Promise<AbuseReport[]> {
    return this.repo.listReports(status, limit);
  }

  async get(reportId: string): Promise<AbuseReport> {
    const r = await this.repo.getReport(reportId);
    if (!r) throw new TtsError('ABUSE_REPORT_NOT_FOUND', undefined, { loc: ['path', 'report_id'] });
    return r;
  }

  history(reportId: string): ReturnType<ComplianceRepository['history']> {
    return this.repo.history(reportId);
  }

  /** Moves a report; 409 ABUSE_REPORT_TRANSITION_INVALID for a move the review flow does not allow. */
  async move(reportId: string, to: AbuseStatus, actor: string, note: string | null): Promise<AbuseReport> {
    const current = await this.get(reportId);
    if (!MOVES[current.status].includes(to)) {
      throw new TtsError('ABUSE_REPORT_TRANSITION_INVALID', `A report cannot move from ${current.status} to ${to} (allowed: ${MOVES[current.status].join(', ') || 'none, it is closed'}).`, { loc: ['body', 'status'] });
    }
    const moved = await this.repo.move(reportId, current.status, to, actor, note);
    if (!moved) throw new TtsError('ABUSE_REPORT_TRANSITION_INVALID', 'The report changed meanwhile; read it again.', { loc: ['body', 'status'] });
    return moved;
  }
}

/** The JSON of a report; `admin` adds what only reviewers see. */
export function abuseReportJson(r: AbuseReport, admin: boolean): Record<string, unknown> {
  const base = {
    report_id: r.reportId,
    status: r.status,
    category: r.category,
    created_at: r.createdAt.toISOString(),
    watermark_detected: r.watermark === null ? null : r.watermark.detected,
  };
  if (!admin) return base;
  return {
    ...base,
    updated_at: r.updatedAt.toISOString(),
    description: r.description,
    reporter_contact: r.reporterContact,
    request_id: r.reportedRequestId,
    evidence_url: r.evidenceUrl,
    sample: r.sampleSha256 === null ? null : { sha256: r.sampleSha256, bytes: r.sampleBytes },
    watermark: r.watermark === null ? null : { detected: r.watermark.detected, confidence: r.watermark.confidence, payload: r.watermark.payload, key_id: r.watermark.keyId },
    linked_request_id: r.linkedRequestId,
  };
}
