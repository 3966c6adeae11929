/**
 * Test support (not for production code): the two database backends every storage suite runs
 * against, each handing out a fresh schema per test, migrated with the suite's package's list, and
 * dropping it afterwards.
 * - `pglite`: one in-memory PGlite per backend object, shared by the tests through per-schema
 *   drivers (see `startTestPglite`).
 * - `postgres`: the real server at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
 *   An unreachable server makes the test fail, never skip.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { quoteSchema, type Database } from './database.js';
import type { Migration } from './migration.js';
import { openDatabase, openOnDriver } from './open.js';
import { sharedPgliteDriver } from './pglite-driver.js';

/** The URL of the real test server. */
export const TEST_DATABASE_URL = process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

const TEMPLATE = join(tmpdir(), 'tts-pglite-initdb-template-v1.tar');

/**
 * An in-memory PGlite. Running initdb takes several seconds, so the first start in a machine
 * saves the fresh cluster to a tarball in the temp directory and later starts load it (under a
 * second). A template that fails to load (corrupt, other PGlite version) is rebuilt.
 */
async function startTestPglite(): Promise<PGlite> {
  try {
    const tar = await readFile(TEMPLATE);
    return await PGlite.create({ loadDataDir: new Blob([tar]) });
  } catch {
    // No usable template yet: build one.
  }
  const pg = await PGlite.create();
  const dump = await pg.dumpDataDir('none');
  const temporary = `${TEMPLATE}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(temporary, Buffer.from(await dump.arrayBuffer()));
  await rename(temporary, TEMPLATE);
  return pg;
}

/** What a test needs from its context: a hook run when the test ends. */
export interface TestHooks {
  after(fn: () => Promise<void>): void;
}

/** One backend of the storage suites. */
export interface TestDatabaseBackend {
  readonly name: 'pglite' | 'postgres';
  /**
   * A database on `schema` (a fresh one by default), migrated with the backend's list. When the
   * test ends the schema is dropped and the database closed. Opening the same schema again gives a
   * second handle on the same data, as a second replica would have.
   */
  open(t: TestHooks, schema?: string): Promise<Database>;
  /** Releases what the backend holds (the shared PGlite). */
  close(): Promise<void>;
}

/** A unique schema name for a test. */
export function freshSchemaName(): string {
  return `t_${Date.now().toString(36)}_${randomBytes(5).toString('hex')}`;
}

class PgliteBackend implements TestDatabaseBackend {
  readonly name = 'pglite' as const;
  private pg: Promise<PGlite> | undefined;

  constructor(private readonly migrations: readonly Migration[]) {}

  async open(t: TestHooks, schema = freshSchemaName()): Promise<Database> {
    this.pg ??= startTestPglite();
    const pg = await this.pg;
    t.after(async () => {
      await pg.exec(`DROP SCHEMA IF EXISTS ${quoteSchema(schema)} CASCADE`);
    });
    return openOnDriver(sharedPgliteDriver(pg, schema), this.migrations);
  }

  async close(): Promise<void> {
    if (this.pg !== undefined) await (await this.pg).close();
    this.pg = undefined;
  }
}

class PostgresBackend implements TestDatabaseBackend {
  readonly name = 'postgres' as const;

  constructor(private readonly migrations: readonly Migration[]) {}

  async open(t: TestHooks, schema = freshSchemaName()): Promise<Database> {
    const db = await openDatabase({ url: TEST_DATABASE_URL, schema, maxConnections: 4, migrations: this.migrations });
    t.after(async () => {
      try {
        await db.query(`DROP SCHEMA IF EXISTS ${quoteSchema(schema)} CASCADE`);
      } finally {
        await db.close();
      }
    });
    return db;
  }

  async close(): Promise<void> {}
}

/**
 * Both backends, embedded first, each applying `migrations` (the tested package's list) at every
 * open. Call `close()` on each in an `after` hook.
 */
export function databaseBackends(migrations: readonly Migration[]): TestDatabaseBackend[] {
  return [new PgliteBackend(migrations), new PostgresBackend(migrations)];
}
