import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { CORRELATION_ID_PATTERN } from '@tts/common/telemetry';

/** The request id of a response's request (set by requestId()). */
export function requestIdOf(res: Response): string {
  return res.locals.requestId ?? '';
}

/** The client's correlation id of a response's request, when it sent a well-formed one. */
export function correlationIdOf(res: Response): string | undefined {
  return res.locals.correlationId;
}

/**
 * Gives every request an id the platform makes (echoed in X-Request-Id). The request id names the
 * request in usage, the consent audit and the provenance mark, so a client never chooses it: a
 * well-formed id the client sent (X-Correlation-Id, or X-Request-Id as clients commonly send) is
 * kept only as the request's correlation id, echoed in X-Correlation-Id and written in its log lines.
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const id = randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    const given = [req.get('x-correlation-id'), req.get('x-request-id')].find((v) => v !== undefined && CORRELATION_ID_PATTERN.test(v));
    if (given !== undefined) {
      res.locals.correlationId = given;
      res.setHeader('X-Correlation-Id', given);
    }
    next();
  };
}
