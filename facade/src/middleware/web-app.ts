/**
 * The web application (web/, built by Vite into TTS_WEB_DIR) at `/`: hashed files under /assets/
 * are immutable and cached for a year; the page itself is revalidated on every load, so a new
 * build takes effect at once. Client-side pages share the one index.html. When the application is
 * not built, these paths fall through to the API's 404. (`X-Content-Type-Options: nosniff` is set
 * on every answer before this router: middleware/security-headers.ts.) Assets the build pre-compressed (NAME.br,
 * NAME.gz) are sent compressed to clients that accept it.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler, type Router } from 'express';

/** Paths of the application's pages (client-side routes), served the index page. */
export const WEB_PAGES = [
  '/',
  '/studio',
  '/studio/presets',
  '/studio/vip',
  '/share/:token',
  '/admin',
  '/admin/users',
  '/admin/reports',
  '/admin/keys',
  '/admin/hub',
  '/ops',
  '/ops/usage',
  '/ops/nodes',
  '/ops/logs',
  '/ops/system',
];

/**
 * The page's Content-Security-Policy: scripts, styles, workers and calls from this origin only (no
 * inline script or style, no eval); audio and images also from blob: URLs the page makes (the
 * streamed player, recorded clips).
 */
export const WEB_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The router serving the built application from `dir`, or undefined when it is not built. */
export function webApp(dir: string): Router | undefined {
  const index = path.join(dir, 'index.html');
  if (!existsSync(index)) return undefined;
  const router = express.Router();
  const page: RequestHandler = (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Security-Policy', WEB_CSP);
    res.setHeader('Referrer-Policy', 'same-origin');
    res.sendFile(index);
  };
  for (const p of WEB_PAGES) router.get(p, page);
  router.use('/assets', precompressed(path.join(dir, 'assets')));
  router.use(
    '/assets',
    express.static(path.join(dir, 'assets'), {
      immutable: true,
      maxAge: '365d',
      index: false,
      fallthrough: true,
    }),
  );
  router.get('/favicon.svg', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.sendFile(path.join(dir, 'favicon.svg'));
  });
  return router;
}

/** The encodings the build writes, in the order they are preferred. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

/**
 * Serves NAME.br or NAME.gz for NAME when the client accepts that encoding (the file list is read
 * once: a build replaces the directory and restarts the facade). Other requests fall through.
 */
function precompressed(assets: string): RequestHandler {
  const files = new Set(existsSync(assets) ? readdirSync(assets) : []);
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const name = req.path.slice(1);
    if (name.includes('/') || !files.has(name)) return next();
    const accepted = req.acceptsEncodings(...ENCODINGS.map((e) => e.name));
    const encoding = ENCODINGS.find((e) => e.name === accepted && files.has(name + e.suffix));
    res.setHeader('Vary', 'Accept-Encoding');
    if (!encoding) return next();
    res.setHeader('Content-Encoding', encoding.name);
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.type(path.extname(name));
    res.sendFile(path.join(assets, name + encoding.suffix), { cacheControl: false }, (err) => {
      if (err && !res.headersSent) next(err);
    });
  };
}
