/**
 * Headers every answer of the facade carries, and the caching policy of the API, decided per class
 * of operation (the OpenAPI document's "Caching and security headers" section says the same):
 *
 * - every answer (API, web application, errors, 404s): `X-Content-Type-Options: nosniff`;
 * - every API answer: `Referrer-Policy: no-referrer` (job audio URLs carry their token in the
 *   query) and, unless its handler chooses otherwise, `Cache-Control: private, no-store`: audio
 *   (synthesized, streamed, a job's stored audio, with a key or with a job token in the URL),
 *   answers carrying secrets (API keys, the admin key, job tokens, studio sessions, challenge
 *   passes, the model-hub token's status) and every other per-caller answer are never stored by a
 *   browser or a shared cache;
 * - public, caller-independent answers set their own (`GET /api/compliance/terms`: public, 5 min);
 * - the web application's page and assets set theirs in `web-app.ts` (page revalidated, hashed
 *   assets immutable, with the page's Content-Security-Policy).
 */
import type { RequestHandler } from 'express';

/** Cache-Control of answers no cache may keep: audio, secrets, per-caller data. */
export const NO_STORE = 'private, no-store';

/** Sets `X-Content-Type-Options: nosniff` on every answer (installed first). */
export function noSniff(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  };
}

/**
 * The API's defaults (installed after the web application, before the operations): no-store and
 * no referrer; a handler may replace Cache-Control for a public answer.
 */
export function apiResponseDefaults(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Cache-Control', NO_STORE);
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  };
}
