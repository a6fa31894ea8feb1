import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { checkRequest } from '../../src/server/guard.ts';
import { MAX_SUBSCRIPTIONS_PER_CONNECTION } from '../../src/server/ws.ts';
import { ControlStore } from '../../src/workspaces/control.ts';
import { runCli } from '../helpers/cli.ts';
import { CAPTURE } from '../helpers/operations.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const EVIL = 'http://evil.example';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An HTTP request with exactly the headers given (fetch would not let us forge Host). */
function raw(
  t: { origin: string },
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  const url = new URL(opts.path ?? '/graphql', t.origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: opts.method ?? 'POST',
        headers: {
          ...(opts.body !== undefined
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(opts.body) }
            : {}),
          ...opts.headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const gqlBody = (query: string) => JSON.stringify({ query });
const captureBody = (content: string) => gqlBody(`mutation { capture(input: { content: "${content}" }) { outcome } }`);

/** The sha-256 of every file in the data dir: a refused request must leave them byte-identical. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    out[name] = createHash('sha256')
      .update(await readFile(join(dir, name)))
      .digest('hex');
  }
  return out;
}

/** Sends `head` (request line and headers) and `body` as they are, and reads the whole answer. */
function rawTarget(t: { origin: string }, head: string, body = ''): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port: Number(new URL(t.origin).port) }, () => {
      const length =
        body === '' ? '' : `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`;
      // Written, not ended: a client that half-closes first may see its answer cut off once the
      // answer waits on a read thread (Node ends such a socket), and real clients wait to read.
      socket.write(`${head}\r\nconnection: close\r\n${length}\r\n${body}`);
    });
    let text = '';
    socket.setEncoding('utf8').on('data', (d: string) => {
      text += d;
    });
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    socket.on('error', reject);
  });
}

/** Reads a streaming answer's body as it comes: `text()` is what arrived so far, `done` its end. */
function readStream(res: Response): { done: Promise<void>; text: () => string } {
  const reader = res.body!.getReader();
  let text = '';
  const done = (async () => {
    while (true) {
      const chunk = await reader.read();
      if (chunk.done) return;
      text += Buffer.from(chunk.value).toString('utf8');
    }
  })();
  return { done, text: () => text };
}

/** Opens a WebSocket with forged headers; resolves with the upgrade's HTTP status, or 101. */
function upgrade(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws', { headers });
    socket.on('open', () => {
      socket.close();
      resolve({ status: 101, body: '' });
    });
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    socket.on('error', (error) => {
      if (!String(error.message).includes('Unexpected server response')) reject(error);
    });
  });
}

/** Connects, initialises with `params`, and resolves with how the server answered. */
function connect(
  url: string,
  params: Record<string, unknown>,
): Promise<{ socket: WebSocket; acked: boolean; closeCode?: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws');
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: params })));
    socket.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'connection_ack') resolve({ socket, acked: true });
    });
    socket.on('close', (code) => resolve({ socket, acked: false, closeCode: code }));
    socket.on('error', reject);
  });
}

async function metricsOf(t: TestServer, headers: Record<string, string> = {}): Promise<Map<string, number>> {
  const res = await fetch(`${t.origin}/metrics`, { headers });
  const out = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    const m = /^(\S+) (\S+)$/.exec(line);
    if (m?.[1] && !line.startsWith('#')) out.set(m[1], Number(m[2]));
  }
  return out;
}

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

describe('open mode refuses other web pages and rebound host names', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
    await t.gqlOk('mutation { capture(input: { content: "a private note" }) { outcome } }');
  });
  afterAll(() => t?.stop());

  it('answers a cross-origin preflight with 403 and never reflects the origin', async () => {
    const res = await raw(t, {
      method: 'OPTIONS',
      headers: {
        origin: EVIL,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).errors[0].extensions.code).toBe('FORBIDDEN');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('refuses writes and reads from another origin or a rebound Host, leaving every file byte-identical', async () => {
    const before = await snapshot(t.dataDir);
    const forged: Record<string, string>[] = [
      { origin: EVIL },
      { origin: 'null' },
      { origin: `http://localhost:${new URL(t.origin).port}` }, // a different origin than the Host
      { host: `evil.example:${new URL(t.origin).port}` },
      { host: `evil.example:${new URL(t.origin).port}`, origin: `http://evil.example:${new URL(t.origin).port}` },
      { host: '127.0.0.1:1' },
    ];
    for (const headers of forged) {
      for (const body of [captureBody('stolen write'), gqlBody('{ recent(n: 5) { content } }')]) {
        const res = await raw(t, { headers, body });
        expect(res.status, JSON.stringify(headers)).toBe(403);
        expect(JSON.parse(res.body).errors[0].extensions.code).toBe('FORBIDDEN');
        expect(res.body).not.toContain('private note');
      }
      const get = await raw(t, { method: 'GET', path: '/graphql?query=%7Bcount%7D', headers });
      expect(get.status).toBe(403);
    }
    expect(await snapshot(t.dataDir)).toEqual(before);
  });

  it('keeps serving requests without an Origin, and the server’s own pages', async () => {
    const plain = await raw(t, { body: gqlBody('{ count }') });
    expect(JSON.parse(plain.body).data.count).toBe(1);
    const sameOrigin = await raw(t, { headers: { origin: t.origin }, body: gqlBody('{ count }') });
    expect(sameOrigin.status).toBe(200);
    expect(JSON.parse(sameOrigin.body).data.count).toBe(1);
    const localhost = `localhost:${new URL(t.origin).port}`;
    const viaLocalhost = await raw(t, {
      headers: { host: localhost, origin: `http://${localhost}` },
      body: gqlBody('{ count }'),
    });
    expect(viaLocalhost.status).toBe(200);
  });

  it('refuses WebSocket upgrades from another origin or Host with 403 and no socket', async () => {
    const port = new URL(t.origin).port;
    const forged: Record<string, string>[] = [{ origin: EVIL }, { host: `evil.example:${port}` }];
    for (const headers of forged) {
      const res = await upgrade(t.wsUrl, headers);
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body).errors[0].extensions.code).toBe('FORBIDDEN');
    }
    expect((await upgrade(t.wsUrl, { origin: t.origin })).status).toBe(101);
    expect((await upgrade(t.wsUrl, {})).status).toBe(101);
  });

  it('takes an absolute-form target as the host it names, and refuses other targets with a code', async () => {
    const port = new URL(t.origin).port;
    const host = `127.0.0.1:${port}`;
    const health = await rawTarget(t, `GET http://${host}/health HTTP/1.1\r\nhost: ${host}`);
    expect(health.status).toBe(200);
    const query = await rawTarget(t, `POST http://${host}/graphql HTTP/1.1\r\nhost: ${host}`, gqlBody('{ count }'));
    expect(query.status).toBe(200);
    expect(query.text).toContain('{"data":{"count":1}}');
    // The host in the target is the one the request names: a rebound name is refused as in Host.
    const rebound = await rawTarget(t, `GET http://evil.example:${port}/health HTTP/1.1\r\nhost: ${host}`);
    expect(rebound.status).toBe(403);
    expect(rebound.text).toContain('"code":"FORBIDDEN"');
    const upgradeHead =
      'upgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==';
    const reboundSocket = await rawTarget(
      t,
      `GET http://evil.example:${port}/graphql HTTP/1.1\r\nhost: ${host}\r\n${upgradeHead}`,
    );
    expect(reboundSocket.status).toBe(403);
    for (const target of ['*', '//evil.example/graphql', 'evil.example:80', 'http://user:pw@127.0.0.1/graphql']) {
      for (const extra of ['', `\r\n${upgradeHead}`]) {
        const res = await rawTarget(t, `GET ${target} HTTP/1.1\r\nhost: ${host}${extra}`);
        expect(res.status, `${target}${extra && ' (upgrade)'}`).toBe(400);
        expect(res.text).toContain('"code":"BAD_REQUEST"');
        expect(res.text).not.toMatch(/\bat \S+ \(|node_modules/);
      }
    }
  });

  it('gives the CSRF refusal a code', async () => {
    const res = await raw(t, { method: 'GET', path: '/graphql?query=%7Bcount%7D' });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('gives every refusal a code', async () => {
    const json = { 'content-type': 'application/json' };
    const cases: [string, RequestInit][] = [
      ['/nope', {}],
      ['/health', { method: 'POST' }],
      ['/graphql', { method: 'PUT', body: '{}', headers: json }],
      ['/graphql', { method: 'POST', body: 'not json', headers: json }],
      ['/graphql', { method: 'POST', body: '{"query":"{count}"}', headers: { 'content-type': 'application/xml' } }],
      ['/graphql', { method: 'POST', body: '{"query":"{count}"}', headers: { ...json, accept: 'image/png' } }],
      ['/graphql', { method: 'POST', body: '[]', headers: json }],
    ];
    for (const [path, init] of cases) {
      const res = await fetch(t.origin + path, init);
      expect(res.status, `${init.method ?? 'GET'} ${path}`).toBeGreaterThanOrEqual(400);
      const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]?.extensions.code, `${init.method ?? 'GET'} ${path}`).toMatch(/^[A-Z_]+$/);
    }
  });

  it('checks the peer and listening address on every request, not only at start', () => {
    const input = (peer: string, address = '127.0.0.1') => ({
      headers: { host: '127.0.0.1:4000' },
      peer,
      listening: { address, port: 4000 },
    });
    expect(checkRequest(input('127.0.0.1'), false, [])).toBeNull();
    expect(checkRequest(input('::ffff:127.0.0.1'), false, [])).toBeNull();
    expect(checkRequest(input('192.0.2.7'), false, [])?.reason).toBe('peer');
    expect(checkRequest(input('127.0.0.1', '0.0.0.0'), false, [])?.reason).toBe('listen');
    // With tokens, the token is the credential: any peer, any Host.
    expect(checkRequest(input('192.0.2.7', '0.0.0.0'), true, [])).toBeNull();
  });

  it('serves the dashboard with a CSP that allows WebSockets to its own host only', async () => {
    const res = await fetch(`${t.origin}/`);
    const csp = res.headers.get('content-security-policy') ?? '';
    const connect = /connect-src ([^;]*)/.exec(csp)?.[1] ?? '';
    expect(connect.split(' ')).not.toContain('ws:');
    expect(connect.split(' ')).not.toContain('wss:');
    expect(connect).toContain(`ws://${new URL(t.origin).host}`);
  });
});

describe('SPHERE_CORS_ORIGINS', () => {
  const allowed = 'https://app.example.com';
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: { corsOrigins: [allowed] } });
  });
  afterAll(() => t?.stop());

  it('lets exactly the listed origins in, with their own origin echoed and never *', async () => {
    const preflight = await raw(t, {
      method: 'OPTIONS',
      headers: { origin: allowed, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(allowed);
    const post = await raw(t, { headers: { origin: allowed }, body: gqlBody('{ count }') });
    expect(post.status).toBe(200);
    expect(post.headers['access-control-allow-origin']).toBe(allowed);
    // The answer depends on Origin, for the listed origin, the preflight and a request without one.
    const plain = await raw(t, { body: gqlBody('{ count }') });
    for (const [name, res] of Object.entries({ preflight, post, plain }))
      expect(String(res.headers.vary), name).toMatch(/\bOrigin\b/i);
    const other = await raw(t, { headers: { origin: 'https://evil.example.com' }, body: gqlBody('{ count }') });
    expect(other.status).toBe(403);
  });
});

describe('token mode', () => {
  let t: TestServer;
  let logged = '';
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        logged += String(chunk);
        done();
      },
    });
    t = await startTestServer({ config: { metricsToken: 'metrics-secret-0123456789' }, deps: { logger: pino(sink) } });
  });
  afterAll(() => t?.stop());

  it('never falls back to open mode when the last token is revoked', async () => {
    const control = await t.server.control();
    const { id, token } = await control.createToken('ws-a', 'agent');
    const auth = { authorization: `Bearer ${token}` };
    expect((await t.gql('{ count }', {}, { headers: auth })).status).toBe(200);
    expect(await control.revokeToken(id)).toBe(true);
    // Past the mode cache: the server must still demand a token.
    await new Promise((r) => setTimeout(r, 1_100));
    const anonymous = await t.gql('{ count }');
    expect(anonymous.status).toBe(401);
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const ws = await connect(t.wsUrl, {});
    expect(ws.acked).toBe(false);
    expect(ws.closeCode).toBe(4403);
  });

  it('logs and counts refused credentials with the token id, never the token', async () => {
    const control = await t.server.control();
    const { id, token } = await control.createToken('ws-a', 'agent');
    await control.revokeToken(id);
    await t.gql('{ count }', {}, { headers: { authorization: `Bearer ${token}` } });
    await t.gql('{ count }', {}, { headers: { authorization: 'Bearer not-a-token' } });
    const lines = logged
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'credentials refused');
    expect(lines.some((l) => l.tokenId === id && l.peer !== undefined)).toBe(true);
    expect(lines.some((l) => l.tokenId === 'unknown')).toBe(true);
    expect(logged).not.toContain(token);
    const m = await metricsOf(t, { authorization: 'Bearer metrics-secret-0123456789' });
    expect(m.get('sphere_auth_refused_total{reason="invalid"}')).toBeGreaterThanOrEqual(2);
  });

  it('still refuses other origins, token or not', async () => {
    const { token } = await (await t.server.control()).createToken('ws-a', 'agent');
    const res = await raw(t, {
      headers: { origin: EVIL, authorization: `Bearer ${token}` },
      body: gqlBody('{ count }'),
    });
    expect(res.status).toBe(403);
  });

  it('serves /metrics only for SPHERE_METRICS_TOKEN, and never names a workspace', async () => {
    expect((await fetch(`${t.origin}/metrics`)).status).toBe(401);
    expect((await fetch(`${t.origin}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const res = await fetch(`${t.origin}/metrics`, {
      headers: { authorization: 'Bearer metrics-secret-0123456789' },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain('ws-a');
  });

  it('turns GraphiQL off with tokens', async () => {
    const res = await fetch(t.url, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe(
      'NOT_FOUND',
    );
  });
});

describe('token mode without a metrics token, and the playground on purpose', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: { authRequired: true, playground: true } });
  });
  afterAll(() => t?.stop());

  it('turns /metrics off', async () => {
    const res = await fetch(`${t.origin}/metrics`);
    expect(res.status).toBe(404);
  });

  it('serves GraphiQL gzipped, unframeable, when SPHERE_PLAYGROUND=on', async () => {
    const res = await raw(t, { method: 'GET', headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(Number(res.headers['content-length'])).toBeLessThan(4_000_000);
    expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  });
});

describe('subscriptions are released when clients leave', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: { maxSocketsPerClient: 4, maxSubscriptionsPerWorkspace: 40 } });
  });
  afterAll(() => t?.stop());
  afterEach(async () => {
    await waitFor(() => t.server.bus.streams.open === 0);
  });

  const openGauge = async () => (await metricsOf(t)).get('sphere_subscriptions_open') ?? -1;

  it('frees streams whose filter never matched, on complete and on close', async () => {
    const baseline = await openGauge();
    const sockets: WebSocket[] = [];
    for (let s = 0; s < 3; s++) {
      const { socket, acked } = await connect(t.wsUrl, { workspace: 'subs' });
      expect(acked).toBe(true);
      sockets.push(socket);
      for (let i = 0; i < 10; i++) {
        // Distinct tags: each subscription runs its own stream.
        socket.send(
          JSON.stringify({
            id: `s${i}`,
            type: 'subscribe',
            payload: { query: `subscription { captured(tag: "never-${s}-${i}") { seq } }` },
          }),
        );
      }
    }
    expect(await waitFor(async () => (await openGauge()) === baseline + 30)).toBe(true);
    // Complete some subscriptions explicitly, then close one socket and terminate another.
    for (let i = 0; i < 10; i++) sockets[0]?.send(JSON.stringify({ id: `s${i}`, type: 'complete' }));
    sockets[1]?.close();
    sockets[2]?.terminate();
    expect(await waitFor(async () => (await openGauge()) === baseline, 1_000)).toBe(true);
    sockets[0]?.close();
    // Writes are not slowed by streams that nobody reads.
    await t.gqlOk(CAPTURE, { input: { content: 'after the subscribers left' } }, { workspace: 'subs' });
    expect(t.server.bus.listeners).toBe(0);
  });

  it('frees a server-sent events stream when its client disconnects', async () => {
    const baseline = t.server.bus.streams.open;
    const controller = new AbortController();
    const res = await fetch(t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-workspace': 'subs' },
      body: gqlBody('subscription { captured(tag: "never") { seq } }'),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(await waitFor(() => t.server.bus.streams.open === baseline + 1)).toBe(true);
    controller.abort();
    expect(await waitFor(() => t.server.bus.streams.open === baseline, 1_000)).toBe(true);
  });

  it('caps sockets per peer address with 4429', async () => {
    const held = [];
    for (let i = 0; i < 4; i++) held.push(await connect(t.wsUrl, { workspace: 'caps' }));
    expect(held.every((h) => h.acked)).toBe(true);
    const over = await connect(t.wsUrl, { workspace: 'caps' });
    expect(over.acked).toBe(false);
    expect(over.closeCode).toBe(4429);
    held[0]?.socket.close();
    await waitFor(async () => (await connect(t.wsUrl, { workspace: 'caps' })).acked, 5_000).then((ok) =>
      expect(ok).toBe(true),
    );
    for (const h of held) h.socket.close();
  });

  it('caps live subscriptions per workspace, over WebSocket and SSE alike', async () => {
    const { socket } = await connect(t.wsUrl, { workspace: 'capped' });
    const errors: string[] = [];
    socket.on('message', (data) => {
      const msg = JSON.parse(String(data));
      if (msg.type === 'error') errors.push(msg.payload[0].extensions.code);
    });
    for (let i = 0; i < 41; i++) {
      socket.send(
        JSON.stringify({
          id: `c${i}`,
          type: 'subscribe',
          payload: { query: `subscription { captured(tag: "c${i}") { seq } }` },
        }),
      );
    }
    expect(await waitFor(() => errors.length === 1)).toBe(true);
    expect(errors).toEqual(['RATE_LIMITED']);
    const sse = await fetch(t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-workspace': 'capped' },
      body: gqlBody('subscription { captured { seq } }'),
    });
    expect(await sse.text()).toContain('RATE_LIMITED');
    socket.close();
  });
});

describe('subscriptions per WebSocket', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t?.stop());

  it(`holds ${MAX_SUBSCRIPTIONS_PER_CONNECTION} on one socket, and refuses the next with RATE_LIMITED`, async () => {
    const { socket } = await connect(t.wsUrl, { workspace: 'per-socket' });
    const refused: string[] = [];
    socket.on('message', (data) => {
      const msg = JSON.parse(String(data));
      if (msg.type === 'error') refused.push(`${msg.id} ${msg.payload[0].extensions.code}`);
    });
    const subscribe = (i: number) =>
      socket.send(
        JSON.stringify({
          id: `s${i}`,
          type: 'subscribe',
          payload: { query: `subscription { captured(tag: "s${i}") { seq } }` },
        }),
      );
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_CONNECTION; i++) subscribe(i);
    expect(await waitFor(() => t.server.bus.streams.open === MAX_SUBSCRIPTIONS_PER_CONNECTION)).toBe(true);
    subscribe(MAX_SUBSCRIPTIONS_PER_CONNECTION);
    expect(await waitFor(() => refused.length === 1)).toBe(true);
    expect(refused).toEqual([`s${MAX_SUBSCRIPTIONS_PER_CONNECTION} RATE_LIMITED`]);
    socket.close();
    expect(await waitFor(() => t.server.bus.streams.open === 0)).toBe(true);
  });
});

describe('revocation ends server-sent events streams', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t?.stop());

  it('ends an SSE stream within about a second of its token being revoked', async () => {
    const control = await t.server.control();
    const { id, token } = await control.createToken('sse-ws', 'reader');
    const res = await fetch(t.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: gqlBody('subscription { events { seq } }'),
    });
    expect(res.status).toBe(200);
    const stream = readStream(res);
    await waitFor(() => t.server.bus.streams.open === 1);
    await control.revokeToken(id);
    const ended = await Promise.race([
      stream.done.then(() => true),
      new Promise((r) => setTimeout(() => r(false), 10_000)),
    ]);
    expect(ended).toBe(true);
    expect(stream.text()).toContain('UNAUTHENTICATED');
    expect(await waitFor(() => t.server.bus.streams.open === 0)).toBe(true);
  });
});

describe('leaving open mode', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t?.stop());

  it('ends the subscriptions opened without a token, over WebSocket and SSE, once a token is created', async () => {
    const ws = await connect(t.wsUrl, { workspace: 'guarded' });
    expect(ws.acked).toBe(true);
    const received: string[] = [];
    ws.socket.on('message', (data) => received.push(String(data)));
    const closed = new Promise<number>((resolve) => ws.socket.on('close', (code) => resolve(code)));
    ws.socket.send(
      JSON.stringify({
        id: '1',
        type: 'subscribe',
        payload: { query: 'subscription { events { entry { content } } }' },
      }),
    );
    const sse = await fetch(t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-workspace': 'guarded' },
      body: gqlBody('subscription { events { entry { content } } }'),
    });
    expect(sse.status).toBe(200);
    const stream = readStream(sse);
    await waitFor(() => t.server.bus.streams.open === 2);

    // Another process makes the first token: the server is in token mode from now on.
    const created = await runCli(['token', 'create', '--workspace', 'guarded', '--role', 'agent'], {
      SPHERE_DATA_DIR: t.dataDir,
    });
    expect(created.code).toBe(0);
    const token = /^(ms_\S+)$/m.exec(created.stdout)?.[1];
    expect(token).toBeTruthy();

    const late = <T>(value: T) => new Promise<T>((r) => setTimeout(() => r(value), 20_000));
    expect(await Promise.race([closed, late(-1)])).toBe(4403);
    const ended = await Promise.race([stream.done.then(() => true), late(false)]);
    expect(ended).toBe(true);
    expect(stream.text()).toContain('UNAUTHENTICATED');
    expect(await waitFor(() => t.server.bus.streams.open === 0)).toBe(true);

    // What a token holder writes afterwards reached neither.
    const auth = { authorization: `Bearer ${token}` };
    await t.gqlOk('mutation { capture(input: { content: "written in token mode" }) { outcome } }', undefined, {
      headers: auth,
      workspace: 'guarded',
    });
    expect(received.join('')).not.toContain('written in token mode');
    expect(stream.text()).not.toContain('written in token mode');
  });
});

describe('the token command line', () => {
  let dataDir = '';
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('says that servers now need tokens, and returns to open mode only on purpose', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-tokens-'));
    const env = { SPHERE_DATA_DIR: dataDir };
    const created = await runCli(['token', 'create', '--workspace', 'w', '--role', 'agent'], env);
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/token mode/);
    const id = /^id: (\S+)$/m.exec(created.stdout)?.[1] ?? '';
    const refused = await runCli(['token', 'reset', '--open'], env);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/not revoked/);
    expect((await runCli(['token', 'revoke', id], env)).code).toBe(0);
    const reset = await runCli(['token', 'reset', '--open'], env);
    expect(reset.code).toBe(0);
    expect((await runCli(['token', 'list', '--json'], env)).stdout.trim()).toBe('[]');
  });
});

describe('a server on a public address', () => {
  it('stops serving when it is reset to open mode while running', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-public-'));
    const control = await ControlStore.open({ dataDir, controlDbUrl: null, dbAuthToken: null });
    const { id, token } = await control.createToken('pub', 'agent');
    const t = await startTestServer({ config: { host: '0.0.0.0', dataDir } });
    try {
      const origin = `http://127.0.0.1:${new URL(t.url).port}`;
      const ask = (headers: Record<string, string> = {}) => raw({ origin }, { headers, body: gqlBody('{ count }') });
      expect((await ask({ authorization: `Bearer ${token}` })).status).toBe(200);
      await control.revokeToken(id);
      expect((await control.resetToOpen()).live).toBe(0);
      await new Promise((r) => setTimeout(r, 1_100));
      const res = await ask();
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body).errors[0].message).toMatch(/loopback/);
    } finally {
      control.close();
      await t.stop();
    }
  });
});
