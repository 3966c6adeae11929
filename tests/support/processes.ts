/** Process helpers for tests: the one-command start as a child, descendants of a pid, liveness, free ports. */
import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
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

/** A TCP port free right now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}
