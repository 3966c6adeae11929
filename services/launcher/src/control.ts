/**
 * The control process of the one-machine platform in embedded mode (no DATABASE_URL): the
 * scheduler and the facade in one Node.js process, on ONE embedded database (DATA_DIR/pglite)
 * instead of a PGlite each (each instance holds its own WebAssembly memory, the largest part of
 * the platform's footprint: bench/README.md, `memory`) and one Node.js runtime fewer. Each keeps
 * its own logger, configuration and in-process key-value store; the scheduler serves gRPC as
 * before, the facade HTTP. Telemetry reports the process as `tts-control`.
 *
 * An install of the old layout (the scheduler's jobs in DATA_DIR/scheduler/pglite) has its jobs
 * moved into the one database at the first start (`merge-stores.ts`, in a child process).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, nodeArgsFor, runService } from '@tts/common';
import { openEmbeddedDatabases } from '@tts/common/data';
import { loadFacadeConfig, start as startFacade } from '@tts/facade';
import { loadSchedulerConfig, start as startScheduler } from '@tts/scheduler';

/** Moves the jobs of an old-layout scheduler store into DATA_DIR/pglite (a child process); rejects when that fails. */
async function mergeOldSchedulerStore(dataDir: string, schema: string): Promise<void> {
  if (!existsSync(join(dataDir, 'scheduler', 'pglite', 'PG_VERSION'))) return;
  const child = spawn(process.execPath, [...nodeArgsFor(fileURLToPath(import.meta.resolve('@tts/launcher/merge-stores'))), dataDir, schema], { stdio: ['ignore', 'inherit', 'inherit'] });
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) throw new Error(`moving the jobs of ${join(dataDir, 'scheduler', 'pglite')} failed (${signal ?? `code ${code}`}); the old store is left as it was`);
}

await runService('control', async () => {
  const facadeConfig = loadFacadeConfig();
  const schedulerConfig = loadSchedulerConfig();
  const dataDir = facadeConfig.ephemeral ? undefined : facadeConfig.dataDir;
  if (dataDir !== undefined) await mergeOldSchedulerStore(dataDir, schedulerConfig.dbSchema);
  const store = await openEmbeddedDatabases(dataDir, [schedulerConfig.dbSchema, facadeConfig.dbSchema]);
  const database = (schema: string) => store.databases.get(schema)!;
  const scheduler = await startScheduler({ logger: createLogger('scheduler'), database: database(schedulerConfig.dbSchema) }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  const facade = await startFacade({ logger: createLogger('facade'), database: database(facadeConfig.dbSchema) }).catch(async (err: unknown) => {
    await scheduler.stop();
    await store.close();
    throw err;
  });
  return {
    async stop() {
      await facade.stop();
      await scheduler.stop();
      await store.close();
    },
  };
});
