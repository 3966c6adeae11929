/**
 * The migrations of the scheduler's tables (jobs, job_events, scheduler_leases), in version order;
 * the scheduler applies them when its job store opens (`domain/jobs/job-service.ts`). Migrations are
 * TypeScript modules exporting SQL strings (not `.sql` files) so they run unchanged from the
 * sources (tsx) and from the compiled `dist/`. To add one: create `NNNN_name.ts` exporting
 * `migration`, with the next version free across packages (`tests/migrations.test.ts` refuses a
 * collision), and append it here.
 */
import type { Migration } from '@tts/common/data';
import { migration as m0007 } from './0007_jobs.js';
import { migration as m0014 } from './0014_job_clone.js';
import { migration as m0016 } from './0016_studio_jobs.js';
import { migration as m0018 } from './0018_scheduler_leases.js';
import { migration as m0020 } from './0020_job_result_words.js';
import { migration as m0025 } from './0025_job_lexicon.js';
import { migration as m0026 } from './0026_job_watermark_payload.js';

/** The scheduler's migrations, ascending. */
export const SCHEDULER_MIGRATIONS: readonly Migration[] = [m0007, m0014, m0016, m0018, m0020, m0025, m0026];
