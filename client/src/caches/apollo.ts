import type { ApolloCache, PossibleTypesMap, Reference, TypePolicies } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import {
  derivedRootFields,
  endIds,
  entriesFilterArgs,
  type ForgetResult,
  idOf,
  keyFields,
  type LinkResult,
  possibleTypes as nodeTypes,
  type UnlinkResult,
  valueTypes,
} from './types.ts';

export type { ForgetResult, LinkResult, UnlinkResult } from './types.ts';
export { keyFields, valueTypes } from './types.ts';

/** Types implementing `Node`, for fragments and `node`/`nodes` results. */
export const possibleTypes: PossibleTypesMap = nodeTypes;

// The server's answer for these fields is the whole current value (lists shrink after unlink, forget or a
// status change), so the incoming value replaces the cached one rather than being merged with it.
const replaced = { merge: false } as const;

const replaceFields = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, replaced]));

/** `typePolicies` for Apollo Client's `InMemoryCache`. */
export const apolloTypePolicies: TypePolicies = {
  ...Object.fromEntries(valueTypes.map((name) => [name, { keyFields: false }])),
  Entry: { keyFields: [...keyFields.Entry], fields: replaceFields(['connections', 'revisions']) },
  Edge: { keyFields: [...keyFields.Edge] },
  Revision: { keyFields: [...keyFields.Revision] },
  Stats: {
    keyFields: [...keyFields.Stats],
    fields: replaceFields(['byClaimTag', 'byKind', 'byStatus', 'byVolatility', 'edgesByType']),
  },
  Brief: { keyFields: [...keyFields.Brief], fields: replaceFields(['important', 'recent', 'stale', 'topTags']) },
  Query: {
    fields: {
      ...replaceFields(['connections', 'eventLog', 'graphView', 'recall', 'recent', 'tags']),
      // One list per filter and order: `fetchMore` with `after` (or `before`) grows it at the end (or start).
      entries: relayStylePagination([...entriesFilterArgs]),
    },
  },
  // Each event replaces the last one under the same arguments (two subscriptions may share them).
  Subscription: { fields: replaceFields(['events']) },
};

/** Everything `new InMemoryCache(...)` needs: `new InMemoryCache(apolloCacheOptions)`. */
export const apolloCacheOptions = { typePolicies: apolloTypePolicies, possibleTypes };

type Store = Record<string, { __typename?: string; src?: unknown; dst?: unknown } | undefined>;
// biome-ignore lint/suspicious/noExplicitAny: cached lists hold plain objects with references; their shape is checked
type Stored = any;

const isList = (value: unknown): value is Stored[] => Array.isArray(value);

/** Keeps the neighbours of every cached `connections` list that `keep` accepts. */
function filterConnections(cache: ApolloCache, store: Store, keep: (neighbour: Stored) => boolean): void {
  const modifier = (list: Stored) => (isList(list) ? list.filter((n) => !n || keep(n)) : list);
  for (const [key, obj] of Object.entries(store)) {
    if (obj?.__typename === 'Entry') cache.modify({ id: key, fields: { connections: modifier } });
  }
  cache.modify({ id: 'ROOT_QUERY', fields: { connections: modifier } });
}

/** Drops the root fields a change of the graph makes stale; the next read of them asks the server. */
function dropDerived(cache: ApolloCache): void {
  for (const fieldName of derivedRootFields) cache.evict({ id: 'ROOT_QUERY', fieldName });
}

/**
 * Runs a cache update that must never take the client down: if the cache holds something unexpected, the fields
 * that could be stale are dropped instead, and the next read asks the server.
 */
function safely(cache: ApolloCache, update: () => void): void {
  try {
    update();
  } catch {
    try {
      dropDerived(cache);
      for (const fieldName of ['entries', 'connections', 'entry']) cache.evict({ id: 'ROOT_QUERY', fieldName });
    } catch {
      // Nothing more can be done from here; the cache stays as it was.
    }
  }
  try {
    cache.gc();
  } catch {
    // As above.
  }
}

/** Drops a forgotten entry, the edges touching it, and what listed or counted it, from an Apollo cache. */
export function evictForgotten(cache: ApolloCache, payload: ForgetResult | null | undefined): void {
  const id = idOf(payload?.forgottenId);
  if (!payload?.forgotten || !id) return;
  safely(cache, () => {
    const entryRef = cache.identify({ __typename: 'Entry', id });
    const store = cache.extract() as Store;
    // Edges are found by their src/dst fields, so only edges fetched with those fields are dropped here; the rest
    // become unreachable from the entry and go with gc.
    for (const [key, obj] of Object.entries(store)) {
      if (obj?.__typename === 'Edge' && (obj.src === id || obj.dst === id)) cache.evict({ id: key });
    }
    filterConnections(cache, store, (n: { entry?: Reference }) => n.entry?.__ref !== entryRef);
    // Each cached listing loses the entry and counts one fewer; a listing that might hold it on a page not loaded
    // yet is dropped, since its count can no longer be told.
    cache.modify({
      id: 'ROOT_QUERY',
      fields: {
        entries: (value: Stored, { DELETE }) => {
          if (!value || !isList(value.edges)) return value;
          const edges = value.edges.filter((e: Stored) => e?.node?.__ref !== entryRef);
          if (edges.length < value.edges.length) {
            const totalCount = typeof value.totalCount === 'number' ? value.totalCount - 1 : value.totalCount;
            return { ...value, edges, totalCount };
          }
          return value.pageInfo?.hasNextPage || value.pageInfo?.hasPreviousPage ? DELETE : value;
        },
      },
    });
    if (entryRef) cache.evict({ id: entryRef });
    dropDerived(cache);
  });
}

/** Removes an unlinked edge and the neighbours that carried it from an Apollo cache. */
export function applyUnlink(cache: ApolloCache, payload: UnlinkResult | null | undefined): void {
  const edgeId = idOf(payload?.removedEdgeId);
  if (!edgeId) return;
  safely(cache, () => {
    const edgeRef = cache.identify({ __typename: 'Edge', id: edgeId });
    // Every cached entry is looked at, not only `source` and `target`: the document may not select them.
    filterConnections(cache, cache.extract() as Store, (n: { edge?: Reference }) => n.edge?.__ref !== edgeRef);
    if (edgeRef) cache.evict({ id: edgeRef });
    dropDerived(cache);
  });
}

/** A new edge: both ends' cached connections, and what counts edges, are read again from the server. */
export function applyLink(cache: ApolloCache, payload: LinkResult | null | undefined): void {
  const ends = endIds(payload?.edge?.src, payload?.edge?.dst);
  if (ends.length === 0) return;
  safely(cache, () => {
    for (const id of ends) {
      const ref = cache.identify({ __typename: 'Entry', id });
      if (ref) cache.evict({ id: ref, fieldName: 'connections' });
    }
    cache.evict({ id: 'ROOT_QUERY', fieldName: 'connections' });
    dropDerived(cache);
  });
}

/** A written entry (capture, append, update, status): its revisions and what counts or ranks entries go stale. */
export function applyEntryWrite(cache: ApolloCache, payload: { entry?: { id?: string | null } | null } | null): void {
  safely(cache, () => {
    const id = idOf(payload?.entry?.id);
    const ref = id ? cache.identify({ __typename: 'Entry', id }) : undefined;
    if (ref) cache.evict({ id: ref, fieldName: 'revisions' });
    dropDerived(cache);
  });
}

/**
 * Keeps an Apollo cache in step with any Mini-Sphere mutation: pass it as the `update` of `client.mutate`
 * (`update: (cache, { data }) => updateAfterMutation(cache, data)`). Mutations it does not know leave the cache
 * alone; it never throws.
 */
export function updateAfterMutation(cache: ApolloCache, data: Record<string, unknown> | null | undefined): void {
  if (!data || typeof data !== 'object') return;
  for (const [field, payload] of Object.entries(data)) {
    // biome-ignore lint/suspicious/noExplicitAny: each helper checks the payload's shape itself
    const p = payload as any;
    if (field === 'forget') evictForgotten(cache, p);
    else if (field === 'unlink') applyUnlink(cache, p);
    else if (field === 'link') applyLink(cache, p);
    else if (['capture', 'append', 'update', 'setStatus'].includes(field)) applyEntryWrite(cache, p);
  }
}
