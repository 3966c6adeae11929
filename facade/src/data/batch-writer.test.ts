import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '@tts/common';
import { BatchWriter } from './batch-writer.js';

const logger = createLogger('test');

describe('batch writer', () => {
  it('writes in batches of maxBatch, in order, one write at a time', async () => {
    const batches: number[][] = [];
    let running = 0;
    let overlapped = false;
    const writer = new BatchWriter<number>({
      name: 'n', logger, maxBatch: 3, flushMs: 60_000,
      write: async (rows) => {
        overlapped ||= running > 0;
        running++;
        await new Promise((r) => setTimeout(r, 5));
        batches.push(rows);
        running--;
      },
    });
    for (let i = 1; i <= 7; i++) writer.record(i);
    await writer.drain();
    assert.deepEqual(batches, [[1, 2, 3], [4, 5, 6], [7]]);
    assert.equal(overlapped, false);
  });

  it('flushes on its own after flushMs', async () => {
    const written: number[] = [];
    const writer = new BatchWriter<number>({ name: 'n', logger, flushMs: 10, write: async (rows) => void written.push(...rows) });
    writer.record(1);
    assert.deepEqual(written, []);
    await new Promise((r) => setTimeout(r, 60));
    assert.deepEqual(written, [1]);
  });

  it('keeps the rows of a failed write and writes them later; beyond maxBuffered the oldest are dropped and counted', async () => {
    let fail = true;
    const written: number[] = [];
    const writer = new BatchWriter<number>({
      name: 'n', logger, flushMs: 60_000, maxBuffered: 3,
      write: async (rows) => {
        if (fail) throw new Error('storage down');
        written.push(...rows);
      },
    });
    writer.record(1);
    writer.record(2);
    await writer.drain();
    assert.deepEqual(writer.buffered(), [1, 2]);
    writer.record(3);
    writer.record(4);
    assert.equal(writer.dropped, 1);
    fail = false;
    await writer.drain();
    assert.deepEqual(written, [2, 3, 4]);
    assert.equal(writer.buffered().length, 0);
  });

  it('runs an exclusive section between writes: rows are either written or still buffered', async () => {
    const written: number[] = [];
    const writer = new BatchWriter<number>({ name: 'n', logger, flushMs: 60_000, write: async (rows) => { await new Promise((r) => setTimeout(r, 5)); written.push(...rows); } });
    writer.record(1);
    writer.flush(); // a write of [1] is in flight
    writer.record(2);
    const seen = await writer.exclusive(async () => {
      const before = [...written, ...writer.buffered()];
      writer.record(3); // recorded inside the section: buffered, not written until it ends
      await new Promise((r) => setTimeout(r, 20));
      return { before, during: [...written] };
    });
    assert.deepEqual(seen.before, [1, 2], 'every row is written or buffered, none in flight');
    assert.equal(seen.during.includes(3), false, 'no write runs inside the section');
    await writer.drain();
    assert.deepEqual(written, [1, 2, 3]);
  });
});
