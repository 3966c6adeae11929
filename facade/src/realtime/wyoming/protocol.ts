/**
 * Wyoming event framing (the protocol of Home Assistant's voice services, OHF-Voice/wyoming): an
 * event is a JSON header on one line (`type`, optional `data`, `data_length`, `payload_length`),
 * then `data_length` bytes of JSON merged over the header's `data`, then `payload_length` bytes of
 * binary payload (PCM audio). `EventDecoder` reads events out of a TCP byte stream under size caps;
 * `encodeEvent` writes one as the reference library does (header with `version`, data after it).
 */
import { TtsError } from '@tts/common';

/** One Wyoming event. */
export interface WyomingEvent {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly payload?: Buffer;
}

/** The protocol version written in every header (the reference library's, whose events these are). */
export const WYOMING_VERSION = '1.9.0';

/** Caps on what one event a client sends may hold, bytes. */
export interface FrameLimits {
  /** The header line, newline excluded. */
  readonly maxHeaderBytes: number;
  /** The additional data (`data_length`). */
  readonly maxDataBytes: number;
  /** The binary payload (`payload_length`). */
  readonly maxPayloadBytes: number;
}

const NEWLINE = 0x0a;

/** The event's bytes: header line, data, payload. */
export function encodeEvent(event: WyomingEvent): Buffer {
  const header: Record<string, unknown> = { type: event.type, version: WYOMING_VERSION };
  const data = Object.keys(event.data).length === 0 ? undefined : Buffer.from(JSON.stringify(event.data), 'utf8');
  if (data) header['data_length'] = data.length;
  const payload = event.payload && event.payload.length > 0 ? event.payload : undefined;
  if (payload) header['payload_length'] = payload.length;
  const line = Buffer.from(`${JSON.stringify(header)}\n`, 'utf8');
  return Buffer.concat(data && payload ? [line, data, payload] : data ? [line, data] : payload ? [line, payload] : [line]);
}

/** Where the decoder is in the current event. */
type Stage =
  | { readonly kind: 'header' }
  | { readonly kind: 'data'; readonly header: Header }
  | { readonly kind: 'payload'; readonly header: Header; readonly data: Record<string, unknown> };

interface Header {
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly dataLength: number;
  readonly payloadLength: number;
}

/**
 * Reads events out of a byte stream, chunk by chunk. Throws TtsError WYOMING_EVENT_TOO_LARGE when a
 * header line, data or payload passes its cap (the header as soon as its bytes do, before its
 * newline), WYOMING_EVENT_INVALID when a header or data is not a JSON object of the protocol's
 * shape; after a throw the stream cannot be resynchronized and the connection must close.
 */
export class EventDecoder {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private stage: Stage = { kind: 'header' };

  constructor(private readonly limits: FrameLimits) {}

  /** The events `chunk` completes, in order. */
  push(chunk: Buffer): WyomingEvent[] {
    this.buffered.push(chunk);
    this.bufferedBytes += chunk.length;
    const events: WyomingEvent[] = [];
    for (;;) {
      const event = this.next();
      if (event === undefined) return events;
      if (event !== null) events.push(event);
    }
  }

  /** An event, null when a stage completed without one, undefined when more bytes are needed. */
  private next(): WyomingEvent | null | undefined {
    const stage = this.stage;
    switch (stage.kind) {
      case 'header': {
        const all = this.peek();
        const end = all.indexOf(NEWLINE);
        const lineBytes = end < 0 ? all.length : end;
        if (lineBytes > this.limits.maxHeaderBytes) throw tooLarge('header line', this.limits.maxHeaderBytes);
        if (end < 0) return undefined;
        const header = headerOf(all.subarray(0, end));
        this.take(end + 1);
        if (header.dataLength > this.limits.maxDataBytes) throw tooLarge('data', this.limits.maxDataBytes);
        if (header.payloadLength > this.limits.maxPayloadBytes) throw tooLarge('payload', this.limits.maxPayloadBytes);
        this.stage = { kind: 'data', header };
        return null;
      }
      case 'data': {
        const { header } = stage;
        if (header.dataLength === 0) {
          this.stage = { kind: 'payload', header, data: header.data };
          return null;
        }
        if (this.bufferedBytes < header.dataLength) return undefined;
        const extra = objectOf(this.take(header.dataLength), 'data');
        this.stage = { kind: 'payload', header, data: { ...header.data, ...extra } };
        return null;
      }
      case 'payload': {
        const { header, data } = stage;
        if (this.bufferedBytes < header.payloadLength) return undefined;
        const payload = header.payloadLength === 0 ? undefined : this.take(header.payloadLength);
        this.stage = { kind: 'header' };
        return payload === undefined ? { type: header.type, data } : { type: header.type, data, payload };
      }
    }
  }

  /** Everything buffered, as one buffer (kept as one from then on). */
  private peek(): Buffer {
    if (this.buffered.length !== 1) this.buffered = [Buffer.concat(this.buffered, this.bufferedBytes)];
    return this.buffered[0] ?? Buffer.alloc(0);
  }

  /** Removes and returns the first `n` buffered bytes (n <= bufferedBytes). */
  private take(n: number): Buffer {
    const all = this.peek();
    const taken = Buffer.from(all.subarray(0, n));
    const rest = all.subarray(n);
    this.buffered = rest.length === 0 ? [] : [rest];
    this.bufferedBytes = rest.length;
    return taken;
  }
}

function tooLarge(part: string, max: number): TtsError {
  return new TtsError('WYOMING_EVENT_TOO_LARGE', `The event's ${part} is larger than ${max} bytes.`);
}

function invalid(message: string): TtsError {
  return new TtsError('WYOMING_EVENT_INVALID', message);
}

function objectOf(bytes: Buffer, part: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalid(`The event's ${part} is not valid JSON.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`The event's ${part} is not a JSON object.`);
  return value as Record<string, unknown>;
}

function lengthOf(header: Record<string, unknown>, field: string): number {
  const value = header[field];
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw invalid(`The event header's ${field} is not a byte count.`);
  return value;
}

function headerOf(line: Buffer): Header {
  const header = objectOf(line, 'header');
  const { type } = header;
  if (typeof type !== 'string' || type === '') throw invalid('The event header has no type.');
  const data = header['data'] ?? {};
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw invalid('The event header\'s data is not a JSON object.');
  return { type, data: data as Record<string, unknown>, dataLength: lengthOf(header, 'data_length'), payloadLength: lengthOf(header, 'payload_length') };
}
