/**
 * A Wyoming client written from the protocol's description (OHF-Voice/wyoming README, "Format"), not
 * from the server's code: each event is a JSON header line (`type`, `data`, `data_length`,
 * `payload_length`), then `data_length` bytes of JSON merged over the header's data, then
 * `payload_length` bytes of payload. It keeps every event received, in order, and whether and when
 * the server closed the connection.
 */
import { connect, type Socket } from 'node:net';

/** An event as received. */
export interface ReceivedEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly payload: Buffer;
  /** performance.now() when it was complete. */
  readonly at: number;
}

/** One connection to a Wyoming server. */
export class WyomingClient {
  readonly events: ReceivedEvent[] = [];
  /** The server closed the connection (or it broke). */
  closed = false;
  private buffer = Buffer.alloc(0);
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.parse();
      this.wake();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  /** Connects to `port` on loopback. */
  static connect(port: number, host = '127.0.0.1'): Promise<WyomingClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host }, () => {
        socket.off('error', reject);
        resolve(new WyomingClient(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Sends an event as the reference client does: the data after the header line, by length. */
  send(type: string, data?: Record<string, unknown>, payload?: Buffer): void {
    const header: Record<string, unknown> = { type };
    const dataBytes = data === undefined ? undefined : Buffer.from(JSON.stringify(data));
    if (dataBytes) header['data_length'] = dataBytes.length;
    if (payload) header['payload_length'] = payload.length;
    this.socket.write(Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), dataBytes ?? Buffer.alloc(0), payload ?? Buffer.alloc(0)]));
  }

  /** Sends bytes as they are. */
  sendRaw(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  /** Closes the connection at once (a client that goes away). */
  destroy(): void {
    this.socket.destroy();
  }

  /** The events received of a type. */
  ofType(type: string): ReceivedEvent[] {
    return this.events.filter((e) => e.type === type);
  }

  /** Waits for the first event of `type` from `from` on; throws when the connection closes first or on time-out. */
  async next(type: string, timeoutMs = 30_000, from = 0): Promise<ReceivedEvent> {
    let found: ReceivedEvent | undefined;
    await this.until(() => (found = this.events.slice(from).find((e) => e.type === type)) !== undefined, `a ${type} event`, timeoutMs);
    return found as unknown as ReceivedEvent;
  }

  /** Waits until `check` holds; throws when the connection closed first or on time-out. */
  async until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!check()) {
      if (this.closed) throw new Error(`the connection closed before ${what}; received ${this.events.map((e) => e.type).join(', ')}`);
      await this.wait(deadline, what);
    }
  }

  /** Waits until the server closed the connection. */
  async ended(timeoutMs = 30_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!this.closed) await this.wait(deadline, 'the connection to close');
  }

  private wait(deadline: number, what: string): Promise<void> {
    const left = deadline - performance.now();
    if (left <= 0) throw new Error(`timed out waiting for ${what}; received ${this.events.map((e) => e.type).join(', ')}`);
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, left);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private parse(): void {
    for (;;) {
      const end = this.buffer.indexOf(0x0a);
      if (end < 0) return;
      const header = JSON.parse(this.buffer.subarray(0, end).toString('utf8')) as { type: string; data?: Record<string, unknown>; data_length?: number; payload_length?: number };
      const dataLength = header.data_length ?? 0;
      const payloadLength = header.payload_length ?? 0;
      if (this.buffer.length < end + 1 + dataLength + payloadLength) return;
      let at = end + 1;
      const data = { ...(header.data ?? {}), ...(dataLength > 0 ? (JSON.parse(this.buffer.subarray(at, at + dataLength).toString('utf8')) as Record<string, unknown>) : {}) };
      at += dataLength;
      const payload = Buffer.from(this.buffer.subarray(at, at + payloadLength));
      this.buffer = this.buffer.subarray(at + payloadLength);
      this.events.push({ type: header.type, data, payload, at: performance.now() });
    }
  }
}

/** The raw PCM of the audio-chunk events from index `from` on, and their format (the first chunk's). */
export function audioOf(events: readonly ReceivedEvent[], from = 0): { pcm: Buffer; rate: number; width: number; channels: number } {
  const chunks = events.slice(from).filter((e) => e.type === 'audio-chunk');
  const first = chunks[0]?.data ?? {};
  return { pcm: Buffer.concat(chunks.map((c) => c.payload)), rate: Number(first['rate']), width: Number(first['width']), channels: Number(first['channels']) };
}
