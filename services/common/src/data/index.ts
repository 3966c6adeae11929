/**
 * Storage: one `Database` interface over PostgreSQL (postgres.js, when DATABASE_URL is set) or the
 * embedded PGlite (persisted under DATA_DIR) and the versioned migrations applied at open. The
 * repositories live in the process that uses them (`facade/src/data/`, `services/scheduler/src/data/`).
 * Every query is parameterized; no SQL is ever built from input.
 */
export { DatabaseError, isUnavailable, SQLSTATE_APPEND_ONLY, type Database, type Queryable, type Row, type SqlParam } from './database.js';
export { openDatabase, openEmbeddedDatabases, type OpenDatabaseOptions } from './open.js';
export { MigrationError, migrationChecksum } from './migrate.js';
export { MIGRATIONS, type Migration } from './migrations/index.js';
