/**
 * `job_usage`: the audio seconds of each job, by the request that submitted it (migration 0023).
 * Rows are added pending at submission and settled once, whichever replica sees the job end first.
 */
import type { Database } from '@tts/common/data';

/** A job whose audio is not known yet. */
export interface PendingJobUsage {
  readonly requestId: string;
  readonly jobId: string;
}

/** Reads and writes `job_usage`. */
export class JobUsageRepository {
  constructor(private readonly db: Database) {}

  /** Notes the job `jobId` submitted by `requestId`, its audio pending. */
  async addPending(requestId: string, jobId: string): Promise<void> {
    await this.db.query('INSERT INTO job_usage (request_id, job_id) VALUES ($1::text, $2::text) ON CONFLICT (request_id) DO NOTHING', [requestId, jobId]);
  }

  /** Up to `limit` pending jobs, oldest first. */
  async pending(limit: number): Promise<PendingJobUsage[]> {
    const rows = await this.db.query<{ request_id: string; job_id: string }>(
      'SELECT request_id, job_id FROM job_usage WHERE settled_at IS NULL ORDER BY created_at LIMIT $1::integer',
      [limit],
    );
    return rows.map((r) => ({ requestId: r.request_id, jobId: r.job_id }));
  }

  /** Records the audio of an ended job (0 when it made none); a job already settled keeps its figure. */
  async settle(requestId: string, audioSeconds: number): Promise<void> {
    await this.db.query('UPDATE job_usage SET audio_seconds = $2::float8, settled_at = now() WHERE request_id = $1::text AND settled_at IS NULL', [requestId, audioSeconds]);
  }
}
