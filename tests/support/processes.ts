/** Process helpers for tests: the one-command start as a child, descendants of a pid, liveness, free ports. */
import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Readable } from 'node:stream';
import { nodeArgsFor } from '@tts/common';
import { recordOutput } from './test-logs.js';

/** The launcher started by `spawnLauncher`. */
export interface LaunchedPlatform {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
}

/**
 * Starts the one-command start (`services/launcher/src/main.ts`) with `env`; what it prints is
 * collected, and recorded in the test run's logs (the secrets scan reads them).
 */
export function spawnLauncher(env: NodeJS.ProcessEnv): LaunchedPlatform {
  const child = spawn(process.execPath, nodeArgsFor('services/launcher/src/main.ts'), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  recordOutput('launcher', child.stdout, child.stderr);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out };
}

/** Pids of every descendant of `pid` (children, grandchildren, ...). */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const p = queue.shift()!;
    let text = '';
    try {
      text = execFileSync('ps', ['-o', 'pid=', '--ppid', String(p)], { encoding: 'utf8' });
    } catch {
      text = ''; // ps exits 1 when there are none
    }
    for (const line of text.split('\n')) {
      const child = Number(line.trim());
      if (child > 0) {
        out.push(child);
        queue.push(child);
      }
    }
  }
  return out;
}

/** Command line of a pid ('' when gone). */
export function commandOf(pid: number): string {
  try {
    return execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

/** True while the process exists (and is not a zombie). */
export function alive(pid: number): boolean {
  try {
    const stat = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return stat !== '' && !stat.startsWith('Z');
  } catch {
    return false;
  }
}

/**
 * A TCP port free right now on 127.0.0.1, for a process the test starts to listen on: a random
 * one below the kernel's ephemeral range. A port the OS picked (listen on 0) comes from that
 * range, where any outgoing connection of a parallel test (to PostgreSQL, Redis, a node) can take
 * it before the process binds it: a scheduler test failed on EADDRINUSE so.
 */
export async function freePort(): Promise<number> {
  const ephemeralLow = ephemeralRangeStart();
  const low = 10_000;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * Math.max(1, ephemeralLow - low));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port found in ${low}-${ephemeralLow - 1}`);
}

/** A port `p` with p, p+1, ..., p+n-1 all free on 127.0.0.1 now (processes told one base port). */
export async function freePortRun(n: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = await freePort();
    if (base + n > 65535) continue;
    let all = true;
    for (let i = 1; i < n; i++) all &&= await bindable(base + i);
    if (all) return base;
  }
  throw new Error(`no run of ${String(n)} free ports`);
}

/** The first port of the kernel's ephemeral range (Linux's default 32768 when it cannot be read). */
function ephemeralRangeStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 11_000 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

/** Whether `port` can be bound on 127.0.0.1 now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}
