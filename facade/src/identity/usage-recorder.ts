/**
 * Usage events are written behind the response, in batches (facade/src/data/batch-writer.ts):
 * a synthesis request costs no database write on its path. Each event is stamped with its time
 * when recorded, not when written. The quota service sees the events not yet written through
 * `PendingUsage`, so a key's figures on this replica never lag its own requests.
 */
import { BatchWriter, type CharactersUsed, type UsageEventInput, type UsageRepository } from '../data/index.js';
import type { Logger } from '@tts/common';
import type { PendingUsage } from './quotas.js';

/** Tuning of the usage writer. */
export interface UsageRecorderOptions {
  /** Longest an event waits before it is written, ms. @default 200 */
  readonly flushMs?: number;
  /** Events per write. @default 500 */
  readonly maxBatch?: number;
}

/** Buffers usage events and writes them in batches. */
export class UsageRecorder implements PendingUsage {
  private readonly writer: BatchWriter<UsageEventInput>;
  private readonly listeners: ((keyId: string, characters: number, at: Date) => void)[] = [];

  constructor(repository: UsageRepository, logger: Logger, options: UsageRecorderOptions = {}) {
    this.writer = new BatchWriter<UsageEventInput>({ name: 'usage events', write: (rows) => repository.recordMany(rows), logger, ...options });
  }

  /** Queues one event (stamped now unless it carries its time); never waits. */
  record(event: UsageEventInput): void {
    const at = event.at ?? new Date();
    this.writer.record({ ...event, at });
    if (event.keyId !== null && event.status === 'ok') for (const fn of this.listeners) fn(event.keyId, event.characters, at);
  }

  exclusive<R>(fn: () => Promise<R>): Promise<R> {
    return this.writer.exclusive(fn);
  }

  bufferedCharacters(keyId: string, day: string, monthStart: string): CharactersUsed {
    let dayChars = 0;
    let month = 0;
    for (const e of this.writer.buffered()) {
      if (e.keyId !== keyId || e.status !== 'ok' || e.at === undefined) continue;
      const d = e.at.toISOString().slice(0, 10);
      if (d < monthStart || d > day) continue;
      month += e.characters;
      if (d === day) dayChars += e.characters;
    }
    return { day: dayChars, month };
  }

  onRecorded(fn: (keyId: string, characters: number, at: Date) => void): void {
    this.listeners.push(fn);
  }

  /** Events waiting to be written, and events dropped because storage stayed unreachable with the buffer full. */
  backlog(): { buffered: number; dropped: number } {
    return this.writer.backlog();
  }

  /** Writes every buffered event and waits (shutdown; tests before reading reports). */
  drain(): Promise<void> {
    return this.writer.drain();
  }
}
