/**
 * The migrations of the facade's tables, in version order; the facade applies them at start
 * (`domain/access-services.ts`). Migrations are TypeScript modules exporting SQL strings (not `.sql`
 * files) so they run unchanged from the sources (tsx) and from the compiled `dist/`, which `tsc`
 * builds without copying other files. To add one: create `NNNN_name.ts` exporting `migration`,
 * with the next version free across packages (`tests/migrations.test.ts` refuses a collision), and
 * append it here.
 */
import type { Migration } from '@tts/common/data';
import { migration as m0001 } from './0001_append_only_guard.js';
import { migration as m0002 } from './0002_api_keys.js';
import { migration as m0003 } from './0003_usage.js';
import { migration as m0004 } from './0004_job_access_audit.js';
import { migration as m0005 } from './0005_consent_audit.js';
import { migration as m0006 } from './0006_server_secrets.js';
import { migration as m0008 } from './0008_slo_requests.js';
import { migration as m0011 } from './0011_reference_audio.js';
import { migration as m0012 } from './0012_compliance.js';
import { migration as m0013 } from './0013_hub_token.js';
import { migration as m0015 } from './0015_studio.js';
import { migration as m0017 } from './0017_api_key_rate.js';
import { migration as m0019 } from './0019_job_access_attempts.js';
import { migration as m0021 } from './0021_lexicons.js';
import { migration as m0022 } from './0022_provenance_payload.js';
import { migration as m0023 } from './0023_job_usage.js';
import { migration as m0024 } from './0024_studio_username_skeleton.js';
import { migration as m0027 } from './0027_api_key_credentials.js';

export { SQLSTATE_APPEND_ONLY } from './0001_append_only_guard.js';

/** The facade's migrations, ascending. */
export const FACADE_MIGRATIONS: readonly Migration[] = [m0001, m0002, m0003, m0004, m0005, m0006, m0008, m0011, m0012, m0013, m0015, m0017, m0019, m0021, m0022, m0023, m0024, m0027];
