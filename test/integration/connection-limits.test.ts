import { mkdtemp, rm } from 'node:fs/promises';
import { type IncomingMessage, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { runCli, type ServerProcess, startServerProcess } from '../helpers/cli.ts';

/** A stream or connection opened to the server, and what became of it. */
interface Opened {
  /** Everything the server sent. */
  text(): string;
  /** Resolves once the server closed it. */
  closed: Promise<void>;
  isClosed(): boolean;
  destroy(): void;
}

/** A server-sent-events subscription on a connection of its own (no pooling). */
function openSse(url: string, headers: Record<string, string>): Promise<Opened> {
  const body = JSON.stringify({ query: 'subscription { events { seq } }' });
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'content-length': Buffer.byteLength(body),
        ...headers,
      },
    });
    req.once('error', reject);
    req.once('response', (res: IncomingMessage) => {
      let text = '';
      let ended = false;
      res.setEncoding('utf8').on('data', (d: string) => {
        text += d;
      });
      const closed = new Promise<void>((done) =>
        res.once('close', () => {
          ended = true;
          done();
        }),
      );
      resolve({ text: () => text, closed, isClosed: () => ended, destroy: () => req.destroy() });
    });
    req.end(body);
  });
}

/** A raw TCP connection that sends `data` (maybe an unfinished request) and then waits. */
function openRaw(port: number, data = ''): Promise<Opened & { socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let ended = false;
    socket.setEncoding('utf8').on('data', (d: string) => {
      text += d;
    });
    socket.on('error', () => {});
    const closed = new Promise<void>((done) =>
      socket.once('close', () => {
        ended = true;
        done();
      }),
    );
    socket.once('connect', () => {
      if (data) socket.write(data);
      resolve({ socket, text: () => text, closed, isClosed: () => ended, destroy: () => socket.destroy() });
    });
    socket.once('error', reject);
  });
}

/** A graphql-ws connection that has been acknowledged (it authenticated), or the code it was closed with. */
function openAcked(wsUrl: string, params: Record<string, unknown>): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, 'graphql-transport-ws');
    ws.once('error', reject);
    ws.once('close', (code: number) => resolve(code));
    ws.once('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: params })));
    ws.on('message', (data: Buffer) => {
      if ((JSON.parse(data.toString('utf8')) as { type: string }).type === 'connection_ack') resolve(ws);
    });
  });
}

async function waitFor(check: () => boolean | Promise<boolean>, ms = 30_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

async function inBatches<T>(count: number, batch: number, open: (i: number) => Promise<T>): Promise<T[]> {
  const all: T[] = [];
  for (let start = 0; start < count; start += batch) {
    const n = Math.min(batch, count - start);
    all.push(...(await Promise.all(Array.from({ length: n }, (_, i) => open(start + i)))));
  }
  return all;
}

const stopServer = async (server: ServerProcess | undefined) => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
};

describe('server-sent-event streams count against the per-client cap', () => {
  let dataDir: string;
  let server: ServerProcess;
  let token: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-sse-cap-'));
    const created = await runCli(['token', 'create', '--workspace', 'streams', '--role', 'reader'], {
      SPHERE_DATA_DIR: dataDir,
    });
    token = created.stdout.trim().split('\n').at(-1) ?? '';
    expect(token).toMatch(/^ms_/);
    // The default cap: 256 streams and sockets per client.
    server = await startServerProcess({ SPHERE_DATA_DIR: dataDir });
  });

  afterAll(async () => {
    await stopServer(server);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('accepts at most the cap of 300 streams on one token, and a WebSocket of that token is refused too', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const streams = await inBatches(300, 25, () => openSse(server.url, auth));
    const refused = () => streams.filter((s) => s.text().includes('RATE_LIMITED')).length;
    // Refused streams are answered at once; accepted ones stay open and silent.
    expect(await waitFor(() => refused() >= 44, 60_000)).toBe(true);
    const refusedNow = refused();
    expect(refusedNow).toBe(44);
    // Refused streams end once answered; the accepted ones stay open.
    expect(await waitFor(() => streams.filter((s) => !s.isClosed()).length === 256)).toBe(true);
    // The socket cap is the same one: no WebSocket for this token while its 256 streams live.
    const ws = await openAcked(server.url.replace(/^http/, 'ws'), auth);
    expect(ws).toBe(4429);
    // Closing streams gives their places back.
    for (const s of streams) s.destroy();
    const again = async () => {
      const next = await openAcked(server.url.replace(/^http/, 'ws'), auth);
      if (typeof next === 'number') return false;
      next.close();
      return true;
    };
    expect(await waitFor(again)).toBe(true);
  });
});

describe('connections that never finish their headers, and the connection caps', () => {
  let dataDir: string;
  let server: ServerProcess;
  let port: number;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-conn-cap-'));
    server = await startServerProcess({
      SPHERE_DATA_DIR: dataDir,
      SPHERE_MAX_CONNECTIONS: '60',
      SPHERE_MAX_UNAUTHENTICATED_PER_PEER: '30',
    });
    port = Number(new URL(server.url).port);
  });

  afterAll(async () => {
    await stopServer(server);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('closes connections whose headers never finish within about 10 seconds', async () => {
    const started = Date.now();
    const halfOpen = await inBatches(25, 25, () => openRaw(port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
    // Node's default would keep them 60 s (checked every 30 s).
    expect(await waitFor(() => halfOpen.every((c) => c.isClosed()), 25_000)).toBe(true);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(9_000);
    expect(halfOpen.every((c) => c.text().includes('408'))).toBe(true);
  });

  it('refuses a peer more connections that have not authenticated than its cap, with a code', async () => {
    const idle = await inBatches(40, 40, () => openRaw(port));
    const refused = () => idle.filter((c) => c.text().includes('RATE_LIMITED'));
    expect(await waitFor(() => refused().length >= 10)).toBe(true);
    expect(refused()).toHaveLength(10);
    expect(refused().every((c) => c.text().startsWith('HTTP/1.1 429'))).toBe(true);
    expect(await waitFor(() => refused().every((c) => c.isClosed()))).toBe(true);
    // The other 30 are still open: the cap counts, it does not close what it admitted.
    expect(idle.filter((c) => !c.isClosed())).toHaveLength(30);
    for (const c of idle) c.destroy();
  });

  it('counts authenticated connections only against the server-wide cap', async () => {
    const wsUrl = server.url.replace(/^http/, 'ws');
    // 45 WebSockets that authenticated (open mode): more than the per-peer cap of waiting ones.
    const sockets = await inBatches(45, 15, () => openAcked(wsUrl, {}));
    expect(sockets.every((s) => typeof s !== 'number')).toBe(true);
    // 15 more connections fill the server to its 60; the next one is refused with 503.
    const more = await inBatches(15, 15, () => openRaw(port));
    const over = await openRaw(port);
    await over.closed;
    expect(over.text()).toMatch(/^HTTP\/1\.1 503/);
    expect(over.text()).toContain('UNAVAILABLE');
    expect(more.every((c) => !c.isClosed())).toBe(true);
    for (const c of more) c.destroy();
    for (const s of sockets) if (typeof s !== 'number') s.close();
    // Once they are gone, the server answers again.
    expect(await waitFor(async () => (await fetch(new URL('/health', server.url))).status === 200)).toBe(true);
  });
});
