import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config.ts';
import { buildServer } from '../../src/server/server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const CAPTURE = 'mutation Capture($content: String!) { capture(input: { content: $content }) { outcome } }';
const COUNT = 'query Count { count }';
const EVENTS = 'subscription Events { events { seq type } }';
const persisted = (doc: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(doc) } });

let dir: string;
let manifest: string;
let t: TestServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mini-sphere-trusted-'));
  manifest = join(dir, 'persisted-documents.json');
  await writeFile(manifest, JSON.stringify(Object.fromEntries([CAPTURE, COUNT, EVENTS].map((d) => [sha256(d), d]))));
  t = await startTestServer({ config: { trustedDocuments: manifest } });
});
afterAll(async () => {
  await t?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function post(body: Record<string, unknown>) {
  const res = await fetch(t.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as { data?: Record<string, unknown>; errors?: { extensions?: { code?: string } }[] },
  };
}

/** One operation over graphql-ws; resolves with the first message about it (next or error). */
function overSocket(payload: Record<string, unknown>): Promise<{ type: string; payload: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(t.wsUrl, 'graphql-transport-ws');
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    socket.on('message', (data) => {
      const msg = JSON.parse(String(data)) as { type: string; payload: unknown };
      if (msg.type === 'connection_ack') socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload }));
      if (msg.type === 'next' || msg.type === 'error') {
        socket.close();
        resolve(msg);
      }
    });
    socket.on('error', reject);
  });
}

describe('trusted documents (SPHERE_TRUSTED_DOCUMENTS)', () => {
  it('runs a listed document named by its hash', async () => {
    const res = await post({ variables: { content: 'trusted write' }, extensions: persisted(CAPTURE) });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({ capture: { outcome: 'STORED' } });
    expect((await post({ extensions: persisted(COUNT) })).body.data).toEqual({ count: 1 });
  });

  it('refuses any other document over HTTP, listed text included, and writes nothing', async () => {
    const arbitrary = await post({ query: 'mutation { capture(input: { content: "sneaked in" }) { outcome } }' });
    expect(arbitrary.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ONLY');
    const listedText = await post({ query: COUNT });
    expect(listedText.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ONLY');
    const unknown = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ count }') } } });
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
    expect(unknown.body.data ?? null).toBeNull();
    expect((await post({ extensions: persisted(COUNT) })).body.data).toEqual({ count: 1 });
  });

  it('refuses any other document over WebSocket, and runs listed ones there', async () => {
    const arbitrary = await overSocket({ query: 'mutation { capture(input: { content: "by socket" }) { outcome } }' });
    expect(arbitrary.type).toBe('error');
    expect(JSON.stringify(arbitrary.payload)).toContain('PERSISTED_QUERY_ONLY');
    const unknown = await overSocket({
      query: '',
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256('x') } },
    });
    expect(JSON.stringify(unknown.payload)).toContain('PERSISTED_QUERY_NOT_IN_LIST');
    const count = await overSocket({ query: '', extensions: persisted(COUNT) });
    expect(count).toMatchObject({ type: 'next', payload: { data: { count: 1 } } });
  });

  it('refuses to build a server over a manifest whose hash is not its document’s', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ [sha256('a')]: COUNT }));
    expect(() =>
      buildServer(loadConfig({}, { port: 0, dataDir: dir, trustedDocuments: bad, logLevel: 'silent' })),
    ).toThrow(/not the sha-256 of its document/);
  });
});
