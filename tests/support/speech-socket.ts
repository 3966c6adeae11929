/**
 * A test client of the speech WebSocket (GET /v1/audio/speech/stream) on the `ws` package: keeps
 * every frame received in order (JSON messages parsed, binary frames as they came), so a test can
 * wait for one and look at what came before and after it, and how the socket closed.
 */
import WebSocket from 'ws';

/** A frame received: a JSON message, or a binary (audio) frame. */
export type Frame = { readonly kind: 'json'; readonly message: Record<string, unknown>; readonly at: number } | { readonly kind: 'binary'; readonly data: Buffer; readonly at: number };

/** The WebSocket URL of the speech socket of a platform at `httpUrl`. */
export function speechSocketUrl(httpUrl: string, token?: string): string {
  return `${httpUrl.replace(/^http/, 'ws')}/v1/audio/speech/stream${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`;
}

/** One socket and what it received. */
export class SpeechSocket {
  readonly frames: Frame[] = [];
  /** The close code and reason, once closed. */
  closed: { code: number; reason: string } | undefined;
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (raw, isBinary) => {
      const at = performance.now();
      const data = Buffer.isBuffer(raw) ? raw : Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw);
      this.frames.push(isBinary ? { kind: 'binary', data, at } : { kind: 'json', message: JSON.parse(data.toString('utf8')) as Record<string, unknown>, at });
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString('utf8') };
      this.wake();
    });
    ws.on('error', () => undefined);
  }

  /** Connects; rejects with the HTTP status and body when the server refuses the handshake. */
  static open(url: string, headers: Record<string, string> = {}): Promise<SpeechSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.once('open', () => resolve(new SpeechSocket(ws)));
      ws.once('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => reject(new HandshakeRefused(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
      });
      ws.once('error', reject);
    });
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  /** The JSON messages received, in order. */
  messages(type?: string): Record<string, unknown>[] {
    return this.frames.flatMap((f) => (f.kind === 'json' && (type === undefined || f.message['type'] === type) ? [f.message] : []));
  }

  /** Waits until `check` holds over what was received; throws when the socket closed first or on time-out. */
  async until(check: (s: SpeechSocket) => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!check(this)) {
      if (this.closed) throw new Error(`the socket closed (${this.closed.code} ${this.closed.reason}) before ${what}`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for the close frame; resolves with its code and reason. */
  async untilClosed(timeoutMs = 20_000): Promise<{ code: number; reason: string }> {
    const deadline = performance.now() + timeoutMs;
    while (!this.closed) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error('timed out waiting for the socket to close');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.closed;
  }

  /** The audio of one context: each `audio` message's binary frame, checked to follow it at once with its announced length. */
  audioOf(contextId: string): Buffer {
    const parts: Buffer[] = [];
    this.frames.forEach((f, i) => {
      if (f.kind !== 'json' || f.message['type'] !== 'audio') return;
      const next = this.frames[i + 1];
      if (next?.kind !== 'binary' || next.data.length !== f.message['bytes']) throw new Error(`audio message ${i} is not followed by its ${String(f.message['bytes'])}-byte frame`);
      if (f.message['context_id'] === contextId) parts.push(next.data);
    });
    return Buffer.concat(parts);
  }

  close(): void {
    this.ws.close();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

/** A handshake the server answered with an HTTP refusal. */
export class HandshakeRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`handshake refused: ${status} ${body.slice(0, 200)}`);
  }
}
