/**
 * The two cookie helpers the challenge needs, on the `cookie` package: reading one cookie from a
 * Cookie header (bounded) and building the pass's Set-Cookie header.
 */
import { parse, serialize } from 'cookie';
import { CHALLENGE_COOKIE, type IssuedPass } from './challenge.js';

/** Longer Cookie headers are not parsed. */
const MAX_COOKIE_HEADER = 8192;

/**
 * The value of cookie `name` in a Cookie request header, or undefined when absent. An oversize
 * header, or a cookie sent twice (the `cookie` package would keep the first), yields an empty
 * string, which verifiers refuse as malformed.
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined || header === '') return undefined;
  if (header.length > MAX_COOKIE_HEADER) return '';
  if (header.split(';').filter((pair) => pair.split('=', 1)[0]!.trim() === name).length > 1) return '';
  const value = parse(header)[name];
  // RFC 6265 lets a cookie value be wrapped in double quotes; they are not part of it.
  return value !== undefined && value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

/** Options of `passCookie`. */
export interface PassCookieOptions {
  /** Adds `Secure` (set it whenever the facade is reached over HTTPS). */
  readonly secure: boolean;
  /** @default "/" */
  readonly path?: string;
}

/** The Set-Cookie header value carrying a pass: HttpOnly, SameSite=Lax, Max-Age of the pass. */
export function passCookie(pass: IssuedPass, options: PassCookieOptions): string {
  return serialize(CHALLENGE_COOKIE, pass.cookieValue, { maxAge: pass.maxAgeSec, path: options.path ?? '/', httpOnly: true, sameSite: 'lax', secure: options.secure });
}
