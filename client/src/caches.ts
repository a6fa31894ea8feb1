import type { ApolloCache, PossibleTypesMap, Reference, TypePolicies } from '@apollo/client';
import type { Cache, Data, KeyingConfig, UpdatesConfig } from '@urql/exchange-graphcache';

/**
 * Cache configuration for Mini-Sphere's schema. Entry, Edge and Revision implement Node and are keyed by `id`
 * (both caches' default); Stats and Brief are one per workspace and keyed by `workspace`, so queries must select
 * it; every other object type is a value that lives inside whatever holds it.
 */

/** Object types without identity: they are stored inside their parent, never on their own. */
export const valueTypes = [
  'AppendPayload',
  'CaptureResult',
  'CountBy',
  'EmbedderStatus',
  'EntryConnection',
  'EntryEdge',
  'ForgetPayload',
  'GraphNode',
  'GraphView',
  'LinkPayload',
  'MemoryEvent',
  'Neighbor',
  'PageInfo',
  'RecallHit',
  'RecallOmission',
  'RecallResult',
  'ScoreExplain',
  'SemanticStats',
  'SemanticThresholds',
  'SetStatusPayload',
  'SimilarEntry',
  'StalenessPassPayload',
  'StalenessReport',
  'TagCount',
  'TimeRange',
  'UnlinkPayload',
  'UpdatePayload',
  'VectorArmStatus',
] as const;

/** Types implementing `Node`, for fragments and `node`/`nodes` results. */
export const possibleTypes: PossibleTypesMap = { Node: ['Entry', 'Edge', 'Revision'] };

// The server's answer for these fields is the whole current value (lists shrink after unlink, forget or a
// status change), so the incoming value replaces the cached one rather than being merged with it.
const replaced = { merge: false } as const;

const replaceFields = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, replaced]));

/** `typePolicies` for Apollo Client's `InMemoryCache`. */
export const apolloTypePolicies: TypePolicies = {
  ...Object.fromEntries(valueTypes.map((name) => [name, { keyFields: false }])),
  Entry: { keyFields: ['id'], fields: replaceFields(['connections', 'revisions']) },
  Edge: { keyFields: ['id'] },
  Revision: { keyFields: ['id'] },
  Stats: {
    keyFields: ['workspace'],
    fields: replaceFields(['byClaimTag', 'byKind', 'byStatus', 'byVolatility', 'edgesByType']),
  },
  Brief: { keyFields: ['workspace'], fields: replaceFields(['important', 'recent', 'stale', 'topTags']) },
  Query: {
    fields: replaceFields(['connections', 'entries', 'eventLog', 'graphView', 'recall', 'recent', 'tags']),
  },
};

interface ForgetResult {
  forgottenId: string;
  forgotten: boolean;
}

interface UnlinkResult {
  removedEdgeId?: string | null;
  source: { id: string };
  target: { id: string };
}

/** Drops a forgotten entry and the edges touching it from an Apollo cache. */
export function evictForgotten(cache: ApolloCache, payload: ForgetResult | null | undefined): void {
  if (!payload?.forgotten) return;
  const id = payload.forgottenId;
  cache.evict({ id: cache.identify({ __typename: 'Entry', id }) });
  // Edges are found by their src/dst fields, so only edges fetched with those fields are dropped here; the rest
  // become unreachable from the entry and go with gc.
  const store = cache.extract() as Record<string, { __typename?: string; src?: string; dst?: string }>;
  for (const [key, obj] of Object.entries(store)) {
    if (obj.__typename === 'Edge' && (obj.src === id || obj.dst === id)) cache.evict({ id: key });
  }
  // Neighbour lists that held the entry drop it, as applyUnlink drops a removed edge's neighbours; gc frees
  // whatever only the forgotten entry reached.
  const entryRef = cache.identify({ __typename: 'Entry', id });
  // biome-ignore lint/suspicious/noExplicitAny: Neighbor lists are stored as plain objects holding references
  const keep = (list: any) =>
    Array.isArray(list) ? list.filter((n: { entry?: Reference }) => n.entry?.__ref !== entryRef) : list;
  for (const [key, obj] of Object.entries(store)) {
    if (obj.__typename === 'Entry') cache.modify({ id: key, fields: { connections: keep } });
  }
  cache.modify({ id: 'ROOT_QUERY', fields: { connections: keep } });
  cache.gc();
}

/** Removes an unlinked edge and the neighbours that carried it from an Apollo cache. */
export function applyUnlink(cache: ApolloCache, payload: UnlinkResult | null | undefined): void {
  const edgeId = payload?.removedEdgeId;
  if (!payload || !edgeId) return;
  const edgeRef = cache.identify({ __typename: 'Edge', id: edgeId });
  const keep = (list: readonly { edge?: Reference }[]) => list.filter((n) => n.edge?.__ref !== edgeRef);
  for (const end of [payload.source, payload.target]) {
    cache.modify({
      id: cache.identify({ __typename: 'Entry', id: end.id }),
      // biome-ignore lint/suspicious/noExplicitAny: Neighbor lists are stored as plain objects holding references
      fields: { connections: (list: any) => keep(list) },
    });
  }
  cache.modify({
    id: 'ROOT_QUERY',
    // biome-ignore lint/suspicious/noExplicitAny: as above, for the root `connections(id:)` field
    fields: { connections: (list: any) => (Array.isArray(list) ? keep(list) : list) },
  });
  cache.evict({ id: edgeRef });
  cache.gc();
}

const byWorkspace = (data: Data) => (data.workspace as string | undefined) ?? null;

/** `keys` for @urql/exchange-graphcache's `cacheExchange`. */
export const urqlKeys: KeyingConfig = {
  ...Object.fromEntries(valueTypes.map((name) => [name, () => null])),
  Stats: byWorkspace,
  Brief: byWorkspace,
};

const invalidateField = (cache: Cache, entity: { __typename: string; id: string } | 'Query', field: string) => {
  for (const f of cache.inspectFields(entity)) {
    if (f.fieldName === field) cache.invalidate(entity, f.fieldName, f.arguments ?? undefined);
  }
};

/** `updates` for graphcache: forget and unlink remove what the server removed. */
export const urqlUpdates: UpdatesConfig = {
  Mutation: {
    forget(result, _args, cache) {
      const payload = result.forget as ForgetResult | null;
      if (!payload?.forgotten) return;
      cache.invalidate({ __typename: 'Entry', id: payload.forgottenId });
    },
    unlink(result, _args, cache) {
      const payload = result.unlink as UnlinkResult | null;
      if (!payload?.removedEdgeId) return;
      cache.invalidate({ __typename: 'Edge', id: payload.removedEdgeId });
      for (const end of [payload.source, payload.target])
        invalidateField(cache, { __typename: 'Entry', id: end.id }, 'connections');
      invalidateField(cache, 'Query', 'connections');
    },
  },
};
