/**
 * Cross-origin requests (CORS). By default the facade answers no cross-origin request with CORS
 * headers: browsers let only pages of its own origin (the web application it serves) read its
 * answers; programs that are not browsers are unaffected. `TTS_CORS_ORIGINS` names the origins
 * whose pages may call the API as well:
 *
 * - an allowed `Origin` gets `Access-Control-Allow-Origin: <that origin>` (never `*`), `Vary:
 *   Origin`, and the response headers a client reads exposed (CORS_EXPOSED_HEADERS);
 * - never `Access-Control-Allow-Credentials`: a cross-origin page sends no cookie (the challenge
 *   pass stays with the facade's own pages) and must present its own credential in a header;
 * - a preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin is answered
 *   204 with the methods and request headers of CORS_ALLOWED_HEADERS (not `X-Admin-Key`:
 *   administration is never done from another origin), cached 10 minutes; from any other origin
 *   it falls through (no CORS headers, so the browser refuses the call).
 */
import type { RequestHandler } from 'express';
import { ConfigError } from '@tts/common';

/** The variable the allowed origins are read from. */
export const CORS_ORIGINS_VARIABLE = 'TTS_CORS_ORIGINS';

/** Request headers an allowed cross-origin page may send. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-API-Key', 'xi-api-key', 'X-Job-Token', 'X-Studio-Token', 'X-Request-Id', 'X-Correlation-Id', 'traceparent'] as const;

/** Methods an allowed cross-origin page may use. */
export const CORS_ALLOWED_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;

/** Response headers an allowed cross-origin page may read (besides the CORS-safelisted ones). */
export const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-Correlation-Id',
  'X-Trace-Id',
  'Retry-After',
  'Location',
  'Content-Disposition',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'X-Quota-Stage',
  'X-TTS-Voice',
  'X-TTS-Engine',
  'X-TTS-Node',
  'X-Audio-Duration-Sec',
  'X-Audio-Sample-Rate',
  'Server-Timing',
] as const;

/** Seconds a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SEC = 600;

/**
 * Parses TTS_CORS_ORIGINS: comma-separated origins (`https://app.example.com`, `http://localhost:5173`);
 * empty or unset: none. Throws ConfigError naming the variable for anything that is not an origin
 * (a path, a wildcard, another scheme).
 */
export function parseCorsOrigins(raw: string | undefined): readonly string[] {
  const origins: string[] = [];
  for (const entry of (raw ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    if (url === undefined || entry.includes('*') || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== entry.replace(/\/$/, '')) {
      throw new ConfigError(CORS_ORIGINS_VARIABLE, `"${entry}" is not an origin (scheme://host[:port], no path, no wildcard); expected e.g. "https://app.example.com"`);
    }
    origins.push(url.origin);
  }
  return Object.freeze([...new Set(origins)]);
}

/** The CORS middleware for `origins` (see the module comment); installed before access control. */
export function cors(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  const exposed = CORS_EXPOSED_HEADERS.join(', ');
  return (req, res, next) => {
    res.vary('Origin');
    const origin = req.get('origin');
    if (origin === undefined || !allowed.has(origin)) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    if (req.method === 'OPTIONS' && req.get('access-control-request-method') !== undefined) {
      res.vary('Access-Control-Request-Method');
      res.vary('Access-Control-Request-Headers');
      res.setHeader('Access-Control-Allow-Methods', CORS_ALLOWED_METHODS.join(', '));
      res.setHeader('Access-Control-Allow-Headers', CORS_ALLOWED_HEADERS.join(', '));
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SEC));
      res.status(204).end();
      return;
    }
    res.setHeader('Access-Control-Expose-Headers', exposed);
    next();
  };
}
