/**
 * A full disk for fault-injection tests: a small tmpfs mounted on a test's directory (needs root or
 * CAP_SYS_ADMIN; tests skip the disk fault without it and say so), filled up with a file.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

/** Mounts a tmpfs of `sizeMb` on `dir`; false when not permitted (not root, no CAP_SYS_ADMIN). */
export function mountTmpfs(dir: string, sizeMb: number): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Writes zeros into `path` until the file system is full; returns the bytes written. */
export function fillUp(path: string): number {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(1 << 20);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  return written;
}

/** Unmounts what `mountTmpfs` mounted. */
export function unmount(dir: string): void {
  execFileSync('umount', [dir]);
}

/**
 * Fills `dir` (where `mountTmpfs` mounted a tmpfs when `mounted`) with a file and returns its path
 * (remove it to free the space); without the mount, skips the test saying why and returns undefined.
 */
export function fillOrSkip(t: TestContext, dir: string, mounted: boolean): string | undefined {
  if (!mounted) {
    t.skip('mounting a tmpfs on DATA_DIR needs root (CAP_SYS_ADMIN)');
    return undefined;
  }
  const filler = join(dir, 'filler');
  const bytes = fillUp(filler);
  t.diagnostic(`DATA_DIR filled with ${Math.round(bytes / 2 ** 20)} MiB`);
  return filler;
}
