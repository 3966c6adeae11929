import { quoteSchema, toDatabaseError, type Database } from './database.js';
import { wrapDriver, type Driver } from './driver.js';
import { migrate, MigrationError } from './migrate.js';
import { ownedPgliteDriver, startPglite } from './pglite-driver.js';
import { connectPostgres } from './postgres-driver.js';

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
}

/**
 * Opens the database and applies pending migrations (see `migrate`): PostgreSQL through
 * postgres.js when `url` is set, otherwise the embedded PGlite. Rejects when the server is
 * unreachable or a migration fails; the pool is closed again in that case.
 */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  const schema = options.schema ?? 'public';
  quoteSchema(schema);
  let driver: Driver;
  if (options.url !== undefined && options.url !== '') {
    driver = connectPostgres({ url: options.url, schema, maxConnections: options.maxConnections ?? 10 });
  } else {
    const pg = await startPglite(options.dataDir);
    try {
      driver = await ownedPgliteDriver(pg, schema);
    } catch (err) {
      await pg.close();
      throw err;
    }
  }
  return openOnDriver(driver);
}

/**
 * Migrates `driver`'s schema and wraps it as a Database; closes the driver when migration fails
 * (rejecting with a MigrationError or a log-safe DatabaseError).
 */
export async function openOnDriver(driver: Driver): Promise<Database> {
  let applied: number[];
  try {
    applied = await migrate(driver);
  } catch (err) {
    await driver.close().catch(() => undefined);
    throw err instanceof MigrationError ? err : toDatabaseError(err);
  }
  return wrapDriver(driver, applied);
}
