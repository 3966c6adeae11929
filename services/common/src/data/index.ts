/**
 * Storage: one `Database` interface over PostgreSQL (postgres.js, when DATABASE_URL is set) or the
 * embedded PGlite (persisted under DATA_DIR) and the runner of versioned migrations. The tables,
 * their migrations and their repositories live in the package that owns them
 * (`facade/src/data/`, `services/scheduler/src/data/`); each applies its own list at start.
 * Every query is parameterized; no SQL is ever built from input.
 */
export { DatabaseError, isUnavailable, type Database, type Queryable, type Row, type SqlParam } from './database.js';
export { openDatabase, openEmbeddedDatabases, type OpenDatabaseOptions } from './open.js';
export { MigrationError, migrationChecksum } from './migrate.js';
export type { Migration } from './migration.js';
