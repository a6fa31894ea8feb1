import { InMemoryCache } from '@apollo/client';
import { Store } from '@urql/exchange-graphcache';
import { describe, expect, it } from 'vitest';
import { apolloCacheOptions, updateAfterMutation } from '../../client/src/caches/apollo.ts';
import { urqlCacheOptions, urqlUpdates } from '../../client/src/caches/urql.ts';

// A cache updater runs inside the client library; a throw there takes the client (or, under urql, the process)
// down. Whatever payload a document selects, or a server answers, the updaters must only ever update.

const payloads: Record<string, unknown>[] = [
  { unlink: { removedEdgeId: 'RWRnZTox' } },
  { unlink: { removedEdgeId: 'RWRnZTox', source: null, target: { id: 42 } } },
  { unlink: null },
  { unlink: 'nonsense' },
  { forget: { forgotten: true, forgottenId: 'e1' } },
  { forget: { forgotten: true } },
  { forget: [] },
  { link: { edge: null } },
  { link: { edge: { id: 'x', src: 'e1' } } },
  { capture: { entry: null } },
  { update: 7 },
  { setStatus: { entry: { id: { nested: true } } } },
];

describe('the cache updaters', () => {
  it.each(payloads)('never throw under Apollo: %j', (data) => {
    const cache = new InMemoryCache(apolloCacheOptions);
    expect(() => updateAfterMutation(cache, data)).not.toThrow();
  });

  it.each(payloads)('never throw under urql graphcache: %j', (data) => {
    const store = new Store(urqlCacheOptions);
    const [field] = Object.keys(data) as [string];
    const update = urqlUpdates.Mutation?.[field];
    expect(update).toBeDefined();
    // biome-ignore lint/suspicious/noExplicitAny: the info argument carries only what the updaters read
    const info = { fieldName: field } as any;
    // biome-ignore lint/suspicious/noExplicitAny: deliberately malformed results
    expect(() => update!(data as any, {}, store, info)).not.toThrow();
  });
});
