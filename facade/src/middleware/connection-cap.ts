/**
 * The cap on open connections per TCP peer address (TTS_MAX_CONNECTIONS_PER_ADDRESS): one address
 * cannot hold the facade's sockets and file descriptors for itself. Counted at the server's
 * `connection` event, before any byte is parsed; a connection over the cap is destroyed at once,
 * unanswered (answering would mean reading its request). The count is the socket's own peer, never
 * an `X-Forwarded-For` address (none is read yet), so a peer that is a trusted proxy
 * (TTS_TRUSTED_PROXIES) is not counted: it carries many clients, whose addresses only its header
 * names. With a hop count every peer is such a proxy and the cap is the ingress's to enforce. Peers
 * in TTS_CONNECTION_CAP_EXEMPT (loopback by default: the machine itself) are not counted either.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { inRanges, validIp, type AddressRanges, type TrustedProxies } from './client-address.js';

/** Options of {@link capConnectionsPerAddress}. */
export interface ConnectionCapOptions {
  /** Most open connections of one peer address; 0 = no cap. */
  readonly max: number;
  /** Peers not counted. */
  readonly exempt: AddressRanges;
  /** Trusted proxies (not counted). */
  readonly trustedProxies: TrustedProxies;
  /** Called for each connection refused (logging). */
  readonly onRefused?: (address: string, open: number) => void;
}

/**
 * Installs the cap on `server`; returns the open connections per counted address (a live view,
 * for tests and metrics), or undefined when no peer is counted.
 */
export function capConnectionsPerAddress(server: Server, options: ConnectionCapOptions): ReadonlyMap<string, number> | undefined {
  const { max, exempt, trustedProxies } = options;
  if (max === 0 || trustedProxies.kind === 'hops') return undefined;
  const open = new Map<string, number>();
  const counted = (address: string): boolean => !inRanges(exempt, address) && !(trustedProxies.kind === 'ranges' && inRanges(trustedProxies, address));
  // Before the HTTP server's own listener: a refused socket never gets a parser.
  server.prependListener('connection', (socket: Socket) => {
    const address = validIp(socket.remoteAddress);
    if (address === undefined || !counted(address)) return;
    const now = open.get(address) ?? 0;
    if (now >= max) {
      socket.destroy();
      options.onRefused?.(address, now);
      return;
    }
    open.set(address, now + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return open;
}
