/** Starts the real multi-process platform (the launcher) for benchmarks, on free ports. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../tests/support/processes.js';
import { nodeArgsFor } from '@tts/common';

/** A launched platform. */
export interface LaunchedPlatform {
  readonly url: string;
  readonly schedulerAddress: string;
  /** Process id of the launcher (its descendants are the platform's processes). */
  readonly pid: number;
  readonly agent: http.Agent;
  /** API keys of the benchmark's simulated clients (each key is limited to 360 calls per minute). */
  readonly apiKeys: readonly string[];
  /** The administrator key the platform was started with (TTS_ADMIN_KEY), e.g. to create keys of other tiers. */
  readonly adminKey: string;
  /** The platform's internal gRPC token: what a bench calling the scheduler directly presents. */
  readonly internalToken: string;
  stop(): Promise<void>;
}

/** Newest modification time of a `.ts` file under `dir`, ms (0 when none). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Throws unless `dist/` holds a build of the current sources (benches measure what `npm start` runs). */
function requireFreshBuild(): void {
  for (const [pkg, entry] of [['services/common', 'index.js'], ['services/inference-node', 'main.js'], ['services/scheduler', 'main.js'], ['services/launcher', 'main.js'], ['facade', 'main.js']] as const) {
    const built = join(pkg, 'dist', entry);
    if (!existsSync(built) || statSync(built).mtimeMs < newestSource(join(pkg, 'src')) - 1000) {
      throw new Error(`${pkg}/dist is missing or older than its sources: run \`npm run build\` first (benches run the built platform, as \`npm start\` does; BENCH_LAUNCH=sources runs the sources)`);
    }
  }
}

/**
 * Launches the platform (the launcher: scheduler, nodes and facade) as `npm start` runs it: the
 * compiled `dist/` (`npm run build` first), with the platform's defaults and the settings in `env`
 * (only ports, the data folder and the administrator and internal credentials are set here). With
 * `from: 'sources'` (or BENCH_LAUNCH=sources), from the TypeScript sources as `npm run dev` does.
 */
export async function launchPlatform(env: Record<string, string> = {}, clients = 40, from: 'sources' | 'dist' = process.env['BENCH_LAUNCH'] === 'sources' ? 'sources' : 'dist'): Promise<LaunchedPlatform> {
  if (from === 'dist') requireFreshBuild();
  const port = await freePort();
  const schedulerPort = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'tts-bench-'));
  const adminKey = `bench-admin-${randomBytes(16).toString('hex')}`;
  const internalToken = randomBytes(32).toString('base64url');
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), SCHEDULER_GRPC_PORT: String(schedulerPort), DATA_DIR: dataDir, TTS_ADMIN_KEY: adminKey, TTS_INTERNAL_TOKEN: internalToken, ...env };
  const child: ChildProcess = spawn(process.execPath, nodeArgsFor(from === 'dist' ? 'services/launcher/dist/main.js' : 'services/launcher/src/main.ts'), {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"platform ready"')) resolve();
    });
    child.once('exit', () => reject(new Error(`launcher exited: ${out.slice(-2000)}`)));
  });
  child.stdout!.resume();
  // The launcher names the scheduler's address in its ready line: "unix:/..." (the default) or host:port.
  const readyLine = out.split('\n').find((l) => l.includes('"platform ready"')) ?? '';
  const schedulerAddress = (/"scheduler":"([^"]+)"/.exec(readyLine)?.[1]) ?? `127.0.0.1:${schedulerPort}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const url = `http://127.0.0.1:${port}`;
  const apiKeys: string[] = [];
  for (let i = 0; i < clients; i++) {
    const res = await fetch(`${url}/api/auth/keys`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-admin-key': adminKey }, body: JSON.stringify({ name: `bench-${i}`, tier: 'enterprise' }) });
    apiKeys.push(((await res.json()) as { api_key: string }).api_key);
  }
  return {
    url,
    schedulerAddress,
    pid: child.pid!,
    agent,
    apiKeys,
    adminKey,
    internalToken,
    async stop() {
      agent.destroy();
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let nextKey = 0;
function keyFor(p: LaunchedPlatform): string {
  return p.apiKeys[nextKey++ % p.apiKeys.length]!;
}

/** A JSON POST over a keep-alive agent; resolves with status, headers and the body length. */
export function post(p: LaunchedPlatform, path: string, body: unknown): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: number }> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${p.url}${path}`, { method: 'POST', agent: p.agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), 'x-api-key': keyFor(p) } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Milliseconds until the first body byte of a streamed POST, and until the end. */
export function postFirstByte(p: LaunchedPlatform, path: string, body: unknown): Promise<{ firstMs: number; totalMs: number; status: number }> {
  const data = JSON.stringify(body);
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(`${p.url}${path}`, { method: 'POST', agent: p.agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), 'x-api-key': keyFor(p) } }, (res) => {
      let firstMs = 0;
      res.on('data', () => {
        if (firstMs === 0) firstMs = performance.now() - t;
      });
      res.on('end', () => resolve({ firstMs, totalMs: performance.now() - t, status: res.statusCode ?? 0 }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** What `postTts` reports: the status, the error body's catalogue code (JSON answers) and Retry-After. */
export interface TtsAnswer {
  readonly status: number;
  readonly code: string | undefined;
  readonly retryAfter: number | undefined;
}

/** One `POST /api/tts` of `body` (a JSON string) with `key`; never rejects (a socket error is status 0, code 'socket'). */
export function postTts(p: LaunchedPlatform, body: string, key: string): Promise<TtsAnswer> {
  return new Promise((resolve) => {
    const failed = (): void => resolve({ status: 0, code: 'socket', retryAfter: undefined });
    const req = http.request(`${p.url}/api/tts`, {
      method: 'POST',
      agent: p.agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': key },
    }, (res) => {
      const chunks: Buffer[] = [];
      const json = String(res.headers['content-type'] ?? '').includes('json');
      res.on('data', (c: Buffer) => {
        if (json) chunks.push(c);
      });
      res.on('end', () => {
        let code: string | undefined;
        if (json) {
          try {
            code = (JSON.parse(Buffer.concat(chunks).toString()) as { code?: string }).code;
          } catch {
            code = 'unparsable';
          }
        }
        const retry = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, code, retryAfter: retry === undefined ? undefined : Number(retry) });
      });
      res.on('error', failed);
    });
    req.on('error', failed);
    req.end(body);
  });
}

/** The `dur` of one Server-Timing metric, in ms. */
export function serverTiming(headers: http.IncomingHttpHeaders, name: string): number {
  const h = String(headers['server-timing'] ?? '');
  const m = new RegExp(`${name};dur=([0-9.]+)`).exec(h);
  return m ? Number(m[1]) : Number.NaN;
}
