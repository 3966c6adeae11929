/**
 * Private PostgreSQL and Redis servers for fault-injection tests: each on a free loopback port
 * with its files in a temporary directory, so a test may stop, kill and restart them without
 * disturbing the shared servers other tests use. PostgreSQL refuses to run as root: as root, its
 * programs run as the `postgres` user.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'node:net';
import { freePort } from './processes.js';

/** A server a test owns. */
export interface PrivateServer {
  /** Connection URL (postgres:// or redis://). */
  readonly url: string;
  readonly port: number;
  /** Starts the server (again) on the same port and files; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it (SIGTERM: a clean shutdown); resolves once it exited. */
  stop(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

/** Resolves once something accepts TCP connections on the port, or rejects after `timeoutMs`. */
async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A server process a test owns: `launch` spawns it and resolves once it serves; `stopSignal` is
 * its clean-shutdown signal. Started before it is returned.
 */
async function ownedServer(url: string, port: number, dir: string, launch: () => Promise<ChildProcess>, stopSignal: NodeJS.Signals): Promise<PrivateServer> {
  let child: ChildProcess | undefined;
  // A test runner that dies without its after hooks must not leave the server running.
  const orphaned = (): void => void child?.kill('SIGKILL');
  process.once('exit', orphaned);
  const server: PrivateServer = {
    url,
    port,
    async start() {
      child = await launch();
    },
    async stop() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const done = once(child, 'exit');
      child.kill(stopSignal);
      await done;
    },
    async destroy() {
      await server.stop();
      process.off('exit', orphaned);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

/** A Redis server without persistence (as many caches run): a restart loses every key. */
export async function startPrivateRedis(): Promise<PrivateServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'tts-redis-'));
  const launch = async (): Promise<ChildProcess> => {
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    await waitForPort(port, 10_000);
    return child;
  };
  return ownedServer(`redis://127.0.0.1:${port}`, port, dir, launch, 'SIGTERM');
}

/** The directory of PostgreSQL's server programs (initdb, postgres): pg_config's, else Debian's newest. */
function postgresBin(): string {
  let configured = '';
  try {
    configured = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    configured = ''; // no pg_config (it comes with libpq-dev, not with the server)
  }
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = [configured, ...versions.map((v) => join(root, v, 'bin'))].find((dir) => dir !== '' && existsSync(join(dir, 'initdb')));
  if (found === undefined) throw new Error('PostgreSQL server programs (initdb) not found: install postgresql');
  return found;
}

/** Runs a PostgreSQL server program as the current user, or as `postgres` when root (setpriv execs it: signals reach it). */
function asPostgres(program: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [program, args];
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', program, ...args]];
}

/**
 * A PostgreSQL server (trust authentication, database `test`), tuned for tests (no fsync). A
 * restart keeps the data, as a real one does.
 */
export async function startPrivatePostgres(): Promise<PrivateServer> {
  const port = await freePort();
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'tts-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
  }
  const [initdb, initArgs] = asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  execFileSync(initdb, initArgs, { stdio: 'ignore' });
  const launch = async (): Promise<ChildProcess> => {
    const [postgres, args] = asPostgres(join(bin, 'postgres'), [
      '-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir,
      '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=100', '-c', 'shared_buffers=32MB',
    ]);
    const child = spawn(postgres, args, { stdio: 'ignore' });
    await waitForPort(port, 20_000);
    // Accepting connections is not yet accepting queries (start-up, recovery): wait for a query.
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        const psql = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'];
        const found = execFileSync(join(bin, 'psql'), [...psql, '-d', 'postgres', '-tAc', "SELECT 1 FROM pg_database WHERE datname = 'test'"], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
        if (found !== '1') execFileSync(join(bin, 'createdb'), [...psql, 'test'], { stdio: 'ignore' });
        return child;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  // SIGINT: PostgreSQL's "fast" shutdown (sessions are disconnected, nothing committed is lost).
  return ownedServer(`postgres://postgres@127.0.0.1:${port}/test`, port, dir, launch, 'SIGINT');
}
