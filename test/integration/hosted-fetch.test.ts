import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterEach, describe, expect, it } from 'vitest';
import { hostedFetch, hostedFetchWith } from '../../src/db/hosted-fetch.ts';
import { startHranaServer } from '../helpers/hrana-server.ts';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: Handler): Promise<{ url: string; sockets: () => number }> {
  let sockets = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => handler(req, body, res));
  });
  server.on('connection', () => sockets++);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, sockets: () => sockets };
}

describe('hostedFetch, the hosted client over node:http', () => {
  it('sends the method, headers and body, and answers status, content type and body', async () => {
    const { url } = await serve((req, body, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, auth: req.headers.authorization, body }));
    });
    const res = await hostedFetch(
      new Request(`${url}v2/pipeline`, { method: 'POST', headers: { authorization: 'Bearer t' }, body: '{"a":1}' }),
    );
    expect(res.ok).toBe(true);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ method: 'POST', auth: 'Bearer t', body: '{"a":1}' });
  });

  it('keeps one socket alive across sequential requests', async () => {
    const { url, sockets } = await serve((_req, _body, res) => res.end('ok'));
    for (let i = 0; i < 5; i++) expect(await (await hostedFetch(url, { method: 'POST', body: 'x' })).text()).toBe('ok');
    expect(sockets()).toBe(1);
  });

  it('answers an HTTP error as a response, not a rejection', async () => {
    const { url } = await serve((_req, _body, res) => {
      res.statusCode = 401;
      res.end('Unauthorized');
    });
    const res = await hostedFetch(url, { method: 'POST', body: '' });
    expect([res.ok, res.status, await res.text()]).toEqual([false, 401, 'Unauthorized']);
  });

  it("rejects a refused connection and a cut-off response the way fetch does: 'fetch failed' with the cause", async () => {
    const { url } = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const cut = await hostedFetch(url, { method: 'POST', body: '' }).catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(TypeError);
    expect((cut as Error).message).toBe('fetch failed');

    const closed = await serve(() => undefined);
    const port = new URL(closed.url).port;
    await new Promise((r) => servers.pop()?.close(r));
    const refused = await hostedFetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '' }).catch(
      (e: unknown) => e,
    );
    expect((refused as Error).message).toBe('fetch failed');
    expect((refused as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
  });

  it('fails a request the service never answers, as fetch failed with ETIMEDOUT, and goes on with a fresh socket', async () => {
    let calls = 0;
    const { url, sockets } = await serve((_req, _body, res) => {
      if (++calls === 1) return; // accepted, read, never answered
      res.end('ok');
    });
    const quick = hostedFetchWith({ silenceMs: 300 });
    const silent = await quick(url, { method: 'POST', body: 'x' }).catch((e: unknown) => e);
    expect((silent as Error).message).toBe('fetch failed');
    expect((silent as { cause?: { code?: string } }).cause?.code).toBe('ETIMEDOUT');
    expect(await (await quick(url, { method: 'POST', body: 'y' })).text()).toBe('ok');
    expect(sockets()).toBe(2);
  });

  it('carries @libsql/client over the Hrana protocol: statements, transactions, every value type', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hosted-fetch-'));
    const hrana = await startHranaServer({ dir, token: 'secret' });
    try {
      const client = createClient({ url: hrana.url('db'), authToken: 'secret', intMode: 'bigint', fetch: hostedFetch });
      await client.execute('CREATE TABLE t (i INTEGER, f REAL, s TEXT, b BLOB, n)');
      const tx = await client.transaction('write');
      await tx.execute({
        sql: 'INSERT INTO t VALUES (?, ?, ?, ?, ?)',
        args: [2n ** 60n, 1.5, 'é✓', new Uint8Array([0, 255]), null],
      });
      await tx.commit();
      const row = (await client.execute('SELECT * FROM t')).rows[0]!;
      expect([row.i, row.f, row.s, [...new Uint8Array(row.b as ArrayBuffer)], row.n]).toEqual([
        2n ** 60n,
        1.5,
        'é✓',
        [0, 255],
        null,
      ]);
      const wrong = createClient({ url: hrana.url('db'), authToken: 'wrong', fetch: hostedFetch });
      await expect(wrong.execute('SELECT 1')).rejects.toThrow(/401/);
      client.close();
      wrong.close();
    } finally {
      await hrana.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
