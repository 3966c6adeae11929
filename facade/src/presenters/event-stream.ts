/** Opening a Server-Sent Events response, as the event sink the log stream writes to. */
import type { Response } from 'express';
import type { EventSink } from '../operations/log-stream.js';

/** Sends the event-stream headers on `res` and wraps it as an {@link EventSink}. */
export function openEventStream(res: Response): EventSink {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'private, no-store, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  return {
    write: (text) => void res.write(text),
    get backlogBytes() {
      return res.writableLength;
    },
    end: () => {
      if (!res.writableEnded) res.end();
    },
    onClose: (listener) => void res.once('close', listener),
  };
}
