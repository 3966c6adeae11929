/**
 * The cap on long-lived streams per credential (operations marked `x-long-lived` in the OpenAPI
 * document), after access control has named the caller: one slot of {@link StreamSlots} per open
 * answer, released when the answer closes (it ended, the client went away, or the request failed
 * before streaming). Over the cap: 429 STREAM_LIMIT_EXCEEDED with Retry-After.
 *
 * Only answers that never end by themselves are long-lived (today GET /api/logs/stream). Speech
 * answers streamed as chunks or server-sent events end with their synthesis, within
 * TTS_REQUEST_TIMEOUT_MS, under admission and rate limits; GET /api/web/jobs/{job_id}/events is a
 * page, polled.
 */
import type { Request, RequestHandler } from 'express';
import { TtsError } from '@tts/common';
import type { StreamSlots } from '../operations/stream-slots.js';
import type { Caller } from './access.js';

/** Seconds a refused client is asked to wait: streams are long, slots come back when one closes. */
const RETRY_AFTER_SEC = 5;

/**
 * The credential a stream is counted against: the administrator key, a studio user (every session
 * of the user together), an API key or challenge pass subject; a public caller by its address.
 */
export function streamHolderOf(caller: Caller | undefined, req: Request): string {
  switch (caller?.method) {
    case 'admin':
      return 'admin';
    case 'studio':
      return `studio:${caller.principal.user.userId}`;
    case 'api_key':
    case 'challenge':
      return `${caller.method}:${caller.subject}`;
    default:
      return `address:${req.ip ?? ''}`;
  }
}

/** Builds the stream cap of one long-lived operation. */
export function streamLimit(slots: StreamSlots): RequestHandler {
  return (req, res, next) => {
    const release = slots.acquire(streamHolderOf(res.locals.caller, req));
    if (release === undefined) {
      throw new TtsError('STREAM_LIMIT_EXCEEDED', `This credential already holds ${slots.max} open streams; close one first.`, { retryAfterSec: RETRY_AFTER_SEC });
    }
    res.once('close', release);
    next();
  };
}
