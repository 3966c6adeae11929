/**
 * The engine-specific layer under `Database`: a postgres.js pool or a PGlite instance. Only the
 * migration runner sees the multi-statement `execScript`; repositories get the `Database` built by
 * `wrapDriver`, which turns driver errors into log-safe `DatabaseError`s.
 */
import { toDatabaseError, type Database, type Queryable, type Row, type SqlParam } from './database.js';

/** An open transaction of a driver. */
export interface DriverTx {
  query(text: string, params: readonly SqlParam[]): Promise<Row[]>;
  /** Runs a constant multi-statement script (migrations only; no parameters). */
  execScript(sql: string): Promise<void>;
}

/** A connected engine. */
export interface Driver {
  readonly kind: Database['kind'];
  readonly schema: string;
  query(text: string, params: readonly SqlParam[]): Promise<Row[]>;
  transaction<T>(fn: (tx: DriverTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Builds the public `Database` over a driver once the open's migrations have run; `migrate` applies a list later. */
export function wrapDriver(driver: Driver, migrationsApplied: readonly number[], migrate: Database['migrate']): Database {
  const query = async <T extends object>(run: (text: string, params: readonly SqlParam[]) => Promise<Row[]>, text: string, params: readonly SqlParam[]): Promise<T[]> => {
    try {
      return (await run(text, params)) as T[];
    } catch (err) {
      throw toDatabaseError(err);
    }
  };
  return {
    kind: driver.kind,
    schema: driver.schema,
    migrationsApplied,
    migrate,
    query: <T extends object = Row>(text: string, params: readonly SqlParam[] = []) => query<T>((t, p) => driver.query(t, p), text, params),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      // Errors thrown by `fn` itself (a TtsError, say) pass through untouched; only failures of the
      // engine (BEGIN, COMMIT, the connection) become DatabaseErrors.
      const fromCaller = new WeakSet<object>();
      try {
        return await driver.transaction(async (tx) => {
          const handle: Queryable = {
            query: <R extends object = Row>(text: string, params: readonly SqlParam[] = []) => query<R>((t, p) => tx.query(t, p), text, params),
          };
          try {
            return await fn(handle);
          } catch (err) {
            if (typeof err === 'object' && err !== null) fromCaller.add(err);
            throw err;
          }
        });
      } catch (err) {
        if (typeof err === 'object' && err !== null && fromCaller.has(err)) throw err;
        throw toDatabaseError(err);
      }
    },
    async close(): Promise<void> {
      await driver.close();
    },
  };
}
