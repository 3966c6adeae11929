/**
 * The two cookie helpers the challenge needs: reading one cookie from a Cookie header (bounded, no
 * dependency) and building the pass's Set-Cookie header.
 */
import { CHALLENGE_COOKIE, type IssuedPass } from './challenge.js';

/** Longer Cookie headers are not parsed. */
const MAX_COOKIE_HEADER = 8192;

/**
 * The value of cookie `name` in a Cookie request header, or undefined when absent. An oversize
 * header, or a cookie sent twice, yields an empty string, which verifiers refuse as malformed.
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined || header === '') return undefined;
  if (header.length > MAX_COOKIE_HEADER) return '';
  let found: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    if (found !== undefined) return '';
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    found = value;
  }
  return found;
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
  const attributes = [`${CHALLENGE_COOKIE}=${pass.cookieValue}`, `Max-Age=${pass.maxAgeSec}`, `Path=${options.path ?? '/'}`, 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) attributes.push('Secure');
  return attributes.join('; ');
}
