import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';

const VALID = /^[A-Za-z0-9._-]{1,128}$/;

/** The request id of a response's request (set by requestId()). */
export function requestIdOf(res: Response): string {
  return res.locals.requestId ?? '';
}

/** Takes a well-formed X-Request-Id from the client or makes one, and echoes it on the response. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const id = given !== undefined && VALID.test(given) ? given : randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}
