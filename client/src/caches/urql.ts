import type {
  Cache,
  Data,
  KeyingConfig,
  ResolverConfig,
  UpdateResolver,
  UpdatesConfig,
} from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import {
  derivedRootFields,
  endIds,
  type ForgetResult,
  idOf,
  type LinkResult,
  possibleTypes,
  type UnlinkResult,
  valueTypes,
} from './types.ts';

export type { ForgetResult, LinkResult, UnlinkResult } from './types.ts';
export { keyFields, possibleTypes, valueTypes } from './types.ts';

const byWorkspace = (data: Data) => (data.workspace as string | undefined) ?? null;

/** `keys` for @urql/exchange-graphcache's `cacheExchange`. */
export const urqlKeys: KeyingConfig = {
  ...Object.fromEntries(valueTypes.map((name) => [name, () => null])),
  Stats: byWorkspace,
  Brief: byWorkspace,
};

/** `resolvers`: the pages of one `entries` listing (same filter and order) read as one list, both directions. */
export const urqlResolvers: ResolverConfig = {
  Query: { entries: relayPagination() },
};

type Entity = { __typename: string; id: string } | 'Query';

/** Invalidates every cached variant (any arguments) of `field` on `entity`. */
function invalidateField(cache: Cache, entity: Entity, field: string): void {
  for (const f of cache.inspectFields(entity)) {
    if (f.fieldName === field) cache.invalidate(entity, f.fieldName, f.arguments ?? undefined);
  }
}

const dropDerived = (cache: Cache) => {
  for (const field of derivedRootFields) invalidateField(cache, 'Query', field);
};

/** An updater must never take the client down (graphcache does not catch): on a surprise, drop more, not less. */
function safely(cache: Cache, update: () => void): void {
  try {
    update();
  } catch {
    try {
      dropDerived(cache);
      for (const field of ['entries', 'connections', 'entry']) invalidateField(cache, 'Query', field);
    } catch {
      // Nothing more can be done from here.
    }
  }
}

/** The two ends of a cached edge, for an unlink whose document did not select `source` and `target`. */
function cachedEnds(cache: Cache, edgeId: string): unknown[] {
  const edge = { __typename: 'Edge', id: edgeId };
  return [cache.resolve(edge, 'src'), cache.resolve(edge, 'dst')];
}

const entryWrite: UpdateResolver = (result, _args, cache, info) => {
  safely(cache, () => {
    const payload = result[info.fieldName] as { entry?: { id?: unknown } | null } | null;
    const id = idOf(payload?.entry?.id);
    if (id) invalidateField(cache, { __typename: 'Entry', id }, 'revisions');
    dropDerived(cache);
  });
};

/** `updates` for graphcache: each mutation drops what it made stale, and forget and unlink what they removed. */
export const urqlUpdates: UpdatesConfig = {
  Mutation: {
    forget(result, _args, cache, info) {
      const payload = result[info.fieldName] as ForgetResult | null | undefined;
      const id = idOf(payload?.forgottenId);
      if (!payload?.forgotten || !id) return;
      safely(cache, () => {
        // Neighbour lists that held the entry now point at nothing, so reading them goes to the server.
        cache.invalidate({ __typename: 'Entry', id });
        invalidateField(cache, 'Query', 'entries');
        invalidateField(cache, 'Query', 'connections');
        dropDerived(cache);
      });
    },
    unlink(result, _args, cache, info) {
      const payload = result[info.fieldName] as UnlinkResult | null | undefined;
      const edgeId = idOf(payload?.removedEdgeId);
      if (!edgeId) return;
      safely(cache, () => {
        // An UNLINKED event may write the edge back, so the lists that held it are dropped, not only the edge.
        for (const id of endIds(payload?.source, payload?.target, ...cachedEnds(cache, edgeId)))
          invalidateField(cache, { __typename: 'Entry', id }, 'connections');
        cache.invalidate({ __typename: 'Edge', id: edgeId });
        invalidateField(cache, 'Query', 'connections');
        dropDerived(cache);
      });
    },
    link(result, _args, cache, info) {
      const payload = result[info.fieldName] as LinkResult | null | undefined;
      safely(cache, () => {
        for (const id of endIds(payload?.edge?.src, payload?.edge?.dst))
          invalidateField(cache, { __typename: 'Entry', id }, 'connections');
        invalidateField(cache, 'Query', 'connections');
        dropDerived(cache);
      });
    },
    capture: entryWrite,
    append: entryWrite,
    update: entryWrite,
    setStatus: entryWrite,
  },
};

/** Everything `cacheExchange(...)` needs: `cacheExchange(urqlCacheOptions)`. */
export const urqlCacheOptions = { keys: urqlKeys, resolvers: urqlResolvers, updates: urqlUpdates, possibleTypes };
