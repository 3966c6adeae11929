/**
 * The live log stream (GET /api/logs/stream) as Server-Sent Events: first the last `tail` lines of
 * this process's log, then each new line as it is written, and a `heartbeat` event every
 * `heartbeatSec` seconds so clients and proxies see the stream is alive. Each line is one event
 * whose `id` is the line's sequence number and whose `data` is the JSON record. A client that
 * reads too slowly loses lines rather than growing the server's memory: the next heartbeat says
 * how many were dropped. Streams end when the client leaves or the facade stops.
 */
import type { Response } from 'express';
import { onLog, recentLogs, type LogRecord } from '@tts/common';

/** Options of one stream. */
export interface LogStreamOptions {
  /** Lines replayed first, 0..200. */
  readonly tail: number;
  /** Seconds between heartbeats, 0.5..30. */
  readonly heartbeatSec: number;
  /** Keep streaming new lines (true), or end after the tail (false). */
  readonly follow: boolean;
}

/** Bytes a stream may have waiting in its socket before lines are dropped. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

function logEvent(record: LogRecord): string {
  const id = typeof record['seq'] === 'number' ? `id: ${record['seq']}\n` : '';
  // JSON.stringify escapes line breaks, so the record is one `data:` line.
  return `${id}data: ${JSON.stringify(record)}\n\n`;
}

/** The open log streams of one facade. */
export class LogStreamHub {
  private readonly open = new Set<() => void>();

  /** Streams open now. */
  get size(): number {
    return this.open.size;
  }

  /** Serves one stream on `res` until the client leaves, `follow` is false, or closeAll(). */
  serve(res: Response, options: LogStreamOptions): void {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write(`retry: ${Math.round(options.heartbeatSec * 1000)}\n\n`);
    for (const record of recentLogs(options.tail)) res.write(logEvent(record));
    if (!options.follow) {
      res.end();
      return;
    }
    let dropped = 0;
    const unsubscribe = onLog((record) => {
      if (res.writableLength > MAX_BUFFERED_BYTES) {
        dropped++;
        return;
      }
      res.write(logEvent(record));
    });
    const heartbeat = setInterval(() => {
      res.write(`event: heartbeat\ndata: ${JSON.stringify({ time: new Date().toISOString(), dropped })}\n\n`);
      dropped = 0;
    }, Math.round(options.heartbeatSec * 1000));
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      unsubscribe();
      this.open.delete(end);
      if (!res.writableEnded) res.end();
    };
    this.open.add(end);
    res.once('close', end);
  }

  /** Ends every open stream (shutdown: the server can then close). */
  closeAll(): void {
    for (const end of [...this.open]) end();
  }
}
