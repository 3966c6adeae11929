/**
 * What the platform's processes write is private to the user they run as: umask 077 (files 0600,
 * directories 0700 unless a writer asks for less), and temporary directories made with mkdtemp
 * (0700) per process, removed when it is done with them and, at the latest, when it exits.
 */
import { rmSync } from 'node:fs';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The platform processes' umask: nothing they create is readable by group or others. */
export const PRIVATE_UMASK = 0o077;

/** Sets this process's umask to PRIVATE_UMASK (inherited by the processes it starts). */
export function usePrivateUmask(): void {
  process.umask(PRIVATE_UMASK);
}

/** Temporary directories of this process not removed yet. */
const live = new Set<string>();
let exitHookInstalled = false;

/**
 * A new private directory (0700) under the OS temporary folder, named `<prefix>XXXXXX`; removed at
 * the process's exit unless `removeTempDir` removed it before.
 */
export async function privateTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  live.add(dir);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const d of live) rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}

/** Removes a directory `privateTempDir` made, with what it holds. */
export async function removeTempDir(dir: string): Promise<void> {
  live.delete(dir);
  await rm(dir, { recursive: true, force: true });
}

/**
 * Makes every file under `dir` 0600 and every folder 0700 (what another program wrote there with
 * its own modes: PGlite's initdb writes 0666 files whatever the umask).
 */
export async function makeTreePrivate(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) await makeTreePrivate(p);
    else if (entry.isFile()) await chmod(p, 0o600);
  }
}
