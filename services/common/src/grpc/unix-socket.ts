/**
 * Unix domain socket files of the internal gRPC servers on one machine: a private directory
 * (0700) holds one socket file (0600) per server; a stale file left by a crashed process is
 * replaced at start, a file a live server still answers on is not.
 */
import { chmodSync, lstatSync, mkdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';

/** Longest socket path the kernel accepts (sun_path is 108 bytes with its terminating NUL). */
export const MAX_SOCKET_PATH = 107;

/** The grpc-js target (`unix:/absolute/path`) of a socket file. */
export function unixAddress(socketPath: string): string {
  return `unix:${path.resolve(socketPath)}`;
}

/**
 * Creates `dir` (and its parents) and makes it private (0700). Throws when the path exists and is
 * not a directory, or belongs to another user (a folder someone else made in a shared /tmp).
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = statSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) throw new Error(`${dir} belongs to another user (uid ${stat.uid}); choose a folder of your own`);
  chmodSync(dir, 0o700);
}

/** True when something accepts connections on the socket file. */
function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(socketPath);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * Makes `socketPath` ready to bind: its directory private, a stale socket file removed. Throws when
 * a live server answers on it, when the path is another kind of file, or when it is too long.
 */
export async function prepareSocketPath(socketPath: string): Promise<void> {
  const file = path.resolve(socketPath);
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH) throw new Error(`socket path ${file} is longer than ${MAX_SOCKET_PATH} bytes`);
  ensurePrivateDir(path.dirname(file));
  let existing;
  try {
    existing = lstatSync(file);
  } catch {
    return; // nothing there
  }
  if (!existing.isSocket()) throw new Error(`${file} exists and is not a socket`);
  if (await answers(file)) throw new Error(`a server already listens on ${file}`);
  unlinkSync(file);
}

/** Restricts a bound socket file to its owner (0600). */
export function restrictSocket(socketPath: string): void {
  chmodSync(socketPath, 0o600);
}

/** Removes a socket file; a missing one is fine. */
export function removeSocket(socketPath: string): void {
  rmSync(socketPath, { force: true });
}
