/** Starts the real multi-process platform (the launcher) for benchmarks, on free ports. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { freePort } from '../tests/support/processes.js';

/** A launched platform. */
export interface LaunchedPlatform {
  readonly url: string;
  readonly schedulerAddress: string;
  readonly agent: http.Agent;
  stop(): Promise<void>;
}

/** Launches scheduler, `nodes` inference nodes and the facade as separate processes. */
export async function launchPlatform(env: Record<string, string> = {}): Promise<LaunchedPlatform> {
  const port = await freePort();
  const schedulerPort = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'services/launcher/src/main.ts'], {
    env: { ...process.env, PORT: String(port), SCHEDULER_GRPC_PORT: String(schedulerPort), LOG_LEVEL: 'warn', ...env },
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
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return {
    url: `http://127.0.0.1:${port}`,
    schedulerAddress: `127.0.0.1:${schedulerPort}`,
    agent,
    async stop() {
      agent.destroy();
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A JSON POST over a keep-alive agent; resolves with status, headers and the body length. */
export function post(p: LaunchedPlatform, path: string, body: unknown): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: number }> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${p.url}${path}`, { method: 'POST', agent: p.agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
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
    const req = http.request(`${p.url}${path}`, { method: 'POST', agent: p.agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
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

/** The `dur` of one Server-Timing metric, in ms. */
export function serverTiming(headers: http.IncomingHttpHeaders, name: string): number {
  const h = String(headers['server-timing'] ?? '');
  const m = new RegExp(`${name};dur=([0-9.]+)`).exec(h);
  return m ? Number(m[1]) : Number.NaN;
}
