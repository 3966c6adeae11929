/**
 * Warm ffmpeg processes for the format that still encodes through ffmpeg (aac): after a request takes a
 * process for an argument list, the next one is started at once, so the following request finds its
 * ffmpeg already started and waiting on stdin (its ~50 ms start-up is off the request's path). One
 * spare per argument list, at most `MAX_WARM` lists (the least recently used spare is killed first); a
 * spare unused for `IDLE_MS` is killed. Spares are unreferenced: they never keep the process alive,
 * and one whose parent exits sees end of input and exits too.
 */
import { Socket } from 'node:net';
import { FFMPEG, MediaProcess } from './media-process.js';

/** Argument lists kept warm at once (a waiting ffmpeg costs about 40 MB PSS, 9 MB of it its own). */
const MAX_WARM = 2;
/** A spare unused this long is killed (ms). */
const IDLE_MS = 30_000;

interface Spare {
  readonly proc: MediaProcess;
  readonly idle: NodeJS.Timeout;
}

/** Spares by argument list, least recently used first. */
const spares = new Map<string, Spare>();

/**
 * An ffmpeg process running `args`: the warm spare when one is waiting, else a new one; either way a
 * spare for the next request is started right after.
 */
export function takeWarmFfmpeg(args: readonly string[]): MediaProcess {
  const key = args.join('\0');
  const spare = spares.get(key);
  spares.delete(key);
  let proc: MediaProcess;
  if (spare !== undefined && !spare.proc.hasExited) {
    clearTimeout(spare.idle);
    proc = spare.proc;
    setReferenced(proc, true);
  } else {
    if (spare !== undefined) clearTimeout(spare.idle);
    proc = new MediaProcess(FFMPEG, args);
  }
  setImmediate(() => startSpare(key, args));
  return proc;
}

/** Process ids of the spares waiting now (tests tell them from busy encoders). */
export function warmFfmpegPids(): number[] {
  return [...spares.values()].flatMap((s) => (s.proc.child.pid === undefined ? [] : [s.proc.child.pid]));
}

/** Kills every spare (e.g. before shutting down). */
export function stopWarmFfmpeg(): void {
  for (const [key, spare] of spares) discard(key, spare);
}

function startSpare(key: string, args: readonly string[]): void {
  if (spares.has(key)) return;
  const proc = new MediaProcess(FFMPEG, args);
  setReferenced(proc, false);
  const idle = setTimeout(() => discard(key, spare), IDLE_MS).unref();
  const spare: Spare = { proc, idle };
  spares.set(key, spare);
  void proc.exited.then(() => {
    if (spares.get(key) === spare) discard(key, spare); // died while waiting (e.g. killed from outside)
  });
  for (const [oldest, old] of spares) {
    if (spares.size <= MAX_WARM) break;
    discard(oldest, old);
  }
}

function discard(key: string, spare: Spare): void {
  if (spares.get(key) === spare) spares.delete(key);
  clearTimeout(spare.idle);
  spare.proc.kill();
}

/** Lets a waiting spare not keep the event loop alive (false), or makes a taken one count again (true). */
function setReferenced(proc: MediaProcess, referenced: boolean): void {
  const { child } = proc;
  if (referenced) child.ref();
  else child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    if (!(stream instanceof Socket)) continue;
    if (referenced) stream.ref();
    else stream.unref();
  }
}
