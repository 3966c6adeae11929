/**
 * WebSocket operations go through the same Express chain as every other operation: the HTTP
 * server's `upgrade` requests are handed to the app with a real ServerResponse on the socket, so
 * request ids, access control (and its rate limits), the long-lived stream cap, the OpenAPI
 * validator (query and path parameters) and the error middleware all run before the handshake. A
 * refusal is therefore an ordinary HTTP answer (401, 422, 429 ...) in the operation's documented
 * shape, written on the socket before it is closed; only a handler that calls `acceptWebSocket`
 * completes the handshake. A plain GET of a WebSocket operation gets 426 from the handler.
 */
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Request, Response } from 'express';
import { WebSocketServer, type WebSocket } from 'ws';
import { TtsError } from '@tts/common';

/** The socket and first bytes of an upgrade request, kept until its handler accepts it. */
interface PendingUpgrade {
  readonly socket: Duplex;
  readonly head: Buffer;
  /** The routes of the HTTP server it came to (each facade has its own, with its own limits). */
  readonly routes: UpgradeRoutes;
}

/** The WebSocket side of one HTTP server. */
interface UpgradeRoutes {
  readonly server: WebSocketServer;
  /** Sockets open, so that a stopping facade closes them (they outlive the HTTP server's close). */
  readonly open: Set<WebSocket>;
}

const pending = new WeakMap<IncomingMessage, PendingUpgrade>();

/** Options of the WebSocket server every WebSocket operation shares. */
export interface UpgradeOptions {
  /** Largest message a client may send, bytes: a larger one closes the socket with 1009. */
  readonly maxMessageBytes: number;
}

/** The WebSocket sockets of one HTTP server. */
export interface WebSockets {
  /** Closes every open socket with 1001 (going away): the facade is stopping. */
  closeAll(): void;
}

/**
 * Routes the upgrade requests of `httpServer` through `app`. Anything but a WebSocket upgrade is
 * refused at once (no operation speaks another protocol).
 */
export function routeUpgrades(httpServer: Server, app: (req: IncomingMessage, res: ServerResponse) => void, options: UpgradeOptions): WebSockets {
  // One server for every operation: per-message compression stays off (audio does not compress,
  // and zlib contexts cost memory per socket).
  const routes: UpgradeRoutes = {
    server: new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes, perMessageDeflate: false, clientTracking: false }),
    open: new Set(),
  };
  httpServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    pending.set(req, { socket, head, routes });
    const res = new ServerResponse(req);
    // Refusals are written on the socket as HTTP answers, then the socket is closed.
    res.assignSocket(socket as never);
    res.shouldKeepAlive = false;
    res.once('finish', () => {
      if (pending.has(req)) {
        pending.delete(req);
        socket.end();
      }
    });
    app(req, res);
  });
  return {
    closeAll() {
      for (const ws of routes.open) ws.close(1001, 'The server is stopping.');
    },
  };
}

/** True when the request is a WebSocket upgrade still waiting for its handler. */
export function isUpgrade(req: Request): boolean {
  return pending.has(req);
}

/**
 * Throws TtsError WEBSOCKET_UPGRADE_REQUIRED (426, with `Upgrade: websocket`) for a plain HTTP
 * request: a handler that does work before its handshake (opening a session) checks first.
 */
export function requireUpgrade(req: Request, res: Response): void {
  if (pending.has(req)) return;
  res.setHeader('Upgrade', 'websocket');
  throw new TtsError('WEBSOCKET_UPGRADE_REQUIRED');
}

/**
 * Completes the handshake of a WebSocket operation's request; throws TtsError
 * WEBSOCKET_UPGRADE_REQUIRED (426) for a plain HTTP request. The response object is detached from
 * the socket; its `finish` and `close` events are emitted when the WebSocket closes, so what
 * counts open streams (stream-limit.ts) and request telemetry end with the session.
 */
export function acceptWebSocket(req: Request, res: Response): Promise<WebSocket> {
  requireUpgrade(req, res);
  const upgrade = pending.get(req)!;
  pending.delete(req);
  const { server: wss, open } = upgrade.routes;
  res.detachSocket(upgrade.socket as never);
  res.statusCode = 101;
  return new Promise((resolve, reject) => {
    const onClose = (): void => reject(new TtsError('TTS_CANCELLED', 'The client closed the connection during the handshake.'));
    // The client may have gone while the handler prepared (an adapter opens its session first):
    // its 'close' has already fired, so it would never be heard.
    if (upgrade.socket.destroyed) {
      onClose();
      return;
    }
    upgrade.socket.once('close', onClose);
    wss.handleUpgrade(req, upgrade.socket, upgrade.head, (ws) => {
      upgrade.socket.off('close', onClose);
      open.add(ws);
      ws.once('close', () => {
        open.delete(ws);
        res.emit('finish');
        res.emit('close');
      });
      resolve(ws);
    });
  });
}
