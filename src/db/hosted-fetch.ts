import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';

/**
 * Idle kept-alive sockets are closed after this long unless the service announces a shorter
 * `Keep-Alive: timeout=` (Node's agent honours that hint by itself): reusing a socket the
 * service has just closed would fail a request that never reached it. It is what fetch
 * (undici) does by default.
 */
const IDLE_SOCKET_MS = 4_000;

/**
 * A request whose connection stays silent this long fails (fetch gave up after 300 s without
 * headers): the service ends a transaction after 5 s, so a request silent for 30 s is on a
 * dead connection, and the write waiting on it would hold up its workspace's writer.
 */
const SILENCE_MS = 30_000;

/** Sockets per database host; requests beyond it wait for one (the writer has at most two in flight per workspace). */
const SOCKETS_PER_HOST = 64;

function keepIdleBriefly<A extends HttpAgent>(agent: A): A {
  const keep = agent.keepSocketAlive.bind(agent);
  agent.keepSocketAlive = (socket: Socket) => {
    // Typed as void, it answers whether the socket may be kept (false when the hint is too short).
    const kept = keep(socket) as unknown as boolean;
    if (kept && !socket.timeout) socket.setTimeout(IDLE_SOCKET_MS);
    return kept as unknown as undefined;
  };
  return agent;
}

const agents = {
  'http:': keepIdleBriefly(new HttpAgent({ keepAlive: true, maxSockets: SOCKETS_PER_HOST })),
  'https:': keepIdleBriefly(new HttpsAgent({ keepAlive: true, maxSockets: SOCKETS_PER_HOST })),
};

/** What @libsql/client reads of a response: status, a header, and the body once. */
class HostedResponse {
  readonly body = null;
  readonly headers: Headers;
  readonly #data: Buffer;

  constructor(
    readonly status: number,
    headers: IncomingMessage['headers'],
    data: Buffer,
  ) {
    this.#data = data;
    this.headers = new Headers();
    const type = headers['content-type'];
    if (type) this.headers.set('content-type', type);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }
  async json(): Promise<unknown> {
    return JSON.parse(this.#data.toString('utf8'));
  }
  async text(): Promise<string> {
    return this.#data.toString('utf8');
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.#data;
    return buffer.slice(byteOffset, byteOffset + byteLength) as ArrayBuffer;
  }
}

/**
 * The `fetch` the hosted client is given: node:http over kept-alive sockets. The global fetch
 * builds web streams, abort signals and a dispatcher around every request, several times the
 * CPU of the request itself; a hosted workspace sends one or two per write and three or four
 * per recall, on the thread that also serves every other request. A failure rejects the way
 * fetch's does (`TypeError: fetch failed` with the socket error as its cause), so callers
 * tell a dropped, refused or silent connection the same way.
 */
export const hostedFetch = hostedFetchWith({ silenceMs: SILENCE_MS });

/** hostedFetch with its own bound on a silent connection (`ETIMEDOUT` once it passes). */
export function hostedFetchWith(opts: { silenceMs: number }) {
  return async (input: Request | string | URL, init?: RequestInit): Promise<HostedResponse> => {
    const req = typeof input === 'string' || input instanceof URL ? new Request(input, init) : input;
    const body = req.method === 'GET' || req.method === 'HEAD' ? null : Buffer.from(await req.arrayBuffer());
    const url = new URL(req.url);
    const headers: Record<string, string> = {};
    req.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (body) headers['content-length'] = String(body.byteLength);
    const https = url.protocol === 'https:';
    if (!https && url.protocol !== 'http:') throw new TypeError(`fetch failed: unsupported protocol ${url.protocol}`);
    return new Promise((resolve, reject) => {
      const failed = (cause: unknown) => reject(Object.assign(new TypeError('fetch failed'), { cause }));
      const send = https ? httpsRequest : httpRequest;
      const outgoing = send(url, { method: req.method, headers, agent: agents[url.protocol as 'http:'] }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(new HostedResponse(res.statusCode ?? 0, res.headers, Buffer.concat(chunks))));
        res.on('error', failed);
        res.on('close', () => {
          if (!res.complete) failed(Object.assign(new Error('the response was cut off'), { code: 'ECONNRESET' }));
        });
      });
      outgoing.setTimeout(opts.silenceMs, () => {
        const silent = new Error(`no answer from the database service in ${opts.silenceMs} ms`);
        outgoing.destroy(Object.assign(silent, { code: 'ETIMEDOUT' }));
      });
      outgoing.on('error', failed);
      outgoing.end(body ?? undefined);
    });
  };
}
