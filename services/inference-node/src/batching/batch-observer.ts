/**
 * Lets a caller learn the size of the batches its requests ran in, without the batcher knowing
 * its callers: `observeBatches` runs work with an observer in the async context, a batcher's
 * `submit` captures the observer of its caller, and the batch run reports its size to each one.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Receives the size of a batch one of the caller's requests ran in. */
export type BatchObserver = (size: number) => void;

const observers = new AsyncLocalStorage<BatchObserver>();

/** Runs `fn`; every batch a request submitted inside it runs in is reported to `observer`. */
export function observeBatches<T>(fn: () => Promise<T>, observer: BatchObserver): Promise<T> {
  return observers.run(observer, fn);
}

/** The observer of the current async context (captured by a batcher when a request is submitted). */
export function currentBatchObserver(): BatchObserver | undefined {
  return observers.getStore();
}
