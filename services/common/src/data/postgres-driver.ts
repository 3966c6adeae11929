/**
 * PostgreSQL through postgres.js: a small pool whose every connection starts with the schema as
 * search_path and UTC as time zone, so unqualified names and date arithmetic mean the same on
 * every connection.
 */
import postgres from 'postgres';
import type { Row, SqlParam } from './database.js';
import type { Driver, DriverTx } from './driver.js';

/** Options of `connectPostgres`. */
export interface PostgresDriverOptions {
  readonly url: string;
  /** A name already checked by `quoteSchema`. */
  readonly schema: string;
  /** Pool size. */
  readonly maxConnections: number;
}

// int8 as a JS number, like PGlite: counters and sums here stay far below 2^53.
const int8AsNumber = {
  to: 20,
  from: [20],
  serialize: (value: number) => String(value),
  parse: (raw: string) => Number(raw),
};

/** Opens a postgres.js pool (lazily connected; the first query proves the server is reachable). */
export function connectPostgres(options: PostgresDriverOptions): Driver {
  const sql = postgres(options.url, {
    max: options.maxConnections,
    idle_timeout: 30,
    connect_timeout: 10,
    // Notices such as "schema already exists, skipping" would otherwise go to console.log.
    onnotice: () => undefined,
    types: { int8: int8AsNumber },
    connection: { application_name: 'tts-platform', search_path: options.schema, TimeZone: 'UTC' },
  });
  const run = async (exec: postgres.Sql | postgres.TransactionSql, text: string, params: readonly SqlParam[]): Promise<Row[]> => {
    const rows = await exec.unsafe(text, [...params], { prepare: true });
    return [...rows];
  };
  return {
    kind: 'postgres',
    schema: options.schema,
    query: (text, params) => run(sql, text, params),
    async transaction<T>(fn: (tx: DriverTx) => Promise<T>): Promise<T> {
      const result = await sql.begin(async (tx) =>
        fn({
          query: (text, params) => run(tx, text, params),
          execScript: async (script) => {
            await tx.unsafe(script);
          },
        }),
      );
      return result as T;
    },
    async close(): Promise<void> {
      await sql.end({ timeout: 5 });
    },
  };
}
