/**
 * Child process of the control process, run once on an install of the old one-machine layout
 * (the scheduler's own embedded database under DATA_DIR/scheduler/pglite): copies its jobs into
 * the platform's one embedded database (DATA_DIR/pglite), then renames the old directory to
 * `pglite.merged` (kept, not deleted). A process of its own, so the WebAssembly memory of the
 * two PGlite instances it opens is returned when it exits.
 *
 * Arguments: DATA_DIR and the scheduler's schema. Exit code 0 once copied and renamed.
 */
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger } from '@tts/common';
import { openDatabase } from '@tts/common/data';
import { copyJobs, SCHEDULER_MIGRATIONS } from '@tts/scheduler';

const [dataDir, schema] = process.argv.slice(2);
if (dataDir === undefined || schema === undefined) throw new Error('usage: merge-stores <DATA_DIR> <schema>');
const logger = createLogger('control');
const from = await openDatabase({ dataDir: join(dataDir, 'scheduler'), schema, migrations: SCHEDULER_MIGRATIONS });
try {
  const to = await openDatabase({ dataDir, schema, migrations: SCHEDULER_MIGRATIONS });
  try {
    const jobs = await copyJobs(from, to);
    logger.info('jobs of the scheduler store moved into the platform database', { jobs, from: join(dataDir, 'scheduler', 'pglite'), into: join(dataDir, 'pglite') });
  } finally {
    await to.close();
  }
} finally {
  await from.close();
}
await rename(join(dataDir, 'scheduler', 'pglite'), join(dataDir, 'scheduler', 'pglite.merged'));
