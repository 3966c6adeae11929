/**
 * Starts the platform's processes on one machine and stops them in order. A child that crashes is
 * restarted with back-off; on shutdown the facade stops first (no new requests), then the nodes
 * (in-flight work finishes), then the scheduler.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { nodeArgsFor, type Logger } from '@tts/common/launch';

/** One supervised process. */
export interface ChildSpec {
  readonly name: string;
  /**
   * The child's entry point as a package export, e.g. "@tts/facade/main": resolved with this
   * process's conditions, so to the sources under `npm run dev` and to `dist/` in production.
   */
  readonly entry: string;
  readonly env: NodeJS.ProcessEnv;
  /** Text of a stdout line that means the child is ready. */
  readonly readyLine: string;
}

/**
 * V8 options of every child, ahead of the child's own NODE_OPTIONS (so a later setting there wins).
 * V8's young generation at most 2 MB per semi-space instead of 16 MB, in each process and in each
 * worker thread of a node: on one machine that is a large share of the platform's memory, saved at
 * unchanged throughput (bench/README.md, `memory`).
 */
const CHILD_NODE_OPTIONS = '--max-semi-space-size=2';

/**
 * glibc's malloc in every child (and in what a child starts, festival included), ahead of the
 * child's own GLIBC_TUNABLES (so a later setting there wins; other C libraries ignore the
 * variable): a block of 32 KiB or more gets a mapping of its own, given back when freed. V8 compiles
 * on background threads in zone segments of up to 32 KiB, most of all the embedded database's
 * WebAssembly in the control process, and each worker thread mallocs in an arena of its own; freed,
 * those blocks stayed in glibc's arenas, never given back: 60-90 MB in the control process, ~20 MB
 * in a node (bench/README.md, `memory`).
 */
const CHILD_MALLOC_TUNABLES = 'glibc.malloc.mmap_threshold=32768';

/** A child's environment: `env` with the launcher's V8 and malloc settings ahead of its own NODE_OPTIONS and GLIBC_TUNABLES. */
export function childEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const own = env['GLIBC_TUNABLES']?.trim();
  return {
    ...env,
    NODE_OPTIONS: `${CHILD_NODE_OPTIONS} ${env['NODE_OPTIONS'] ?? ''}`.trim(),
    GLIBC_TUNABLES: own ? `${CHILD_MALLOC_TUNABLES}:${own}` : CHILD_MALLOC_TUNABLES,
  };
}

function commandOf(entry: string): { cmd: string; args: string[] } {
  return { cmd: process.execPath, args: nodeArgsFor(fileURLToPath(import.meta.resolve(entry))) };
}

/** A supervised child process. */
export class Supervised {
  private child: ChildProcess | undefined;
  private stopping = false;
  private restarts = 0;
  /** The pending restart after a crash; it keeps the launcher alive until then (stop clears it). */
  private restartTimer: NodeJS.Timeout | undefined;
  private readyResolve: (() => void) | undefined;
  /** Resolves when the child printed its ready line (first start). */
  readonly ready: Promise<void>;

  constructor(private readonly spec: ChildSpec, private readonly logger: Logger) {
    this.ready = new Promise((resolve) => {
      this.readyResolve = resolve;
    });
  }

  /** Spawns the child. */
  start(): void {
    const { cmd, args } = commandOf(this.spec.entry);
    const child = spawn(cmd, args, { env: childEnvironment(this.spec.env), stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    this.child = child;
    let buffered = '';
    child.stdout?.on('data', (data: Buffer) => {
      process.stdout.write(data);
      if (this.readyResolve) {
        buffered += data.toString('utf8');
        if (buffered.includes(this.spec.readyLine)) {
          this.readyResolve();
          this.readyResolve = undefined;
          buffered = '';
        } else if (buffered.length > 65_536) {
          buffered = buffered.slice(-4096);
        }
      }
    });
    child.on('exit', (code, signal) => {
      if (this.stopping) return;
      this.restarts++;
      const delay = Math.min(30_000, 500 * 2 ** Math.min(this.restarts, 6));
      this.logger.error('child exited; restarting', { child: this.spec.name, code, signal, restart_in_ms: delay });
      // Not unref'd: when every child has crashed at once, this timer is all that keeps the
      // launcher running until the restart (an unref'd one let it exit with code 0, platform down).
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        if (!this.stopping) this.start();
      }, delay);
    });
  }

  /**
   * Marks the child as stopping: an exit from now on is expected (no restart, no error), e.g. the
   * child's own Ctrl-C, which the terminal sends to the launcher and its children at once.
   */
  beginStop(): void {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
  }

  /** SIGTERM, then SIGKILL after graceMs. */
  async stop(graceMs: number): Promise<void> {
    this.beginStop();
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
