import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  createSphereClient,
  type SphereClient,
  SphereError,
  type SphereEvent,
  SphereReconnectError,
} from '../../client/src/index.ts';
import { loadConfig } from '../../src/config.ts';
import { buildServer, type MiniSphereServer } from '../../src/server/server.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

const MANIFEST = fileURLToPath(new URL('../../client/src/generated/persisted-documents.json', import.meta.url));

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(opts: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const t = await startTestServer(opts);
  cleanups.push(() => t.stop());
  return t;
}

function client(url: string, workspace: string, persisted = false): SphereClient {
  const c = createSphereClient({ url, workspace, webSocketImpl: WebSocket, persisted });
  cleanups.push(() => c.close());
  return c;
}

/** Resolves once `check` holds, polling; the test's own timeout bounds the wait. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('createSphereClient requests', () => {
  it('captures, recalls and draws a graph view, typed end to end', async () => {
    const t = await server();
    const sphere = client(t.url, freshWorkspace('client'));
    const a = await sphere.capture({ content: 'The deploy pipeline runs on Buildkite', tags: ['ci'] });
    expect(a.outcome).toBe('STORED');
    expect(a.entry.tags).toEqual(['ci']);
    const b = await sphere.capture({ content: 'Buildkite agents live in the ops cluster', kind: 'SEMANTIC' });
    const link = await sphere.link({ src: a.entry.id, dst: b.entry.id, type: 'RELATES_TO' });
    expect(link.edge.type).toBe('RELATES_TO');

    const recalled = await sphere.recall({ query: 'deploy pipeline', topK: 3 });
    expect(recalled.hits.map((h) => h.entry.id)).toContain(a.entry.id);

    const view = await sphere.graphView({ seedIds: [a.entry.id], hops: 1 });
    expect(view.nodes.map((n) => n.entry.id).sort()).toEqual([a.entry.id, b.entry.id].sort());
    expect(view.edges).toHaveLength(1);

    expect((await sphere.append({ id: b.entry.id, addition: 'and autoscale' })).entry.content).toContain('autoscale');
    const unlinked = await sphere.unlink({ src: a.entry.id, dst: b.entry.id, type: 'RELATES_TO' });
    // What Unlink.graphql selects, typed: the removed edge and both ends, which the cache updaters read, each
    // with the __typename a normalized cache keys it by.
    expect(unlinked).toEqual({
      __typename: 'UnlinkPayload',
      removedEdgeId: link.edge.id,
      source: { __typename: 'Entry', id: a.entry.id },
      target: { __typename: 'Entry', id: b.entry.id },
    });
    expect((await sphere.forget(b.entry.id)).forgotten).toBe(true);
    expect(await sphere.entry(b.entry.id)).toBeNull();
  });

  it('throws errors that carry the server\u2019s extensions.code', async () => {
    const t = await server();
    const sphere = client(t.url, freshWorkspace('client'));
    const error = await sphere.capture({ content: '   ' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SphereError);
    expect((error as SphereError).code).toBe('BAD_USER_INPUT');
    const missing = await sphere.graphView({ seedIds: ['no-such-entry'] }).catch((e: unknown) => e);
    expect((missing as SphereError).code).toBe('NOT_FOUND');
  });

  it('walks 120 entries in pages of 25, seeing each once', async () => {
    const t = await server();
    const workspace = freshWorkspace('client');
    const sphere = client(t.url, workspace);
    const ids: string[] = [];
    for (let i = 0; i < 120; i += 1) ids.push((await sphere.capture({ content: `entry number ${i}` })).entry.id);
    const seen: string[] = [];
    const sizes: number[] = [];
    for await (const page of sphere.entries({ first: 25 })) {
      sizes.push(page.edges.length);
      seen.push(...page.edges.map((e) => e.node.id));
    }
    expect(sizes).toEqual([25, 25, 25, 25, 20]);
    expect(new Set(seen).size).toBe(120);
    expect(seen.sort()).toEqual(ids.sort());
  }, 60_000);
});

describe('createSphereClient subscriptions', () => {
  it('subscribes to events, from a seq or from now on', async () => {
    const t = await server();
    const sphere = client(t.url, freshWorkspace('client'));
    await sphere.capture({ content: 'before anyone listened' });
    const replayed: SphereEvent[] = [];
    const live: SphereEvent[] = [];
    sphere.subscribe((e) => replayed.push(e), { sinceSeq: 0 });
    sphere.subscribe((e) => live.push(e));
    await until(() => replayed.length === 1);
    // The live subscription pins "now" before it subscribes; give that a moment to land.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await sphere.capture({ content: 'while they listened' });
    await until(() => replayed.length === 2 && live.length === 1);
    expect(replayed.map((e) => e.type)).toEqual(['CAPTURED', 'CAPTURED']);
    expect(live[0]).toMatchObject({ type: 'CAPTURED', entryId: second.entry.id, seq: replayed[1]!.seq });
  }, 30_000);

  it('resumes after the server drops every socket, with no seq missing or repeated', async () => {
    const t = await startTestServer();
    cleanups.push(() => rm(t.dataDir, { recursive: true, force: true }));
    const port = Number(new URL(t.url).port);
    const workspace = freshWorkspace('client');
    const sphere = client(t.url, workspace);
    const seqs: number[] = [];
    sphere.subscribe((e) => seqs.push(e.seq), { sinceSeq: 0 });
    for (let i = 0; i < 5; i += 1) await sphere.capture({ content: `first life ${i}` });
    await until(() => seqs.length === 5);

    // Stopping closes every socket mid-stream; a new server on the same port and data takes over.
    await t.server.stop();
    const config = loadConfig({}, { port, host: '127.0.0.1', dataDir: t.dataDir, logLevel: 'silent' });
    const next: MiniSphereServer = buildServer(config);
    await next.start();
    cleanups.push(() => next.stop());
    // Written while the client is still waiting to reconnect (its first retry waits at least 250 ms).
    for (let i = 0; i < 5; i += 1) await sphere.capture({ content: `second life ${i}` });
    await until(() => seqs.length >= 10);
    for (let i = 0; i < 5; i += 1) await sphere.capture({ content: `after reconnect ${i}` });
    await until(() => seqs.length >= 15);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const log = await fetch(t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-workspace': workspace },
      body: JSON.stringify({ query: '{ eventLog(sinceSeq: 0, limit: 1000) { seq } }' }),
    }).then((r) => r.json() as Promise<{ data: { eventLog: { seq: number }[] } }>);
    expect(log.data.eventLog).toHaveLength(15);
    expect(seqs).toEqual(log.data.eventLog.map((e) => e.seq));
  }, 60_000);

  it('ends each subscription with a SphereReconnectError when a set retry budget runs out', async () => {
    const t = await startTestServer();
    cleanups.push(() => rm(t.dataDir, { recursive: true, force: true }));
    const sphere = createSphereClient({
      url: t.url,
      workspace: freshWorkspace('budget'),
      webSocketImpl: WebSocket,
      retryAttempts: 2,
    });
    cleanups.push(() => sphere.close());
    const seen: SphereEvent[] = [];
    const errors: unknown[] = [];
    sphere.subscribe((e) => seen.push(e), { sinceSeq: 0, onError: (e) => errors.push(e) });
    sphere.subscribe(() => {}, { sinceSeq: 0, types: ['LINKED'], onError: (e) => errors.push(e) });
    await sphere.capture({ content: 'one event before the server goes away' });
    await until(() => seen.length === 1);
    await t.server.stop();
    await until(() => errors.length === 2);
    for (const error of errors) {
      expect(error).toBeInstanceOf(SphereReconnectError);
      expect(error).toMatchObject({ code: 'RECONNECT_BUDGET_EXHAUSTED', attempts: 2 });
    }
  });

  it('runs the generated persisted documents on a server that trusts only them', async () => {
    const t = await server({ config: { trustedDocuments: MANIFEST } });
    const workspace = freshWorkspace('client');
    const sphere = client(t.url, workspace, true);
    const events: SphereEvent[] = [];
    sphere.subscribe((e) => events.push(e), { sinceSeq: 0 });
    const captured = await sphere.capture({ content: 'persisted documents only' });
    expect(captured.outcome).toBe('STORED');
    expect((await sphere.recall({ query: 'persisted documents' })).hits[0]?.entry.id).toBe(captured.entry.id);
    await until(() => events.length === 1);
    expect(events[0]?.entryId).toBe(captured.entry.id);

    const plain = client(t.url, workspace, false);
    const refused = await plain.capture({ content: 'sent as text' }).catch((e: unknown) => e);
    expect((refused as SphereError).code).toBe('PERSISTED_QUERY_ONLY');
  }, 30_000);
});
