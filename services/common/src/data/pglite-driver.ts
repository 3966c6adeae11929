/**
 * The embedded engine: PGlite (PostgreSQL compiled to WebAssembly) in this process, persisted under
 * a directory or in memory. PGlite has a single session, so two modes exist:
 * - owned (production): one Database per PGlite; search_path and time zone are set once.
 * - shared (tests): several Databases, each on its own schema, share one PGlite (starting one
 *   takes seconds); every operation then runs in a transaction that pins its search_path.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { quoteSchema, type Row, type SqlParam } from './database.js';
import type { Driver, DriverTx } from './driver.js';
import { makeTreePrivate } from '../process/private-files.js';

/** Creates the database cluster in `dir` and exits: run in a child process by `initdbApart`. */
const INITDB_SCRIPT = 'const { PGlite } = await import(process.argv[1]); const pg = await PGlite.create({ dataDir: process.argv[2] }); await pg.close();';

/**
 * Creates a new database cluster in `dir` in a short-lived Node.js process. initdb in this process
 * would leave its own WebAssembly instance's memory behind (freed only by a major GC, if ever), most
 * of the process's footprint on a first start; a process that exits returns all of it (bench/README.md,
 * `memory`). Rejects with the child's last stderr on failure.
 */
async function initdbApart(dir: string): Promise<void> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', INITDB_SCRIPT, import.meta.resolve('@electric-sql/pglite'), dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-2000)));
  // A process that exits while initdb runs (a start-up error, a signal) takes it along: left
  // running, it would keep writing a cluster nobody opens into a directory being removed.
  const stop = (): void => void child.kill('SIGKILL');
  process.once('exit', stop);
  const closed = once(child, 'close').finally(() => process.off('exit', stop));
  const [code, signal] = (await closed) as [number | null, NodeJS.Signals | null];
  if (code !== 0) throw new Error(`PGlite initdb in ${dir} failed (${signal ?? `code ${code}`}): ${stderr.trim()}`);
}

/**
 * Server settings of the embedded engine, after PGlite's own (single-user mode, fsync off,
 * io_method=sync, ...). Its shared memory is written in full when the engine starts, so each MB of
 * shared buffers costs a MB of the process's memory: 16 MB instead of PostgreSQL's 128 MB keeps that
 * difference out of every engine; the platform's tables are read through the file system cache
 * beyond that. WAL buffers stay at the 4 MB the default derives (16 MB of shared buffers alone would
 * give 512 kB). bench/README.md, `memory`, has the figures and the 10,000-request runs.
 */
const START_PARAMS: readonly string[] = Object.freeze([...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB', '-c', 'wal_buffers=4MB']);

/** Starts a PGlite instance under `${dataDir}/pglite`, or in memory when `dataDir` is undefined. */
export async function startPglite(dataDir: string | undefined): Promise<PGlite> {
  if (dataDir === undefined) return PGlite.create({ startParams: [...START_PARAMS] });
  const dir = join(dataDir, 'pglite');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const exists = await access(join(dir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  if (!exists) await initdbApart(dir);
  const pg = await PGlite.create({ dataDir: dir, startParams: [...START_PARAMS] });
  // The files of initdb (0666) and of the engine's start (its relation cache, 0644) ignore the
  // umask, those of an older install too; what the engine writes later follows it.
  await makeTreePrivate(dir);
  return pg;
}

const toTx = (tx: Transaction): DriverTx => ({
  query: async (text, params) => (await tx.query<Row>(text, [...params])).rows,
  execScript: async (script) => {
    await tx.exec(script);
  },
});

/** A driver that owns `pg`: closing the driver closes the engine. */
export async function ownedPgliteDriver(pg: PGlite, schema: string): Promise<Driver> {
  await pg.exec(`SET TimeZone TO 'UTC'; SET search_path TO ${quoteSchema(schema)}`);
  return {
    kind: 'pglite',
    schema,
    query: async (text: string, params: readonly SqlParam[]) => (await pg.query<Row>(text, [...params])).rows,
    transaction: <T>(fn: (tx: DriverTx) => Promise<T>) => pg.transaction(async (tx) => fn(toTx(tx))),
    close: () => pg.close(),
  };
}

/**
 * A driver on a PGlite shared with other drivers (tests): each query and transaction first pins
 * this driver's schema with SET LOCAL. Closing the driver leaves the engine running.
 */
export function sharedPgliteDriver(pg: PGlite, schema: string): Driver {
  const pin = `SET LOCAL TimeZone TO 'UTC'; SET LOCAL search_path TO ${quoteSchema(schema)}`;
  const transaction = <T>(fn: (tx: DriverTx) => Promise<T>): Promise<T> =>
    pg.transaction(async (tx) => {
      await tx.exec(pin);
      return fn(toTx(tx));
    });
  return {
    kind: 'pglite',
    schema,
    query: (text, params) => transaction((tx) => tx.query(text, params)),
    transaction,
    close: async () => undefined,
  };
}
