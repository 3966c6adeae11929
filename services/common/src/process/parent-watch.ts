/**
 * When a process was started by the launcher with an IPC channel, it shuts down as soon as the
 * channel closes, so no child outlives its launcher (even one killed with SIGKILL).
 */

/** Calls `shutdown` when the parent's IPC channel closes; no-op for processes started without one. */
export function exitWithParent(shutdown: (reason: string) => void): void {
  if (typeof process.send !== 'function') return;
  process.on('disconnect', () => shutdown('parent exited'));
}
