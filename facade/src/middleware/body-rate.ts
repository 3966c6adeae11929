/**
 * The minimum rate of a request body (TTS_MIN_BODY_BYTES_PER_SEC over TTS_BODY_RATE_WINDOW_MS): a
 * client that sends a body a byte at a time cannot hold a connection and a body reader for
 * minutes. Measured only while the facade reads the body (the readers of middleware/bodies.ts and
 * uploads.ts count what they take), so time the facade spends elsewhere is never held against the
 * client; and while the rest of a body nobody reads is discarded after the answer. A body slower
 * than the floor over a whole window answers 408 REQUEST_BODY_TOO_SLOW and its connection is
 * closed after the answer.
 */
import type { Request, Response } from 'express';
import { TtsError } from '@tts/common';

/** The floor: at least `minBytesPerSec` on average over every `windowMs`; 0 bytes/s = none. */
export interface BodyRate {
  readonly minBytesPerSec: number;
  readonly windowMs: number;
}

/** A running measurement of one body. */
export interface BodyPace {
  /** Counts bytes received. */
  count(bytes: number): void;
  /** Ends the measurement (the body was read, or refused for another reason). */
  stop(): void;
}

const NO_PACE: BodyPace = { count: () => undefined, stop: () => undefined };

/** The error of a body slower than `rate`. */
export function bodyTooSlow(rate: BodyRate): TtsError {
  return new TtsError('REQUEST_BODY_TOO_SLOW', `The request body arrived slower than ${rate.minBytesPerSec} bytes per second over ${rate.windowMs / 1000} s.`, { loc: ['body'] });
}

/**
 * Measures a body being read under `rate`; calls `onSlow` once when a window ends with fewer bytes
 * than the floor, after marking the answer `Connection: close` (the rest of such a body is not
 * waited for).
 */
export function watchBodyPace(res: Response, rate: BodyRate | undefined, onSlow: (err: TtsError) => void): BodyPace {
  if (rate === undefined || rate.minBytesPerSec === 0) return NO_PACE;
  const floor = (rate.minBytesPerSec * rate.windowMs) / 1000;
  let received = 0;
  const timer = setInterval(() => {
    if (received >= floor) {
      received = 0;
      return;
    }
    clearInterval(timer);
    if (!res.headersSent) res.setHeader('Connection', 'close');
    onSlow(bodyTooSlow(rate));
  }, rate.windowMs);
  timer.unref();
  return {
    count: (bytes) => {
      received += bytes;
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * After the answer, the rest of a body nobody read (an operation that takes none, a refusal before
 * reading) is discarded as it arrives, under the same floor: a connection whose discarded body
 * trickles slower is closed rather than kept for its next request. Measured on the socket's bytes.
 */
export function closeSlowLeftovers(req: Request, res: Response, rate: BodyRate | undefined): void {
  if (rate === undefined || rate.minBytesPerSec === 0) return;
  res.once('finish', () => {
    if (req.complete) return;
    const socket = req.socket;
    const floor = (rate.minBytesPerSec * rate.windowMs) / 1000;
    let last = socket.bytesRead;
    const timer = setInterval(() => {
      if (req.complete || socket.destroyed) {
        clearInterval(timer);
        return;
      }
      if (socket.bytesRead - last < floor) {
        clearInterval(timer);
        socket.destroy();
        return;
      }
      last = socket.bytesRead;
    }, rate.windowMs);
    timer.unref();
    socket.once('close', () => clearInterval(timer));
  });
}
