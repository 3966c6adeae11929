/**
 * Reads GET /api/logs/stream (Server-Sent Events) with fetch, so the administrator key travels in
 * a header (EventSource cannot send one): the body is read through a ReadableStream reader and cut
 * into events at blank lines. Log lines (events without a name) and heartbeats go to callbacks.
 */
import { request } from '../../lib/api.js';
import { credentialHeaders } from '../../lib/credentials.js';

/**
 * A log record as the stream sends it (JSON of the facade's logger). Not generated: the document
 * names these fields in the operation's prose only, since OpenAPI 3.1 gives an event stream's
 * events no schema; any other field of the line comes along.
 */
export interface LogRecord {
  readonly time?: string;
  readonly level?: string;
  readonly service?: string;
  readonly msg?: string;
  readonly request_id?: string;
  readonly trace_id?: string;
  readonly seq?: number;
  readonly [field: string]: unknown;
}

/** One event of an SSE stream. */
export interface SseEvent {
  readonly event: string;
  readonly id: string | null;
  readonly data: string;
}

/**
 * Cuts SSE text into events: feed chunks with push(), complete events come back; a partial event
 * waits for the next chunk. Comments and `retry:` are ignored.
 */
export class SseParser {
  private buffer = '';

  /** Adds a chunk of text; answers the events it completed. */
  push(chunk: string): SseEvent[] {
    this.buffer += chunk.replace(/\r\n?/g, '\n');
    const out: SseEvent[] = [];
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      let id: string | null = null;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'id') id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) out.push({ event, id, data: data.join('\n') });
    }
    return out;
  }
}

/** What a log stream reports. */
export interface LogStreamHandlers {
  /** A log line. */
  readonly onLine: (record: LogRecord) => void;
  /** A heartbeat: lines the server skipped so far because the page read too slowly. */
  readonly onHeartbeat: (dropped: number) => void;
}

/**
 * Follows the log until `signal` aborts (resolves then) or the stream ends; rejects with the
 * ApiError of an error answer or a network failure.
 */
export async function followLogs(tail: number, handlers: LogStreamHandlers, signal: AbortSignal): Promise<void> {
  const res = await fetch(`/api/logs/stream?tail=${tail}&heartbeat_sec=5`, {
    headers: { accept: 'text/event-stream', ...credentialHeaders('admin') },
    credentials: 'same-origin',
    signal,
  });
  if (!res.ok || res.body === null) {
    // The same error handling as every other call (a 401 forgets the key).
    await request('GET', `/api/logs/stream?tail=0&follow=false`, { auth: 'admin', signal });
    throw new Error(`The log stream answered ${res.status}.`);
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      for (const e of parser.push(value)) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(e.data);
        } catch {
          continue;
        }
        if (typeof parsed !== 'object' || parsed === null) continue;
        if (e.event === 'heartbeat') handlers.onHeartbeat(Number((parsed as { dropped?: unknown }).dropped ?? 0));
        else if (e.event === 'message') handlers.onLine(parsed as LogRecord);
      }
    }
  } catch (err) {
    if (signal.aborted) return;
    throw err;
  } finally {
    reader.releaseLock();
  }
}
