import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DatabaseError, openDatabase, openEmbeddedDatabases, type Database, type Migration } from './index.js';
import { MigrationError, migrationChecksum } from './migrate.js';
import { databaseBackends, freshSchemaName } from './testing.js';

/** One package's migrations, as the suites below apply them. */
const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'secrets', sql: 'CREATE TABLE secrets (name text PRIMARY KEY, value text NOT NULL);' },
  { version: 3, name: 'secrets_created', sql: 'ALTER TABLE secrets ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();' },
];
/** Another package's, sharing the schema (and its ledger) with the first. */
const OTHER_MIGRATIONS: readonly Migration[] = [
  { version: 2, name: 'tasks', sql: 'CREATE TABLE tasks (task_id text PRIMARY KEY);' },
  { version: 4, name: 'task_state', sql: "ALTER TABLE tasks ADD COLUMN state text NOT NULL DEFAULT 'new';" },
];
const ALL_VERSIONS = MIGRATIONS.map((m) => m.version);
const ledgerOf = (migrations: readonly Migration[]) => migrations.map((m) => ({ version: m.version, checksum: migrationChecksum(m) }));

async function recordedMigrations(db: Database): Promise<{ version: number; checksum: string }[]> {
  return db.query<{ version: number; checksum: string }>('SELECT version, checksum FROM schema_migrations ORDER BY version');
}

for (const backend of databaseBackends(MIGRATIONS)) {
  describe(`database (${backend.name})`, () => {
    after(() => backend.close());

    it('applies every migration once, in its own schema, with checksums', async (t) => {
      const db = await backend.open(t);
      assert.deepEqual(db.migrationsApplied, ALL_VERSIONS);
      const recorded = await recordedMigrations(db);
      assert.deepEqual(recorded.map((r) => r.version), ALL_VERSIONS);
      assert.deepEqual(recorded.map((r) => r.checksum), MIGRATIONS.map(migrationChecksum));
      const tables = await db.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1::text ORDER BY table_name',
        [db.schema],
      );
      assert.deepEqual(tables.map((r) => r.table_name), ['schema_migrations', 'secrets']);
    });

    it('is idempotent: opening a migrated schema again applies nothing', async (t) => {
      const first = await backend.open(t);
      const again = await backend.open(t, first.schema);
      assert.deepEqual(again.migrationsApplied, []);
      assert.deepEqual(await recordedMigrations(again), await recordedMigrations(first));
    });

    it('lets replicas open a new schema concurrently: each migration is applied exactly once', async (t) => {
      const schema = freshSchemaName();
      const dbs = await Promise.all([backend.open(t, schema), backend.open(t, schema), backend.open(t, schema)]);
      const applied = dbs.flatMap((db) => db.migrationsApplied).sort((a, b) => a - b);
      assert.deepEqual(applied, ALL_VERSIONS);
      assert.deepEqual((await recordedMigrations(dbs[0]!)).map((r) => r.version), ALL_VERSIONS);
    });

    it('passes values only as parameters: quotes and SQL in a value stay data', async (t) => {
      const db = await backend.open(t);
      const hostile = "x'); DROP TABLE secrets; --";
      await db.query('INSERT INTO secrets (name, value) VALUES ($1::text, $2::text)', [hostile, 'v']);
      const rows = await db.query<{ name: string }>('SELECT name FROM secrets WHERE name = $1::text', [hostile]);
      assert.deepEqual(rows, [{ name: hostile }]);
      assert.equal((await db.query('SELECT 1 FROM secrets')).length, 1, 'secrets still exists');
    });

    it('returns int8 as number and timestamptz as Date on both engines', async (t) => {
      const db = await backend.open(t);
      const [row] = await db.query<{ n: unknown; ts: unknown }>("SELECT 9007199254740991::int8 AS n, '2024-03-01T12:00:00Z'::timestamptz AS ts");
      assert.equal(row?.n, Number.MAX_SAFE_INTEGER);
      assert.ok(row?.ts instanceof Date);
      assert.equal(row.ts.toISOString(), '2024-03-01T12:00:00.000Z');
    });

    it('commits a transaction that resolves and rolls back one that throws, rethrowing the error as is', async (t) => {
      const db = await backend.open(t);
      await db.transaction(async (tx) => {
        await tx.query("INSERT INTO secrets (name, value) VALUES ('kept', 'v')");
      });
      class Marker extends Error {}
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query("INSERT INTO secrets (name, value) VALUES ('dropped', 'v')");
          throw new Marker('stop');
        }),
        Marker,
      );
      const names = (await db.query<{ name: string }>('SELECT name FROM secrets ORDER BY name')).map((r) => r.name);
      assert.deepEqual(names, ['kept']);
    });

    it('reports engine failures as DatabaseError with the SQLSTATE, without the parameters', async (t) => {
      const db = await backend.open(t);
      await db.query("INSERT INTO secrets (name, value) VALUES ('dup', 'v')");
      const secretValue = 'very-secret-value-123';
      const err = await db.query('INSERT INTO secrets (name, value) VALUES ($1::text, $2::text)', ['dup', secretValue]).then(
        () => assert.fail('duplicate accepted'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof DatabaseError);
      assert.equal(err.sqlState, '23505');
      assert.equal(err.constraint, 'secrets_pkey');
      assert.ok(!JSON.stringify({ ...err, message: err.message }).includes(secretValue));
      await assert.rejects(db.query('SELECT * FROM no_such_table'), (e: unknown) => e instanceof DatabaseError && e.sqlState === '42P01');
    });

    it('refuses a migration that was edited after it was applied', async (t) => {
      const db = await backend.open(t);
      await db.query("UPDATE schema_migrations SET checksum = 'tampered' WHERE version = 3");
      await assert.rejects(backend.open(t, db.schema), MigrationError);
    });
  });
}

for (const backend of databaseBackends([])) {
  describe(`migrations of two packages in one schema (${backend.name})`, () => {
    after(() => backend.close());

    it('opening with no list leaves the schema and its ledger, no table', async (t) => {
      const db = await backend.open(t);
      assert.deepEqual(db.migrationsApplied, []);
      const tables = await db.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1::text', [db.schema]);
      assert.deepEqual(tables.map((r) => r.table_name), ['schema_migrations']);
    });

    for (const [first, second] of [[MIGRATIONS, OTHER_MIGRATIONS], [OTHER_MIGRATIONS, MIGRATIONS]] as const) {
      it(`each applies its own list (versions ${first.map((m) => m.version).join(', ')} first), and each list's fast path holds`, async (t) => {
        const db = await backend.open(t);
        assert.deepEqual(await db.migrate(first), first.map((m) => m.version));
        assert.deepEqual(await db.migrate(second), second.map((m) => m.version), 'the other package\'s versions in the ledger are left alone');
        assert.deepEqual(await recordedMigrations(db), ledgerOf([...MIGRATIONS, ...OTHER_MIGRATIONS].sort((a, b) => a.version - b.version)));
        const again = await backend.open(t, db.schema);
        assert.deepEqual([await again.migrate(first), await again.migrate(second)], [[], []]);
        // A package started by an older build (a shorter list) finds its versions applied as well.
        assert.deepEqual(await again.migrate(first.slice(0, 1)), []);
      });
    }

    it('packages starting together apply every migration of both lists exactly once', async (t) => {
      const schema = freshSchemaName();
      const dbs = await Promise.all([1, 2, 3, 4].map(() => backend.open(t, schema)));
      const applied = await Promise.all(dbs.map((db, i) => db.migrate(i % 2 === 0 ? MIGRATIONS : OTHER_MIGRATIONS)));
      assert.deepEqual(applied.flat().sort((a, b) => a - b), [1, 2, 3, 4]);
      assert.deepEqual((await recordedMigrations(dbs[0]!)).map((r) => r.version), [1, 2, 3, 4]);
    });

    it('checks the order of each list on its own', async (t) => {
      const db = await backend.open(t);
      await assert.rejects(db.migrate([MIGRATIONS[1]!, MIGRATIONS[0]!]), (e: unknown) => e instanceof MigrationError && /1 is out of order after 3/.test(e.message));
      assert.deepEqual(await recordedMigrations(db), [], 'nothing applied');
    });

    it("accepts a split migration's former checksum, on the fast path and the slow one, and no other", async (t) => {
      const released: Migration = { version: 5, name: 'pair', sql: 'CREATE TABLE left_half (x int); CREATE TABLE right_half (y int);' };
      const kept: Migration = { version: 5, name: 'pair', sql: 'CREATE TABLE left_half (x int);', formerChecksums: [migrationChecksum(released)] };
      const movedOut: Migration = { version: 6, name: 'right_half', sql: 'CREATE TABLE IF NOT EXISTS right_half (y int);' };
      const db = await backend.open(t);
      await db.migrate([released]);
      assert.deepEqual(await db.migrate([kept]), [], 'fast path');
      assert.deepEqual(await db.migrate([kept, movedOut]), [6], 'slow path');
      assert.deepEqual(await recordedMigrations(db), ledgerOf([released, movedOut]), 'the ledger keeps what ran');
      await assert.rejects(db.migrate([{ ...kept, formerChecksums: undefined }]), MigrationError);
      await assert.rejects(db.migrate([{ ...kept, formerChecksums: [migrationChecksum(movedOut)] }, movedOut]), MigrationError);
      // A fresh schema records the new text.
      const fresh = await backend.open(t);
      await fresh.migrate([kept, movedOut]);
      assert.deepEqual(await recordedMigrations(fresh), ledgerOf([kept, movedOut]));
    });
  });
}

describe('database (pglite, embedded specifics)', () => {
  it('persists under DATA_DIR/pglite and re-opens without re-applying migrations', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tts-data-'));
    try {
      const first = await openDatabase({ dataDir, migrations: MIGRATIONS });
      assert.equal(first.kind, 'pglite');
      assert.equal(first.schema, 'public');
      assert.deepEqual(first.migrationsApplied, ALL_VERSIONS);
      await first.query("INSERT INTO secrets (name, value) VALUES ('persisted', 'yes')");
      await first.close();

      const second = await openDatabase({ dataDir, migrations: MIGRATIONS });
      try {
        assert.deepEqual(second.migrationsApplied, []);
        assert.deepEqual(await second.query('SELECT value FROM secrets WHERE name = $1::text', ['persisted']), [{ value: 'yes' }]);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('one embedded database for several users: one Database per schema, transactions hold the engine', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tts-data-'));
    try {
      const same = await openEmbeddedDatabases(dataDir, ['public', 'public']);
      assert.equal(same.databases.size, 1);
      const db = same.databases.get('public')!;
      // Each user applies its own list to the one Database, as the launcher's scheduler and facade do.
      assert.deepEqual([await db.migrate(MIGRATIONS), await db.migrate(OTHER_MIGRATIONS)], [ALL_VERSIONS, OTHER_MIGRATIONS.map((m) => m.version)]);
      // A transaction holds the engine: a query of the other user runs after it ends, and sees its commit.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const tx = db.transaction(async (t) => {
        await t.query("INSERT INTO secrets (name, value) VALUES ('shared', 'committed')");
        await held;
      });
      const read = db.query<{ value: string }>('SELECT value FROM secrets WHERE name = $1::text', ['shared']);
      release();
      await tx;
      assert.deepEqual(await read, [{ value: 'committed' }]);
      await db.close(); // a user's close leaves the engine open
      assert.equal((await db.query<{ n: number }>('SELECT 1::int AS n'))[0]?.n, 1);
      await same.close();

      const two = await openEmbeddedDatabases(dataDir, ['control_a', 'control_b']);
      try {
        const [a, b] = [two.databases.get('control_a')!, two.databases.get('control_b')!];
        assert.deepEqual([a.schema, b.schema], ['control_a', 'control_b']);
        assert.deepEqual([await a.migrate(MIGRATIONS), await b.migrate(MIGRATIONS)], [ALL_VERSIONS, ALL_VERSIONS]);
        await a.query("INSERT INTO secrets (name, value) VALUES ('only', 'a')");
        assert.deepEqual(await b.query('SELECT name FROM secrets'), [], 'each schema has its own tables');
        assert.deepEqual(await a.query('SELECT value FROM secrets WHERE name = $1::text', ['only']), [{ value: 'a' }]);
        await assert.rejects(a.transaction(async (t) => {
          await t.query("INSERT INTO secrets (name, value) VALUES ('rolled', 'back')");
          throw new Error('abort');
        }), /abort/);
        assert.deepEqual(await a.query('SELECT name FROM secrets ORDER BY name'), [{ name: 'only' }]);
      } finally {
        await two.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('runs with 16 MB of shared buffers and 4 MB of WAL buffers, on disk and in memory', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tts-data-'));
    try {
      for (const db of [await openDatabase({ dataDir }), await openDatabase()]) {
        const show = async (name: string): Promise<unknown> => (await db.query<Record<string, unknown>>(`SHOW ${name}`))[0]?.[name];
        assert.deepEqual([await show('shared_buffers'), await show('wal_buffers'), await show('io_method')], ['16MB', '4MB', 'sync']);
        await db.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('rejects a schema name that is not a plain identifier', async () => {
    await assert.rejects(openDatabase({ schema: 'x"; DROP SCHEMA public; --' }), RangeError);
  });
});
