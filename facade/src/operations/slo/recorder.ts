/**
 * SLI rows are written behind the response, in batches (facade/src/data/batch-writer.ts):
 * at most `flushMs` (1 s) after the first buffered row or when `maxBatch` (500) rows wait.
 */
import { BatchWriter, type BatchWriterOptions } from '../../data/batch-writer.js';
import type { SliRow, SloRepository } from '../../data/index.js';
import type { Logger } from '@tts/common';

/** Tuning of the SLI writer. */
export type SliRecorderOptions = Pick<BatchWriterOptions<SliRow>, 'flushMs' | 'maxBatch' | 'maxBuffered'>;

/** The batching writer of SLI rows. */
export function createSliRecorder(repository: SloRepository, logger: Logger, options: SliRecorderOptions = {}): BatchWriter<SliRow> {
  return new BatchWriter<SliRow>({ name: 'SLI', write: (rows) => repository.insertMany(rows), logger, flushMs: 1000, maxBatch: 500, ...options });
}
