import { readdirSync } from 'node:fs';
import { fetchExchange, subscriptionExchange, Client as UrqlClient } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import type { DocumentNode } from 'graphql';
import { createClient, type Client as WsClient } from 'graphql-ws';
import { urqlCacheOptions } from 'mini-sphere-client/caches/urql';
import { afterAll, afterEach, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import WebSocket from 'ws';
import * as ops from '../../client/src/generated/graphql.ts';
import { type Data, freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

// Every document the package ships, run through real Apollo and urql caches configured only from the package's
// cache modules, against a real server: nothing may throw, warn or leave the cache disagreeing with the server.

// Apollo decides whether to print its warnings when its modules first load (see client-caches.test.ts).
(globalThis as { __DEV__?: boolean }).__DEV__ = true;
const apollo = await import('@apollo/client');
const { GraphQLWsLink } = await import('@apollo/client/link/subscriptions');
const { getMainDefinition } = await import('@apollo/client/utilities');
const { loadDevMessages, loadErrorMessages } = await import('@apollo/client/dev');
const { apolloCacheOptions, updateAfterMutation } = await import('mini-sphere-client/caches/apollo');
loadDevMessages();
loadErrorMessages();

const OPERATIONS = readdirSync(new URL('../../client/src/operations/', import.meta.url))
  .filter((f) => f.endsWith('.graphql'))
  .map((f) => f.replace(/\.graphql$/, ''))
  .sort();

const EVENT_TYPES = [
  'APPENDED',
  'CAPTURED',
  'FORGOTTEN',
  'LINKED',
  'STALENESS_PASS',
  'STATUS_CHANGED',
  'UNLINKED',
  'UPDATED',
];

type Policy = 'cache-first' | 'network-only';

/** One client library with its cache: each operation as the library runs it. */
interface Driver {
  query(doc: DocumentNode, variables?: Data, policy?: Policy): Promise<Data>;
  mutate(doc: DocumentNode, variables: Data): Promise<Data>;
  subscribe(doc: DocumentNode, variables: Data, onEvent: (data: Data) => void, onError: (e: unknown) => void): void;
  stop(): Promise<void>;
}

let srv: TestServer;
let warn: MockInstance<typeof console.warn>;
let error: MockInstance<typeof console.error>;

beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});
afterEach(() => {
  vi.restoreAllMocks();
});

function printed(): string[] {
  return [...warn.mock.calls, ...error.mock.calls].map((args) => args.map(String).join(' '));
}

function wsClient(workspace: string): WsClient {
  return createClient({ url: srv.wsUrl, webSocketImpl: WebSocket, connectionParams: { workspace }, retryAttempts: 0 });
}

const nameOf = (doc: DocumentNode) => {
  const def = getMainDefinition(doc);
  return def.kind === 'OperationDefinition' ? (def.name?.value ?? '') : '';
};

function apolloDriver(workspace: string, ran: Set<string>): Driver {
  const ws = wsClient(workspace);
  const isSubscription = ({ query }: { query: DocumentNode }) => {
    const def = getMainDefinition(query);
    return def.kind === 'OperationDefinition' && def.operation === 'subscription';
  };
  const client = new apollo.ApolloClient({
    link: apollo.ApolloLink.split(
      isSubscription,
      new GraphQLWsLink(ws),
      new apollo.HttpLink({ uri: srv.url, fetch, headers: { 'x-workspace': workspace } }),
    ),
    cache: new apollo.InMemoryCache(apolloCacheOptions),
  });
  const subs: { unsubscribe(): void }[] = [];
  return {
    async query(query, variables, policy = 'network-only') {
      ran.add(nameOf(query));
      const res = await client.query<Data>({ query, variables, fetchPolicy: policy });
      return res.data as Data;
    },
    async mutate(mutation, variables) {
      ran.add(nameOf(mutation));
      const res = await client.mutate<Data>({
        mutation,
        variables,
        update: (cache, { data }) => updateAfterMutation(cache, data),
      });
      return res.data as Data;
    },
    subscribe(query, variables, onEvent, onError) {
      ran.add(nameOf(query));
      subs.push(
        client.subscribe<Data>({ query, variables }).subscribe({
          next: (r) => (r.error ? onError(r.error) : onEvent(r.data as Data)),
          error: onError,
        }),
      );
    },
    async stop() {
      for (const s of subs) s.unsubscribe();
      client.stop();
      await ws.dispose();
    },
  };
}

function urqlDriver(workspace: string, ran: Set<string>): Driver {
  const ws = wsClient(workspace);
  const client = new UrqlClient({
    url: srv.url,
    fetchOptions: { headers: { 'x-workspace': workspace } },
    exchanges: [
      cacheExchange(urqlCacheOptions),
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
  const ok = <T>(r: { data?: T; error?: unknown }): T => {
    if (r.error) throw r.error;
    return r.data as T;
  };
  const subs: { unsubscribe(): void }[] = [];
  return {
    query: async (q, variables, policy = 'network-only') => {
      ran.add(nameOf(q));
      return ok(await client.query<Data>(q, variables ?? {}, { requestPolicy: policy }).toPromise());
    },
    mutate: async (m, variables) => {
      ran.add(nameOf(m));
      return ok(await client.mutation<Data>(m, variables).toPromise());
    },
    subscribe(s, variables, onEvent, onError) {
      ran.add(nameOf(s));
      subs.push(
        client.subscription<Data>(s, variables).subscribe((r) => (r.error ? onError(r.error) : onEvent(r.data!))),
      );
    },
    async stop() {
      for (const s of subs) s.unsubscribe();
      await ws.dispose();
    },
  };
}

/** Waits until `check` passes, re-checking every 50 ms, up to the test's own budget. */
async function eventually(check: () => void): Promise<void> {
  for (;;) {
    try {
      check();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const ids = (page: Data) => page.entries.edges.map((e: Data) => e.node.id);

/** What a cached read must agree with: the server's answer, fetched again. */
async function agree(d: Driver, doc: DocumentNode, variables: Data, pick: (data: Data) => unknown): Promise<void> {
  const cached = pick(await d.query(doc, variables, 'cache-first'));
  const fresh = pick(await d.query(doc, variables, 'network-only'));
  expect(cached).toEqual(fresh);
}

async function runEveryOperation(d: Driver): Promise<void> {
  const feed: Data[] = [];
  const plain: Data[] = [];
  const failures: unknown[] = [];
  d.subscribe(
    ops.FeedEventsDocument,
    { sinceSeq: 0 },
    (data) => feed.push(data.events),
    (e) => failures.push(e),
  );
  d.subscribe(
    ops.EventsDocument,
    { sinceSeq: 0 },
    (data) => plain.push(data.events),
    (e) => failures.push(e),
  );
  expect((await d.query(ops.LastEventSeqDocument)).lastEventSeq).toBe(0);

  const capture = async (content: string, extra: Data = {}) =>
    (await d.mutate(ops.CaptureDocument, { input: { content, tags: ['ops'], ...extra } })).capture;
  const a = (await capture('Alpha decides the cache keys')).entry;
  const b = (await capture('Beta reads the cache keys')).entry;
  const c = (await capture('Gamma pages through entries')).entry;
  const e = (await capture('Epsilon keeps the feed live')).entry;
  const old = (await capture('Zeta ran on port 4000')).entry;
  const replaced = await capture('Zeta runs on port 4100', { replaces: old.id });
  expect(replaced.outcome).toBe('REPLACED');

  await d.mutate(ops.AppendDocument, { input: { id: a.id, addition: 'It keeps Edge ids.' } });
  await d.mutate(ops.UpdateDocument, { input: { id: a.id, content: 'Alpha decides every cache key' } });
  await d.mutate(ops.SetStatusDocument, { input: { id: e.id, status: 'CANONICAL' } });
  const [ab0, ab1] = [a.id, b.id].sort();
  const [ac0, ac1] = [a.id, c.id].sort();
  await d.mutate(ops.LinkDocument, { input: { src: ab0, dst: ab1, type: 'RELATES_TO' } });
  await d.mutate(ops.LinkDocument, { input: { src: ac0, dst: ac1, type: 'RELATES_TO' } });
  await d.mutate(ops.LinkDocument, { input: { src: b.id, dst: e.id, type: 'CAUSED_BY' } });

  // Every query, read into the cache.
  expect((await d.query(ops.EntryDocument, { id: a.id })).entry.content).toContain('every cache key');
  const detail = (await d.query(ops.EntryDetailDocument, { id: a.id })).entry;
  expect(detail.revisions.length).toBeGreaterThanOrEqual(2);
  expect(detail.connections).toHaveLength(2);
  const view = { seedIds: [a.id], hops: 2 };
  expect((await d.query(ops.GraphViewDocument, view)).graphView.edges.length).toBe(3);
  expect((await d.query(ops.RecallDocument, { query: 'cache keys' })).recall.hits.length).toBeGreaterThan(0);
  const explained = (await d.query(ops.RecallExplainedDocument, { query: 'cache keys', hops: 2 })).recall;
  expect(explained.hits.some((h: Data) => h.via)).toBe(true);
  expect((await d.query(ops.RecentEntriesDocument, { n: 3 })).recent).toHaveLength(3);
  expect((await d.query(ops.BriefDocument)).brief.workspace).toBeTruthy();

  // Two pages of one listing read back as one list, forwards and backwards.
  const all = ids(await d.query(ops.EntriesDocument, { first: 200 }));
  const forward = { first: 2, filter: { tags: ['ops'] } };
  const p1 = await d.query(ops.EntriesDocument, forward);
  await d.query(ops.EntriesDocument, { ...forward, after: p1.entries.pageInfo.endCursor });
  const merged = await d.query(ops.EntriesDocument, forward, 'cache-first');
  expect(ids(merged)).toEqual(all.slice(0, 4));
  const backward = { last: 2, filter: { kinds: ['SEMANTIC'] } };
  const q1 = await d.query(ops.EntriesDocument, backward);
  await d.query(ops.EntriesDocument, { ...backward, before: q1.entries.pageInfo.startCursor });
  expect(ids(await d.query(ops.EntriesDocument, backward, 'cache-first'))).toEqual(all.slice(-4));

  // The pass has no document in the package; it is here so the feed sees every event type.
  await srv.gqlOk('mutation { runStalenessPass { report { markedStale } } }', {}, { workspace: currentWorkspace });

  const unlinked = (await d.mutate(ops.UnlinkDocument, { input: { src: ab0, dst: ab1, type: 'RELATES_TO' } })).unlink;
  expect(unlinked).toMatchObject({ removedEdgeId: expect.any(String), source: { id: ab0 }, target: { id: ab1 } });
  expect((await d.mutate(ops.ForgetDocument, { input: { id: c.id } })).forget).toMatchObject({ forgotten: true });

  await eventually(() => {
    expect(new Set(feed.map((ev) => ev.type))).toEqual(new Set(EVENT_TYPES));
    expect(plain.map((ev) => ev.seq)).toEqual(feed.map((ev) => ev.seq));
  });
  expect(failures).toEqual([]);
  expect(feed.map((ev) => ev.seq)).toEqual(feed.map((_, i) => i + 1));

  // What the cache holds after unlink and forget is what the server answers now.
  await agree(d, ops.EntryDetailDocument, { id: a.id }, (data) => data.entry.connections);
  await agree(d, ops.EntryDetailDocument, { id: b.id }, (data) => data.entry.connections);
  await agree(d, ops.GraphViewDocument, view, (data) => data.graphView);
  await agree(d, ops.BriefDocument, {}, (data) => data.brief);
  await agree(d, ops.RecentEntriesDocument, { n: 3 }, (data) => data.recent);
  const listed = await d.query(ops.EntriesDocument, forward, 'cache-first');
  const now = await d.query(ops.EntriesDocument, { first: 200, filter: { tags: ['ops'] } });
  expect(ids(listed)).not.toContain(c.id);
  expect(ids(now).slice(0, ids(listed).length)).toEqual(ids(listed));
  expect(listed.entries.totalCount).toBe(now.entries.totalCount);
}

let currentWorkspace = '';

describe.each([
  ['Apollo InMemoryCache (apolloCacheOptions, updateAfterMutation)', apolloDriver],
  ['urql graphcache (urqlCacheOptions)', urqlDriver],
])('%s', (_name, make) => {
  it('runs every shipped document, creating and removing links, revisions, supersessions and entries', async () => {
    warn = vi.spyOn(console, 'warn');
    error = vi.spyOn(console, 'error');
    currentWorkspace = freshWorkspace('ops');
    const ran = new Set<string>();
    const d = make(currentWorkspace, ran);
    try {
      await runEveryOperation(d);
    } finally {
      await d.stop();
    }
    expect([...ran].sort()).toEqual(OPERATIONS);
    expect(printed()).toEqual([]);
  });
});
