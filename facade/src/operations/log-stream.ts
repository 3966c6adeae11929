/**
 * The live log stream (GET /api/logs/stream) as Server-Sent Events: first the last `tail` lines of
 * this process's log, then each new line as it is written, and a `heartbeat` event every
 * `heartbeatSec` seconds so clients and proxies see the stream is alive. Each line is one event
 * whose `id` is the line's sequence number and whose `data` is the JSON record. A client that
 * reads too slowly loses lines rather than growing the server's memory: the next heartbeat says
 * how many were dropped. Streams end when the client leaves or the facade stops.
 */
import { onLog, recentLogs, type LogRecord } from '@tts/common';

/** Where a stream's events go: an open Server-Sent Events response (presenters/event-stream.ts). */
export interface EventSink {
  /** Sends text (whole events). */
  write(text: string): void;
  /** Bytes written but not yet taken by the client. */
  readonly backlogBytes: number;
  /** Ends the stream. */
  end(): void;
  /** Calls `listener` once when the stream closes (the client left, or end()). */
  onClose(listener: () => void): void;
}

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

  /** Serves one stream on `sink` until the client leaves, `follow` is false, or closeAll(). */
  serve(sink: EventSink, options: LogStreamOptions): void {
    sink.write(`retry: ${Math.round(options.heartbeatSec * 1000)}\n\n`);
    for (const record of recentLogs(options.tail)) sink.write(logEvent(record));
    if (!options.follow) {
      sink.end();
      return;
    }
    let dropped = 0;
    const unsubscribe = onLog((record) => {
      if (sink.backlogBytes > MAX_BUFFERED_BYTES) {
        dropped++;
        return;
      }
      sink.write(logEvent(record));
    });
    const heartbeat = setInterval(() => {
      sink.write(`event: heartbeat\ndata: ${JSON.stringify({ time: new Date().toISOString(), dropped })}\n\n`);
      dropped = 0;
    }, Math.round(options.heartbeatSec * 1000));
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      unsubscribe();
      this.open.delete(end);
      sink.end();
    };
    this.open.add(end);
    sink.onClose(end);
  }

  /** Ends every open stream (shutdown: the server can then close). */
  closeAll(): void {
    for (const end of [...this.open]) end();
  }
}
