/**
 * Dynamic batching for ONNX (or any batched) engines: `DynamicBatcher` collects single requests
 * into batches under a bounded queue with cancellation.
 */
export { DynamicBatcher, type DynamicBatcherOptions, type DynamicBatcherStats } from './dynamic-batcher.js';
export { currentBatchObserver, observeBatches, type BatchObserver } from './batch-observer.js';
