import { quoteSchema, toDatabaseError, type Database } from './database.js';
import { wrapDriver, type Driver } from './driver.js';
import { migrate, MigrationError } from './migrate.js';
import type { Migration } from './migration.js';

/** Options of `openDatabase`. */
export interface OpenDatabaseOptions {
  /**
   * PostgreSQL URL (DATABASE_URL). When undefined or empty, the embedded PGlite runs the same
   * migrations and queries instead.
   */
  readonly url?: string | undefined;
  /**
   * Embedded mode only: PGlite persists under `${dataDir}/pglite` (DATA_DIR). When undefined the
   * embedded database lives in memory and is lost on close (tests).
   */
  readonly dataDir?: string | undefined;
  /**
   * Schema for every table (the connections' search_path); created when missing. Lower-case
   * letters, digits and underscores.
   * @default "public"
   */
  readonly schema?: string | undefined;
  /**
   * PostgreSQL only: connections in the pool.
   * @default 10
   */
  readonly maxConnections?: number | undefined;
  /**
   * Migrations applied at open (a package's own list; see `Database.migrate`). Without them the
   * schema and its migration ledger exist afterwards, no table: enough to read a schema another
   * process migrated.
   * @default []
   */
  readonly migrations?: readonly Migration[] | undefined;
}

/**
 * Opens the database and applies `options.migrations` (see `migrate`): PostgreSQL through
 * postgres.js when `url` is set, otherwise the embedded PGlite. Rejects when the server is
 * unreachable or a migration fails; the pool is closed again in that case. Only the engine used
 * is loaded (bench/README.md, `memory`).
 */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  const schema = options.schema ?? 'public';
  quoteSchema(schema);
  let driver: Driver;
  if (options.url !== undefined && options.url !== '') {
    const { connectPostgres } = await import('./postgres-driver.js');
    driver = connectPostgres({ url: options.url, schema, maxConnections: options.maxConnections ?? 10 });
  } else {
    const { ownedPgliteDriver, startPglite } = await import('./pglite-driver.js');
    const pg = await startPglite(options.dataDir);
    try {
      driver = await ownedPgliteDriver(pg, schema);
    } catch (err) {
      await pg.close();
      throw err;
    }
  }
  return openOnDriver(driver, options.migrations);
}

/**
 * Applies `migrations` to `driver`'s schema and wraps it as a Database; closes the driver when
 * migration fails (rejecting with a MigrationError or a log-safe DatabaseError).
 */
export async function openOnDriver(driver: Driver, migrations: readonly Migration[] = []): Promise<Database> {
  const apply = async (list: readonly Migration[]): Promise<number[]> => {
    try {
      return await migrate(driver, list);
    } catch (err) {
      throw err instanceof MigrationError ? err : toDatabaseError(err);
    }
  };
  let applied: number[];
  try {
    applied = await apply(migrations);
  } catch (err) {
    await driver.close().catch(() => undefined);
    throw err;
  }
  return wrapDriver(driver, applied, apply);
}

/**
 * Opens ONE embedded PGlite (under `${dataDir}/pglite`, or in memory when `dataDir` is undefined)
 * for several users of the same process, e.g. the facade and the scheduler run together by the
 * launcher, and returns a Database per schema asked for, each user applying its own migrations
 * (`Database.migrate`, which their starts call): one Database (the engine's own
 * session, no per-query overhead) when every schema is the same, else per-schema drivers that pin
 * their search_path in every transaction. PGlite runs one statement at a time and a transaction
 * holds the engine until it ends, so the users cannot see each other's open transactions. The
 * returned Databases' own close() leaves the engine open: `close()` of the result closes it.
 */
export async function openEmbeddedDatabases(dataDir: string | undefined, schemas: readonly string[]): Promise<{ readonly databases: ReadonlyMap<string, Database>; close(): Promise<void> }> {
  const distinct = [...new Set(schemas)];
  for (const s of distinct) quoteSchema(s);
  const { ownedPgliteDriver, sharedPgliteDriver, startPglite } = await import('./pglite-driver.js');
  const pg = await startPglite(dataDir);
  const databases = new Map<string, Database>();
  try {
    if (distinct.length === 1) {
      const owned = await ownedPgliteDriver(pg, distinct[0]!);
      databases.set(distinct[0]!, await openOnDriver({ ...owned, close: async () => undefined }));
    } else {
      for (const s of distinct) databases.set(s, await openOnDriver(sharedPgliteDriver(pg, s)));
    }
  } catch (err) {
    await pg.close();
    throw err;
  }
  return { databases, close: () => pg.close() };
}
