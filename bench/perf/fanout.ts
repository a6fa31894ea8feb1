/**
 * Subscription fan-out: many raw WebSocket clients speaking graphql-transport-ws (less client
 * overhead than the graphql-ws client), and the bare baseline: a plain `ws` WebSocketServer in
 * its own process broadcasting a payload of the same size to the same number of sockets.
 * Both sides use the same client code, so client-side costs cancel out in the ratio.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { sleep } from './util.ts';

export interface Subscribers {
  /** Receipt times (performance.now) of each socket's latest message, and how many it got. */
  count: Int32Array;
  last: Float64Array;
  /** Byte length of the most recent message received. */
  lastBytes: number;
  /** Resolves when every socket has received at least `n` messages; rejects after `timeoutMs`. */
  waitAll(n: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

interface OpenOptions {
  url: string;
  count: number;
  protocol?: string;
  /** Sent right after open (graphql-ws: connection_init); the socket counts as ready on `readyWhen`. */
  onOpen?: (ws: WebSocket) => void;
  /** For graphql-ws: reply to connection_ack with a subscribe message. */
  onControl?: (ws: WebSocket, msg: { type?: string }) => boolean;
  /** Connections opened at once. */
  batch?: number;
}

async function openSockets(opts: OpenOptions): Promise<Subscribers> {
  const count = new Int32Array(opts.count);
  const last = new Float64Array(opts.count);
  const sockets: WebSocket[] = [];
  const state = { lastBytes: 0 };
  let waiter: { n: number; resolve: () => void } | null = null;
  let reached = 0;
  const check = () => {
    if (waiter && reached >= opts.count) {
      const w = waiter;
      waiter = null;
      w.resolve();
    }
  };
  const batch = opts.batch ?? 100;
  for (let start = 0; start < opts.count; start += batch) {
    const opening: Promise<void>[] = [];
    for (let i = start; i < Math.min(opts.count, start + batch); i++) {
      opening.push(
        new Promise<void>((resolve, reject) => {
          const ws = new WebSocket(opts.url, opts.protocol, { perMessageDeflate: false });
          sockets.push(ws);
          ws.once('error', reject);
          // A socket closed before it was ready (e.g. 4429 past the server's socket cap) fails the run.
          ws.once('close', (code: number, reason: Buffer) =>
            reject(new Error(`subscriber ${i} closed with ${code} ${reason.toString('utf8')}`)),
          );
          ws.once('open', () => {
            opts.onOpen?.(ws);
            if (!opts.onControl) resolve();
          });
          ws.on('message', (data: Buffer) => {
            const at = performance.now();
            const msg = JSON.parse(data.toString('utf8')) as { type?: string };
            if (msg.type === 'next') {
              last[i] = at;
              count[i]!++;
              state.lastBytes = data.byteLength;
              if (waiter && count[i] === waiter.n) {
                reached++;
                check();
              }
            } else if (opts.onControl?.(ws, msg)) {
              resolve();
            } else if (msg.type === 'error' || msg.type === 'complete') {
              reject(new Error(`subscription ${i} ended: ${data.toString('utf8').slice(0, 300)}`));
            }
          });
        }),
      );
    }
    await Promise.all(opening);
  }
  return {
    count,
    last,
    get lastBytes() {
      return state.lastBytes;
    },
    waitAll: (n, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        reached = 0;
        for (let i = 0; i < opts.count; i++) if (count[i]! >= n) reached++;
        const timer = setTimeout(() => {
          waiter = null;
          reject(new Error(`only ${reached} of ${opts.count} subscribers got message ${n} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiter = {
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        check();
      }),
    close: async () => {
      await Promise.all(
        sockets.map(
          (ws) =>
            new Promise<void>((resolve) => {
              if (ws.readyState === WebSocket.CLOSED) return resolve();
              ws.once('close', () => resolve());
              ws.close();
              setTimeout(() => {
                ws.terminate();
                resolve();
              }, 2_000).unref();
            }),
        ),
      );
    },
  };
}

/** `count` graphql-transport-ws subscribers of `query`, each subscribed (acknowledged) before this resolves. */
export function openGraphqlSubscribers(url: string, workspace: string, count: number, query: string) {
  return openSockets({
    url: url.replace(/^http/, 'ws'),
    count,
    protocol: 'graphql-transport-ws',
    onOpen: (ws) => ws.send(JSON.stringify({ type: 'connection_init', payload: { workspace } })),
    onControl: (ws, msg) => {
      if (msg.type === 'connection_ack') {
        ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
        return true;
      }
      if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong' }));
      return false;
    },
  });
}

export interface BareServer {
  port: number;
  pid: number;
  /** Tells the server process to broadcast a message of `bytes` bytes to every socket. */
  broadcast(bytes: number): void;
  stop(): Promise<void>;
}

/** Starts bare-ws.ts (a plain `ws` broadcast server) in its own process. */
export async function startBareServer(): Promise<BareServer> {
  const script = fileURLToPath(new URL('./bare-ws.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`bare ws server exited with ${code}`)));
  });
  return {
    port,
    pid: child.pid!,
    broadcast: (bytes) => child.send({ bytes }),
    stop: async () => {
      child.send({ stop: true });
      await Promise.race([new Promise((r) => child.once('exit', r)), sleep(5_000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** `count` plain sockets connected to the bare server. */
export function openBareSubscribers(port: number, count: number) {
  return openSockets({ url: `ws://127.0.0.1:${port}/`, count });
}
