import { readFileSync } from 'node:fs';
import { fetchExchange, subscriptionExchange, Client as UrqlClient } from '@urql/core';
import { cacheExchange, type KeyingConfig, type UpdatesConfig } from '@urql/exchange-graphcache';
import { buildSchema, type DocumentNode, GraphQLObjectType, parse } from 'graphql';
import { createClient, type Client as WsClient } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import WebSocket from 'ws';
import {
  apolloTypePolicies,
  applyUnlink,
  evictForgotten,
  possibleTypes,
  urqlKeys,
  urqlUpdates,
  valueTypes,
} from '../../client/src/caches.ts';
import { type Data, freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

// Apollo decides whether to print its warnings when its modules first load: from `globalThis.__DEV__` unless a
// bundler picked its development build. The flag is set before Apollo is imported below, so a missing merge
// function shows up here as it would in a development build.
(globalThis as { __DEV__?: boolean }).__DEV__ = true;
const apollo = await import('@apollo/client');
const { GraphQLWsLink } = await import('@apollo/client/link/subscriptions');
const { getMainDefinition } = await import('@apollo/client/utilities');
const { loadDevMessages, loadErrorMessages } = await import('@apollo/client/dev');
loadDevMessages();
loadErrorMessages();

const doc = {
  events: parse('subscription { events(sinceSeq: 0) { seq type } }'),
  capture: parse(
    'mutation($input: CaptureInput!) { capture(input: $input) { outcome matchId entry { id content tags } } }',
  ),
  link: parse(
    'mutation($input: LinkInput!) { link(input: $input) { edge { id src dst type weight } source { id } target { id } } }',
  ),
  unlink: parse(
    'mutation($input: UnlinkInput!) { unlink(input: $input) { removedEdgeId source { id } target { id } } }',
  ),
  forget: parse('mutation($input: ForgetInput!) { forget(input: $input) { forgottenId forgotten } }'),
  entry: parse(`query($id: ID!) { entry(id: $id) {
    id content tags
    connections { cursor direction edge { id src dst type } entry { id content } }
    revisions { id op content }
  } }`),
  recall: parse(`query($q: String!) { recall(query: $q) {
    query queryUsed candidates usedChars
    hits { rank score snippet entry { id content } explain { final match rrf } }
    omitted { entryId reason }
    timeRange { phrase from to }
  } }`),
  stats: parse(`query { stats {
    workspace entries edges revisions tags
    byKind { key count } byStatus { key count } edgesByType { key count }
  } }`),
  brief: parse(`query { brief {
    workspace text
    stats { workspace entries edges }
    recent { id content } important { id } stale { id }
    topTags { tag count cursor }
  } }`),
};

/** What the flow needs from a client: one operation at a time, and the first event of a subscription. */
interface Driver {
  mutate(document: DocumentNode, variables: Data, field: string): Promise<Data>;
  query(document: DocumentNode, variables?: Data): Promise<Data>;
  firstEvent(document: DocumentNode): Promise<Data>;
  /** Called right after the unlink and the forget mutations, before anything is fetched again. */
  afterUnlink?(entryId: string): void;
  /** `neighbourId` was linked to the forgotten entry, and its connections are cached. */
  afterForget?(entryId: string, neighbourId: string): void;
}

/** Capture, link, unlink, forget, recall, stats, brief and one live event, asserting what the server answers. */
async function runFlow(d: Driver): Promise<void> {
  const event = d.firstEvent(doc.events);
  const a = await d.mutate(
    doc.capture,
    { input: { content: 'Alpha ships the cache config', tags: ['cache'] } },
    'capture',
  );
  const b = await d.mutate(
    doc.capture,
    { input: { content: 'Beta reads the cache config', tags: ['cache'] } },
    'capture',
  );
  expect(a.outcome).toBe('STORED');
  const [src, dst] = [a.entry.id, b.entry.id].sort();
  const linked = await d.mutate(doc.link, { input: { src, dst, type: 'RELATES_TO' } }, 'link');
  expect(linked.edge.src).toBe(src);

  const before = await d.query(doc.entry, { id: a.entry.id });
  expect(before.entry.connections).toHaveLength(1);
  const unlinked = await d.mutate(doc.unlink, { input: { src, dst, type: 'RELATES_TO' } }, 'unlink');
  expect(unlinked.removedEdgeId).toBe(linked.edge.id);
  d.afterUnlink?.(a.entry.id);
  const after = await d.query(doc.entry, { id: a.entry.id });
  expect(after.entry.connections).toHaveLength(0);

  // Linked again, so that a's cached connections hold b when b is forgotten.
  await d.mutate(doc.link, { input: { src, dst, type: 'RELATES_TO' } }, 'link');
  expect((await d.query(doc.entry, { id: a.entry.id })).entry.connections).toHaveLength(1);
  const forgotten = await d.mutate(doc.forget, { input: { id: b.entry.id } }, 'forget');
  expect(forgotten).toMatchObject({ forgottenId: b.entry.id, forgotten: true });
  d.afterForget?.(b.entry.id, a.entry.id);

  const recall = await d.query(doc.recall, { q: 'cache config' });
  expect(recall.recall.hits.map((h: Data) => h.entry.id)).toEqual([a.entry.id]);
  const stats = await d.query(doc.stats);
  expect(stats.stats.entries).toBe(1);
  const brief = await d.query(doc.brief);
  expect(brief.brief.recent.map((e: Data) => e.id)).toEqual([a.entry.id]);
  expect(brief.brief.workspace).toBe(stats.stats.workspace);

  const first = await event;
  expect(first.events).toMatchObject({ seq: expect.any(Number), type: expect.any(String) });
}

let srv: TestServer;
const wsClients: WsClient[] = [];
let warn: MockInstance<typeof console.warn>;
let error: MockInstance<typeof console.error>;

beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});
afterEach(async () => {
  await Promise.all(wsClients.splice(0).map((c) => c.dispose()));
  vi.restoreAllMocks();
});

function spyConsole(): void {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  error = vi.spyOn(console, 'error').mockImplementation(() => {});
}

/** Everything the client printed through console.warn and console.error, as text. */
function printed(): string[] {
  return [...warn.mock.calls, ...error.mock.calls].map((args) => args.map(String).join(' '));
}

function wsClient(workspace: string): WsClient {
  const c = createClient({
    url: srv.wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: { workspace },
    retryAttempts: 0,
  });
  wsClients.push(c);
  return c;
}

function apolloDriver(workspace: string, typePolicies: typeof apolloTypePolicies, withUpdates: boolean): Driver {
  const http = new apollo.HttpLink({ uri: srv.url, fetch, headers: { 'x-workspace': workspace } });
  const ws = new GraphQLWsLink(wsClient(workspace));
  const isSubscription = ({ query }: { query: DocumentNode }) => {
    const def = getMainDefinition(query);
    return def.kind === 'OperationDefinition' && def.operation === 'subscription';
  };
  const client = new apollo.ApolloClient({
    link: apollo.ApolloLink.split(isSubscription, ws, http),
    cache: new apollo.InMemoryCache({ typePolicies, possibleTypes }),
  });
  const updates: Record<string, (cache: InstanceType<typeof apollo.InMemoryCache>, data: Data) => void> = withUpdates
    ? {
        forget: (cache, data) => evictForgotten(cache, data.forget),
        unlink: (cache, data) => applyUnlink(cache, data.unlink),
      }
    : {};
  const cache = client.cache as InstanceType<typeof apollo.InMemoryCache>;
  const cachedConnections = (id: string) =>
    cache.readQuery<Data>({ query: doc.entry, variables: { id } })?.entry.connections as Data[] | undefined;
  const hooks: Pick<Driver, 'afterUnlink' | 'afterForget'> = withUpdates
    ? {
        // The cached entry already lacks the removed edge, with nothing fetched again.
        afterUnlink: (id) => expect(cachedConnections(id)).toEqual([]),
        afterForget: (id, neighbourId) => {
          const keys = Object.keys(cache.extract());
          expect(keys).not.toContain(cache.identify({ __typename: 'Entry', id }));
          expect(keys.some((k) => k.startsWith('Edge:'))).toBe(false);
          // The neighbour's cached connections no longer point at it, and read whole.
          const read = cache.diff<Data>({ query: doc.entry, variables: { id: neighbourId }, optimistic: false });
          expect(read.complete).toBe(true);
          expect(read.result?.entry.connections).toEqual([]);
        },
      }
    : {};
  return {
    ...hooks,
    async mutate(mutation, variables, field) {
      const update = updates[field];
      const res = await client.mutate<Data>({
        mutation,
        variables,
        update: update
          ? (cache, { data }) => data && update(cache as InstanceType<typeof apollo.InMemoryCache>, data)
          : undefined,
      });
      return res.data![field];
    },
    async query(query, variables) {
      const res = await client.query<Data>({ query, variables, fetchPolicy: 'network-only' });
      return res.data as Data;
    },
    firstEvent: (query) =>
      new Promise((resolve, reject) => {
        const sub = client.subscribe<Data>({ query }).subscribe({
          next: (r) => {
            sub.unsubscribe();
            r.error ? reject(r.error) : resolve(r.data as Data);
          },
          error: reject,
        });
      }),
  };
}

function urqlDriver(workspace: string, keys: KeyingConfig | undefined, updates: UpdatesConfig | undefined): Driver {
  const ws = wsClient(workspace);
  const client = new UrqlClient({
    url: srv.url,
    fetchOptions: { headers: { 'x-workspace': workspace } },
    exchanges: [
      cacheExchange({ keys, updates }),
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
  const hooks: Pick<Driver, 'afterUnlink'> = updates
    ? {
        // The invalidated connections make the cached entry a miss, so the next read goes to the server.
        afterUnlink: (id) => expect(client.readQuery<Data>(doc.entry, { id })?.data ?? null).toBeNull(),
      }
    : {
        afterUnlink: (id) => expect(client.readQuery<Data>(doc.entry, { id })?.data?.entry.connections).toHaveLength(1),
      };
  return {
    ...hooks,
    mutate: async (m, variables, field) => ok(await client.mutation<Data>(m, variables).toPromise())[field],
    query: async (q, variables) =>
      ok(await client.query<Data>(q, variables ?? {}, { requestPolicy: 'network-only' }).toPromise()),
    firstEvent: (s) =>
      new Promise((resolve, reject) => {
        const { unsubscribe } = client.subscription<Data>(s, {}).subscribe((r) => {
          setImmediate(() => unsubscribe());
          r.error ? reject(r.error) : resolve(r.data as Data);
        });
      }),
  };
}

describe('the cache configuration and schema.graphql', () => {
  it('lists every object type without identity as a value, and every Node implementation', () => {
    const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));
    const roots = ['Query', 'Mutation', 'Subscription', 'Stats', 'Brief'];
    const objects = Object.values(schema.getTypeMap()).filter(
      (t): t is GraphQLObjectType => t instanceof GraphQLObjectType && !t.name.startsWith('__'),
    );
    const values = objects.filter((t) => !roots.includes(t.name) && !t.getInterfaces().some((i) => i.name === 'Node'));
    expect([...valueTypes].sort()).toEqual(values.map((t) => t.name).sort());
    const nodes = objects.filter((t) => t.getInterfaces().some((i) => i.name === 'Node')).map((t) => t.name);
    expect([...(possibleTypes.Node ?? [])].sort()).toEqual(nodes.sort());
  });
});

describe('Apollo InMemoryCache with apolloTypePolicies', () => {
  // Apollo prints each "Cache data may be lost" warning once per process, so the configured run comes first.
  it('runs capture, link, unlink, forget, recall, stats, brief and a subscription without a warning', async () => {
    spyConsole();
    await runFlow(apolloDriver(freshWorkspace('apollo'), apolloTypePolicies, false));
    expect(printed()).toEqual([]);
  });

  it('evictForgotten and applyUnlink update the cache in place, still without a warning', async () => {
    spyConsole();
    await runFlow(apolloDriver(freshWorkspace('apollo-updates'), apolloTypePolicies, true));
    expect(printed()).toEqual([]);
  });

  it('shows the same flow warns when the cache has no type policies', async () => {
    spyConsole();
    await runFlow(apolloDriver(freshWorkspace('apollo-bare'), {}, false));
    // Apollo prints the message as a format string followed by its arguments (field, type, `Type.field`).
    const lost = printed().filter((m) => m.startsWith('Cache data may be lost'));
    expect(lost.some((m) => m.includes(' Entry.connections '))).toBe(true);
  });
});

describe('urql graphcache with urqlKeys', () => {
  it('graphcache prints its development warnings here', () => {
    expect(process.env.NODE_ENV).not.toBe('production');
  });

  it('runs the flow without an "Invalid key" warning', async () => {
    spyConsole();
    await runFlow(urqlDriver(freshWorkspace('urql'), urqlKeys, urqlUpdates));
    expect(printed()).toEqual([]);
  });

  it('shows the same flow warns "Invalid key" without keys', async () => {
    spyConsole();
    await runFlow(urqlDriver(freshWorkspace('urql-bare'), undefined, undefined));
    const invalid = printed().filter((m) => m.includes('Invalid key'));
    expect(invalid.some((m) => m.includes('`Stats`'))).toBe(true);
    expect(invalid.some((m) => m.includes('`RecallResult`'))).toBe(true);
  });
});
