import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { rawRefusal } from './guard.ts';

/**
 * Node's request timeouts, as `createServer` options: a client has 10 s to send a request's
 * headers (Node's default is 60 s) and 30 s for the whole request, body included; Node
 * looks for requests past them each second (its default, 30 s, would let them live 40 s).
 */
export const HTTP_TIMEOUTS = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  connectionsCheckingInterval: 1_000,
} as const;

export interface ConnectionLimitsOptions {
  /** Connections open at once, server-wide (SPHERE_MAX_CONNECTIONS). */
  max: number;
  /** Connections one peer address may hold before any of them authenticates (SPHERE_MAX_UNAUTHENTICATED_PER_PEER). */
  maxUnauthenticatedPerPeer: number;
  /** Told of each refused connection, by rule. */
  onRefused?: (reason: 'connections' | 'unauthenticated', peer: string) => void;
}

/**
 * Bounds the connections the server holds: at most `max` in all, and per peer address at
 * most `maxUnauthenticatedPerPeer` that have not yet authenticated (a request or a
 * WebSocket's connection_init whose credentials were accepted, or any request in open
 * mode). A client that opens connections and never completes a request cannot take the
 * server's file descriptors; one that authenticates leaves that count and is bounded by
 * the per-client socket cap instead. A refused connection gets a coded HTTP answer and is
 * closed.
 */
export class ConnectionLimits {
  readonly #opts: ConnectionLimitsOptions;
  #open = 0;
  readonly #waiting = new Map<string, number>();
  /** Connections not yet authenticated, with their peer. */
  readonly #unauthenticated = new WeakMap<Socket, string>();

  constructor(opts: ConnectionLimitsOptions) {
    this.#opts = opts;
  }

  /** Applies the limits to every connection `http` accepts. */
  attach(http: Server): void {
    http.on('connection', (socket: Socket) => this.#admit(socket));
  }

  /** Connections open now. */
  get open(): number {
    return this.#open;
  }

  /** Connections of `peer` that have not authenticated yet. */
  waiting(peer: string): number {
    return this.#waiting.get(peer) ?? 0;
  }

  /** A request or socket on `socket` authenticated: it no longer counts as waiting. */
  authenticated(socket: Socket | undefined): void {
    if (!socket) return;
    const peer = this.#unauthenticated.get(socket);
    if (peer === undefined) return;
    this.#unauthenticated.delete(socket);
    const n = (this.#waiting.get(peer) ?? 1) - 1;
    if (n > 0) this.#waiting.set(peer, n);
    else this.#waiting.delete(peer);
  }

  #admit(socket: Socket): void {
    const peer = socket.remoteAddress ?? 'unknown';
    if (this.#open >= this.#opts.max) {
      this.#opts.onRefused?.('connections', peer);
      refuse(socket, 503, `the server holds its maximum of ${this.#opts.max} connections; retry later`, 'UNAVAILABLE');
      return;
    }
    const waiting = this.waiting(peer);
    if (waiting >= this.#opts.maxUnauthenticatedPerPeer) {
      this.#opts.onRefused?.('unauthenticated', peer);
      refuse(
        socket,
        429,
        `at most ${this.#opts.maxUnauthenticatedPerPeer} connections per address may wait to authenticate; retry later`,
        'RATE_LIMITED',
      );
      return;
    }
    this.#open++;
    this.#waiting.set(peer, waiting + 1);
    this.#unauthenticated.set(socket, peer);
    socket.once('close', () => {
      this.#open--;
      this.authenticated(socket);
    });
  }
}

/** Answers a connection with a coded refusal before it sends anything, and closes it. */
function refuse(socket: Socket, status: number, message: string, code: string): void {
  // Nothing it sends is read: the parser would only start a request on a socket being closed.
  socket.pause();
  socket.on('error', () => socket.destroy());
  socket.end(rawRefusal(status, message, code), () => socket.destroy());
}
