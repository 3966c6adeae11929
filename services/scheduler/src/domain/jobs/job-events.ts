/**
 * In-process notification that a job has new events, for WatchJob streams. Events themselves are
 * read from the database; a notification only says "read again". Streams also re-read on a timer,
 * so events written by another scheduler replica are seen too.
 */
import { EventEmitter } from 'node:events';

const SHUTDOWN = Symbol('shutdown');

/** Notifies watchers of a job. */
export class JobNotifier {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** Tells the job's watchers to read its new events. */
  notify(jobId: string): void {
    this.emitter.emit(jobId);
  }

  /** Tells every watcher that the scheduler is shutting down. */
  closeAll(): void {
    this.emitter.emit(SHUTDOWN);
  }

  /** Calls `listener` once when the scheduler shuts down, unless the returned function is called first. */
  onShutdown(listener: () => void): () => void {
    this.emitter.once(SHUTDOWN, listener);
    return () => this.emitter.off(SHUTDOWN, listener);
  }

  /** Calls `listener` on every notification of the job until the returned function is called. */
  subscribe(jobId: string, listener: () => void): () => void {
    this.emitter.on(jobId, listener);
    return () => this.emitter.off(jobId, listener);
  }
}
