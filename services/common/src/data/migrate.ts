/**
 * Applies a package's list of versioned migrations to one schema. Each migration runs in its own
 * transaction, recorded in `schema_migrations` with a checksum of its SQL. Every transaction first
 * takes a transaction-level advisory lock keyed by the schema, so replicas starting together apply
 * each migration exactly once; re-applying an up-to-date list takes no lock at all. Several
 * packages' lists may share one schema and its ledger (the facade and the scheduler on one
 * database): each list is checked and applied on its own, the others' versions are left alone.
 */
import { createHash } from 'node:crypto';
import { quoteSchema } from './database.js';
import type { Driver, DriverTx } from './driver.js';
import type { Migration } from './migration.js';

/** Thrown when the migrations cannot be applied: a released migration was edited, or the list is out of order. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

interface AppliedRow {
  version: number;
  checksum: string;
}

/** SHA-256 of a migration's SQL, recorded when it is applied. */
export function migrationChecksum(migration: Migration): string {
  return createHash('sha256').update(migration.sql).digest('hex');
}

function checkOrder(migrations: readonly Migration[]): void {
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version <= migrations[i - 1]!.version) {
      throw new MigrationError(`Migration ${migrations[i]!.version} is out of order after ${migrations[i - 1]!.version}`);
    }
  }
}

function checkChecksum(migration: Migration, recorded: string): void {
  if (recorded !== migrationChecksum(migration) && migration.formerChecksums?.includes(recorded) !== true) {
    throw new MigrationError(`Migration ${migration.version} (${migration.name}) was changed after it was applied; add a new migration instead`);
  }
}

async function lock(tx: DriverTx, schema: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1::text))', [`tts.migrations:${schema}`]);
}

/**
 * Applies the migrations of `migrations` (ascending versions) missing from `driver`'s schema,
 * creating the schema and the `schema_migrations` table when missing. Resolves to the versions
 * applied by this call, ascending. Versions recorded in the database but not in `migrations`
 * (another package's, or a newer replica's) are left alone.
 */
export async function migrate(driver: Driver, migrations: readonly Migration[]): Promise<number[]> {
  checkOrder(migrations);
  const schema = quoteSchema(driver.schema);
  const table = `${schema}.schema_migrations`;

  // Fast path: everything of this list already applied, no lock needed.
  const exists = await driver.query('SELECT to_regclass($1::text) IS NOT NULL AS present', [table]);
  if (exists[0]?.['present'] === true) {
    const applied = new Map((await driver.query(`SELECT version, checksum FROM ${table}`, [])).map((r) => [Number(r['version']), String(r['checksum'])]));
    if (migrations.every((m) => applied.has(m.version))) {
      for (const m of migrations) checkChecksum(m, applied.get(m.version)!);
      return [];
    }
  }

  await driver.transaction(async (tx) => {
    await lock(tx, driver.schema);
    // Checking first keeps CREATE SCHEMA (which needs the database's CREATE privilege even with
    // IF NOT EXISTS) off the path of deployments whose schema was created by an operator.
    const ns = await tx.query('SELECT 1 FROM pg_namespace WHERE nspname = $1::text', [driver.schema]);
    if (ns.length === 0) await tx.execScript(`CREATE SCHEMA ${schema}`);
    await tx.execScript(`CREATE TABLE IF NOT EXISTS ${table} (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      checksum   text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  });

  const appliedNow: number[] = [];
  for (const m of migrations) {
    const ran = await driver.transaction(async (tx) => {
      await lock(tx, driver.schema);
      await tx.execScript(`SET LOCAL search_path TO ${schema}`);
      const rows = (await tx.query(`SELECT version, checksum FROM ${table} WHERE version = $1::integer`, [m.version])) as unknown as AppliedRow[];
      const recorded = rows[0];
      if (recorded !== undefined) {
        checkChecksum(m, recorded.checksum);
        return false;
      }
      await tx.execScript(m.sql);
      await tx.query(`INSERT INTO ${table} (version, name, checksum) VALUES ($1::integer, $2::text, $3::text)`, [m.version, m.name, migrationChecksum(m)]);
      return true;
    });
    if (ran) appliedNow.push(m.version);
  }
  return appliedNow;
}
