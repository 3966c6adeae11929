/**
 * Festival child processes without orphans: each runs in its own process group, killed as a whole
 * on request, by an exit hook of this process, and (through `setpriv --pdeathsig`, when installed)
 * by the kernel if this process dies without running its hooks (SIGKILL).
 */
import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { constants, readdirSync, readFileSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { TtsError } from '@tts/common';

/**
 * Festival's Lisp heap, in cells (`--heap`). Its default, 10,000,000 cells, is allocated and touched
 * at start, and is most of a festival process's memory. A chunk of text is at most 400 characters
 * (`prepareText`); a single utterance of 2,000 characters, or of 400 random letters and digits
 * spelled out, synthesizes in 1,000,000 cells, a process a fraction of the size, with the same
 * samples as under the default heap (bench/README.md, `memory`).
 */
export const FESTIVAL_HEAP_CELLS = 1_000_000;

const live = new Set<number>();
let exitHookInstalled = false;

/** Kills every festival process group this process started, synchronously (for the exit hook). */
function killAllSync(): void {
  for (const pid of live) killGroup(pid);
  live.clear();
}

/** Process ids of the live (not zombie) processes of group `pgid`, from /proc; undefined where there is no /proc. */
export function liveGroupMembers(pgid: number): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the parenthesized command: state ppid pgrp ...
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry));
  }
  return members;
}

/**
 * Resolves once no process of group `pgid` is running (or after `timeoutMs`). A zombie waiting for
 * init to reap it counts as gone.
 */
export async function groupGone(pgid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const count = liveGroupMembers(pgid)?.length;
    if (count === 0) return;
    if (count === undefined) {
      try {
        process.kill(-pgid, 0);
      } catch {
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** SIGKILLs process group `pid`; a group already gone is ignored. */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Forgets group `pid` once it is gone (the exit hook no longer kills it). */
export function forgetGroup(pid: number): void {
  live.delete(pid);
}

/**
 * The path of executable `name` (a path, or a name looked up in PATH). Throws `TTS_ENGINE_UNAVAILABLE`
 * when there is none: through `setpriv`, a missing program would only show up as an exit code.
 */
export async function findExecutable(name: string): Promise<string> {
  const candidates = name.includes('/') ? [name] : (process.env['PATH'] ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // try the next one
    }
  }
  throw new TtsError('TTS_ENGINE_UNAVAILABLE', `festival: cannot run ${name}: not found or not executable`);
}

let setprivChecked: boolean | null = null;
function hasSetpriv(): boolean {
  setprivChecked ??= spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore' }).status === 0;
  return setprivChecked;
}

/**
 * Starts `binary args` as the leader of a new process group that dies with this process (see the
 * module comment), with `TMPDIR` set to `tmpDir` so festival's own temporary files (`est_*`) land
 * in the engine's private directory. Throws `TTS_ENGINE_UNAVAILABLE` when it cannot be started.
 */
export async function spawnGroup(binary: string, args: readonly string[], stdio: StdioOptions, tmpDir: string): Promise<ChildProcess> {
  const [command, argv] = hasSetpriv() ? ['setpriv', ['--pdeathsig', 'KILL', '--', binary, ...args]] : [binary, [...args]];
  const child = spawn(command, argv, { detached: true, stdio, env: { ...process.env, TMPDIR: tmpDir } });
  const spawned = await new Promise<Error | null>((resolve) => {
    child.once('spawn', () => resolve(null));
    child.once('error', (err) => resolve(err));
  });
  if (spawned || child.pid === undefined) {
    throw new TtsError('TTS_ENGINE_UNAVAILABLE', `festival: cannot run ${binary}: ${spawned?.message ?? 'no pid'}`, { cause: spawned });
  }
  live.add(child.pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', killAllSync);
  }
  return child;
}

/**
 * Calls `report` once `child` has exited and its last stderr lines have arrived (at most 50 ms
 * later: a connection child may hold the pipe open).
 */
export function onExit(child: ChildProcess, report: (code: number | null, signal: NodeJS.Signals | null) => void): void {
  child.once('exit', (code, signal) => {
    const stderr = child.stderr;
    if (!stderr || stderr.readableEnded) return report(code, signal);
    const timer = setTimeout(() => report(code, signal), 50);
    stderr.once('end', () => {
      clearTimeout(timer);
      report(code, signal);
    });
  });
}
