/**
 * A local fake of the Have I Been Pwned "Pwned Passwords" range API for tests (tests only; not part
 * of dist/). It speaks the protocol `PwnedPasswords` speaks to the real service: `GET <url>/range/<5
 * hex>`, answered `text/plain` with one `SUFFIX:COUNT` line (35 hex digits, upper case) per breached
 * password whose SHA-1 starts with that prefix. With `Add-Padding: true` it adds padding lines of
 * random suffixes with count 0, as the real service does, so the answer's size tells nothing.
 *
 * It records every request as it saw it (path, prefix, `Add-Padding`), so a test can check that
 * only the prefix ever left the facade. `mode` makes it fail: `error` answers HTTP 500, `hang` never
 * answers (until close), `reset` drops the connection.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback } from './loopback-server.js';

/** How the fake behaves. */
export type FakePwnedPasswordsMode = 'ok' | 'error' | 'hang' | 'reset';

/** One request the fake received. */
export interface FakePwnedPasswordsRequest {
  readonly method: string;
  readonly path: string;
  /** The `Add-Padding` header as sent. */
  readonly addPadding: string | undefined;
}

/** A running fake provider. */
export interface FakePwnedPasswords {
  /** Base URL, e.g. "http://127.0.0.1:40123". */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: readonly FakePwnedPasswordsRequest[];
  mode: FakePwnedPasswordsMode;
  close(): Promise<void>;
}

/** Upper-case hex SHA-1 of a password's UTF-8 bytes (what the range API is keyed by). */
export function pwnedSha1(password: string): string {
  return createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
}

/**
 * Starts the fake; `breached` maps passwords to how often they were seen in breaches (the test's
 * corpus). Other prefixes answer only padding (and a few random breached suffixes).
 */
export async function startFakePwnedPasswords(breached: Readonly<Record<string, number>>): Promise<FakePwnedPasswords> {
  const corpus = new Map<string, Map<string, number>>();
  for (const [password, count] of Object.entries(breached)) {
    const hash = pwnedSha1(password);
    const range = corpus.get(hash.slice(0, 5)) ?? new Map<string, number>();
    range.set(hash.slice(5), count);
    corpus.set(hash.slice(0, 5), range);
  }
  const requests: FakePwnedPasswordsRequest[] = [];
  const state = { mode: 'ok' as FakePwnedPasswordsMode };
  const hanging = new Set<ServerResponse>();
  const randomSuffix = (): string => randomBytes(18).toString('hex').slice(0, 35).toUpperCase();

  const server = createServer((req, res) => {
    const path = req.url ?? '';
    const header = req.headers['add-padding'];
    requests.push({ method: req.method ?? '', path, addPadding: Array.isArray(header) ? header.join(',') : header });
    if (state.mode === 'reset') return void req.socket.destroy();
    if (state.mode === 'hang') return void hanging.add(res);
    if (state.mode === 'error') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('error');
    const route = /^\/range\/([0-9A-Fa-f]{5})$/.exec(path);
    if (req.method !== 'GET' || !route) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('The hash prefix was not in a valid format');
    const lines = [...(corpus.get(route[1]!.toUpperCase()) ?? new Map<string, number>())].map(([suffix, count]) => `${suffix}:${count}`);
    // Other people's breached passwords in the same range.
    for (let i = 0; i < 20; i++) lines.push(`${randomSuffix()}:${1 + (randomBytes(1)[0] ?? 0)}`);
    if (header === 'true') for (let i = 0; i < 800; i++) lines.push(`${randomSuffix()}:0`);
    lines.sort();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'));
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    requests,
    get mode(): FakePwnedPasswordsMode {
      return state.mode;
    },
    set mode(mode: FakePwnedPasswordsMode) {
      state.mode = mode;
    },
    async close(): Promise<void> {
      hanging.clear();
      await closeServer(server);
    },
  };
}
