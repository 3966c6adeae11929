/**
 * The client address of a request (`req.ip`: rate limits, login throttling, challenge passes),
 * taking `X-Forwarded-For` only from the proxies `TTS_TRUSTED_PROXIES` names:
 *
 * - unset (the default): no proxy is trusted, not even on loopback; the address is the TCP peer's
 *   and `X-Forwarded-For` is ignored, so no caller can pick its own rate-limit bucket;
 * - a hop count `N` (1 to 32): the N nearest hops are proxies (an ingress controller: 1);
 * - addresses and CIDR ranges (`10.0.0.0/8,fd00::/8,192.0.2.7`): a hop is a proxy when its address
 *   is in one of them.
 *
 * The walk goes from the TCP peer back through `X-Forwarded-For` (right to left) while the hop is a
 * trusted proxy; the first hop that is not one is the client. Only a valid IPv4 or IPv6 address is
 * taken from the header: when a trusted proxy forwarded anything else (or nothing), that proxy's
 * own address is the client, so a forged or garbled header never yields a fresh address.
 * IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`) count as their IPv4 address, and every IPv6
 * address in its canonical spelling.
 */
import { BlockList, isIP, SocketAddress } from 'node:net';
import type { Express, Request } from 'express';
import { ConfigError } from '@tts/common';

/** The variable the trusted proxies are read from. */
export const TRUSTED_PROXIES_VARIABLE = 'TTS_TRUSTED_PROXIES';

/** Largest hop count accepted. */
const MAX_HOPS = 32;

/** Which hops in front of the facade are proxies whose `X-Forwarded-For` is believed. */
export type TrustedProxies =
  | { readonly kind: 'none' }
  | { readonly kind: 'hops'; readonly hops: number }
  | ({ readonly kind: 'ranges' } & AddressRanges);

/** A list of addresses and CIDR ranges, as written and as a matcher. */
export interface AddressRanges {
  readonly ranges: readonly string[];
  readonly list: BlockList;
}

/**
 * Parses a comma-separated list of IP addresses and CIDR ranges (`10.0.0.0/8,fd00::/8,192.0.2.7`);
 * throws ConfigError naming `variable` on an entry that is neither.
 */
export function parseAddressRanges(raw: string, variable: string, expected = 'an IP address or a CIDR range (address/prefix); expected e.g. "10.0.0.0/8,fd00::/8"'): AddressRanges {
  const list = new BlockList();
  const ranges: string[] = [];
  for (const entry of raw.split(',').map((s) => s.trim()).filter((s) => s !== '' && s.toLowerCase() !== 'none')) {
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const invalid = (): ConfigError => new ConfigError(variable, `"${entry}" is not ${expected}`);
    if (family === 0 || extra !== undefined) throw invalid();
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) {
      list.addAddress(address, type);
    } else {
      if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) throw invalid();
      list.addSubnet(address, Number(prefix), type);
    }
    ranges.push(entry);
  }
  return Object.freeze({ ranges: Object.freeze(ranges), list });
}

/** True when `address` (any spelling, IPv4-mapped included) is in `ranges`. */
export function inRanges(ranges: AddressRanges, address: string | undefined): boolean {
  const ip = validIp(address);
  return ip !== undefined && ranges.list.check(ip, isIP(ip) === 4 ? 'ipv4' : 'ipv6');
}

/** Parses TTS_TRUSTED_PROXIES (see the module comment); throws ConfigError naming the variable. */
export function parseTrustedProxies(raw: string | undefined): TrustedProxies {
  const value = raw?.trim() ?? '';
  if (value === '' || value.toLowerCase() === 'none') return Object.freeze({ kind: 'none' });
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > MAX_HOPS) throw new ConfigError(TRUSTED_PROXIES_VARIABLE, `a hop count must be <= ${MAX_HOPS}, got ${hops}`);
    return hops === 0 ? Object.freeze({ kind: 'none' }) : Object.freeze({ kind: 'hops', hops });
  }
  const expected = 'an IP address, a CIDR range (address/prefix) or a hop count; expected e.g. "1" or "10.0.0.0/8,fd00::/8"';
  return Object.freeze({ kind: 'ranges', ...parseAddressRanges(value, TRUSTED_PROXIES_VARIABLE, expected) });
}

/**
 * `address` as a valid IP in its canonical form (IPv6 in lower case and shortest spelling, so
 * `2001:DB8:0::1` and `2001:db8::1` are one client; an IPv4-mapped IPv6 address as its IPv4
 * form), or undefined when it is not one.
 */
export function validIp(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  const trimmed = address.trim();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(trimmed);
  const ip = mapped ? mapped[1]! : trimmed;
  const family = isIP(ip);
  if (family === 0) return undefined;
  return family === 4 ? ip : new SocketAddress({ address: ip, family: 'ipv6' }).address;
}

function isTrusted(trusted: TrustedProxies, address: string, hop: number): boolean {
  switch (trusted.kind) {
    case 'none':
      return false;
    case 'hops':
      return hop < trusted.hops;
    case 'ranges':
      return trusted.list.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
  }
}

/**
 * The client address of a connection from `peer` carrying `forwardedFor` (the `X-Forwarded-For`
 * header, several headers joined by commas); `peer` itself when no proxy is trusted.
 */
export function clientAddressOf(peer: string | undefined, forwardedFor: string | readonly string[] | undefined, trusted: TrustedProxies): string {
  let client = validIp(peer) ?? peer ?? '';
  if (trusted.kind === 'none' || client === '') return client;
  const header = typeof forwardedFor === 'string' ? forwardedFor : (forwardedFor ?? []).join(',');
  const hops = header.split(',').reverse();
  for (let hop = 0; isTrusted(trusted, client, hop); hop++) {
    const next = validIp(hops[hop]);
    if (next === undefined) break;
    client = next;
  }
  return client;
}

/**
 * Makes `req.ip` of `app` the client address under `trusted`, and lets Express believe
 * `X-Forwarded-Proto` / `-Host` from the same proxies (`req.protocol`).
 */
export function installClientAddress(app: Express, trusted: TrustedProxies): void {
  app.set('trust proxy', trusted.kind === 'none' ? false : trusted.kind === 'hops' ? trusted.hops : (address: string) => isTrusted(trusted, validIp(address) ?? address, 0));
  Object.defineProperty(app.request, 'ip', {
    configurable: true,
    enumerable: true,
    get(this: Request): string {
      return clientAddressOf(this.socket.remoteAddress, this.headers['x-forwarded-for'], trusted);
    },
  });
}
