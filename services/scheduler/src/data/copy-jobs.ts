/**
 * Copies the job tables from one database into another with the same migrations: used once to
 * move the jobs of an embedded scheduler store of the old one-machine layout (DATA_DIR/scheduler)
 * into the platform's one embedded database. Rows travel as JSON text (`json_agg` out,
 * `json_populate_recordset` in), so every column keeps its exact value whatever its type.
 */
import type { Database } from '@tts/common/data';

/** Jobs per batch (a job's text and clone reference can be large). */
const BATCH = 100;

/**
 * Copies every job and its events from `from` into `to`, keeping the rows `to` already has
 * (same job id, same event id), so a copy that was interrupted can simply run again. Resolves to
 * the number of jobs `from` holds.
 */
export async function copyJobs(from: Database, to: Database): Promise<number> {
  let after = '';
  let jobs = 0;
  for (;;) {
    const [page] = await from.query<{ rows: string | null; n: number; last: string | null }>(
      'SELECT json_agg(j ORDER BY j.job_id)::text AS rows, count(*)::int AS n, max(j.job_id) AS last FROM (SELECT * FROM jobs WHERE job_id > $1::text ORDER BY job_id LIMIT $2::int) j',
      [after, BATCH],
    );
    if (page?.rows == null || page.last === null) return jobs;
    const [events] = await from.query<{ rows: string | null }>(
      'SELECT json_agg(e ORDER BY e.job_id, e.event_id)::text AS rows FROM job_events e WHERE e.job_id > $1::text AND e.job_id <= $2::text',
      [after, page.last],
    );
    await to.transaction(async (tx) => {
      await tx.query('INSERT INTO jobs SELECT * FROM json_populate_recordset(NULL::jobs, $1::text::json) ON CONFLICT (job_id) DO NOTHING', [page.rows]);
      if (events?.rows != null) {
        await tx.query('INSERT INTO job_events SELECT * FROM json_populate_recordset(NULL::job_events, $1::text::json) ON CONFLICT (job_id, event_id) DO NOTHING', [events.rows]);
      }
    });
    jobs += page.n;
    after = page.last;
  }
}
