/**
 * The embedded engine: PGlite (PostgreSQL compiled to WebAssembly) in this process, persisted under
 * a directory or in memory. PGlite has a single session, so two modes exist:
 * - owned (production): one Database per PGlite; search_path and time zone are set once.
 * - shared (tests): several Databases, each on its own schema, share one PGlite (starting one
 *   takes seconds); every operation then runs in a transaction that pins its search_path.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { quoteSchema, type Row, type SqlParam } from './database.js';
import type { Driver, DriverTx } from './driver.js';

/** Starts a PGlite instance under `${dataDir}/pglite`, or in memory when `dataDir` is undefined. */
export async function startPglite(dataDir: string | undefined): Promise<PGlite> {
  if (dataDir === undefined) return PGlite.create();
  const dir = join(dataDir, 'pglite');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return PGlite.create({ dataDir: dir });
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
