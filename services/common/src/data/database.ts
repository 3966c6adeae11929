/**
 * The one database interface every repository uses, whichever engine runs underneath (PostgreSQL
 * through postgres.js, or the embedded PGlite). Queries are parameterized only: the text is a
 * constant written in the repository, values travel as `$1`, `$2`, ... parameters.
 */
import type { Migration } from './migration.js';

/** A value a query parameter may take. Cast parameters in SQL (`$1::text`) so both engines agree. */
export type SqlParam = string | number | boolean | null | Date;

/** A result row as the driver returns it (int8 parsed to number, timestamptz to Date). */
export type Row = Record<string, unknown>;

/** Something queries can run on: the database itself or an open transaction. */
export interface Queryable {
  /**
   * Runs one statement. `text` is a constant SQL string with `$n` placeholders, never built from
   * input; `params` are sent separately. Resolves to the result rows (empty for commands).
   */
  query<T extends object = Row>(text: string, params?: readonly SqlParam[]): Promise<T[]>;
}

/** An open database, bound to one schema. */
export interface Database extends Queryable {
  /** Which engine serves the queries. */
  readonly kind: 'postgres' | 'pglite';
  /** The schema every unqualified name resolves to (the connection's search_path). */
  readonly schema: string;
  /** Migration versions the open applied (of `OpenDatabaseOptions.migrations`; empty when none were missing). */
  readonly migrationsApplied: readonly number[];
  /**
   * Applies the migrations of `migrations` this schema has not recorded yet (see `migrate.ts`) and
   * resolves to their versions. Each package's start calls it with its own list, on a database it
   * opened or was given. Rejects with a MigrationError or a log-safe DatabaseError.
   */
  migrate(migrations: readonly Migration[]): Promise<number[]>;
  /**
   * Runs `fn` in one transaction: committed when `fn` resolves, rolled back when it throws (the
   * error is rethrown as is). Use only `tx` inside `fn`: on PGlite, a query on the database itself
   * waits for the transaction to end.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Closes the connections (or the embedded engine). */
  close(): Promise<void>;
}

/**
 * Thrown when the engine refuses a statement or the connection fails. Carries the SQLSTATE and the
 * constraint name, never the statement's parameters or the server's `detail` (which can quote
 * values), so it is safe to log.
 */
export class DatabaseError extends Error {
  override readonly name = 'DatabaseError';
  /** SQLSTATE (e.g. `23505`), or a connection error code such as `ECONNREFUSED`. */
  readonly sqlState: string | undefined;
  /** Name of the violated constraint, when the engine reports one. */
  readonly constraint: string | undefined;

  constructor(message: string, sqlState: string | undefined, constraint: string | undefined) {
    super(message);
    this.sqlState = sqlState;
    this.constraint = constraint;
  }
}

/**
 * True when the database cannot serve right now, rather than refusing the statement: the
 * connection failed (the server down, restarting or unreachable) or the server ran out of a
 * resource (disk full, memory, connections). The same call may succeed later.
 */
export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof DatabaseError)) return false;
  const state = err.sqlState;
  // No SQLSTATE: the driver lost the connection; 08xxx: connection exception; 53xxx: insufficient
  // resources (53100 disk full); 57P01-57P03: the server shutting down or starting; E...: a socket
  // error (ECONNREFUSED, ECONNRESET).
  return state === undefined || /^(08|53|57P0[123])/.test(state) || /^E[A-Z]+$/.test(state);
}

/** Converts a driver error into a DatabaseError, keeping only log-safe fields. */
export function toDatabaseError(err: unknown): DatabaseError {
  if (err instanceof DatabaseError) return err;
  if (err instanceof Error) {
    const e = err as Error & { code?: unknown; constraint?: unknown; constraint_name?: unknown };
    const code = typeof e.code === 'string' ? e.code : undefined;
    const constraint = typeof e.constraint_name === 'string' ? e.constraint_name : typeof e.constraint === 'string' ? e.constraint : undefined;
    return new DatabaseError(err.message, code, constraint);
  }
  return new DatabaseError('Unknown database failure', undefined, undefined);
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Validates a schema name (lower-case letters, digits, underscores; at most 63 characters) and
 * returns it double-quoted for use as an identifier. Schema names come from configuration, never
 * from a request; the check keeps them from carrying SQL anyway.
 */
export function quoteSchema(name: string): string {
  if (!SCHEMA_NAME.test(name)) throw new RangeError(`Invalid schema name "${name}": use [a-z_][a-z0-9_]{0,62}`);
  return `"${name}"`;
}
