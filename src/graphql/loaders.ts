import DataLoader from 'dataloader';
import { type EdgeKey, edgeKeyString } from '../contract/node-ids.ts';
import type { Db } from '../db/client.ts';
import type { EdgeRow, EntryRow, RevisionRow } from '../db/schema.ts';
import {
  edgesByKeys,
  edgesTouching,
  entriesByIds,
  revisionsByEntryIds,
  revisionsByRowIds,
  supersededAmong,
  tagsByEntryIds,
} from '../memory/queries.ts';

/** Per-request batch loaders: each nested field costs one query per level, whatever the list size. */
export function createLoaders(db: Db) {
  return {
    entry: new DataLoader<string, EntryRow | null>(async (ids) => {
      const rows = new Map((await entriesByIds(db, ids)).map((e) => [e.id, e]));
      return ids.map((id) => rows.get(id) ?? null);
    }),
    tags: new DataLoader<string, string[]>(async (ids) => {
      const map = await tagsByEntryIds(db, ids);
      return ids.map((id) => map.get(id) ?? []);
    }),
    revisions: new DataLoader<string, RevisionRow[]>(async (ids) => {
      const map = await revisionsByEntryIds(db, ids);
      return ids.map((id) => map.get(id) ?? []);
    }),
    edges: new DataLoader<string, EdgeRow[]>(async (ids) => {
      const rows = await edgesTouching(db, ids);
      const map = new Map<string, EdgeRow[]>();
      for (const e of rows) {
        map.set(e.src, [...(map.get(e.src) ?? []), e]);
        if (e.dst !== e.src) map.set(e.dst, [...(map.get(e.dst) ?? []), e]);
      }
      return ids.map((id) => map.get(id) ?? []);
    }),
    edge: new DataLoader<EdgeKey, EdgeRow | null, string>(
      async (keys) => {
        const rows = new Map((await edgesByKeys(db, keys)).map((e) => [edgeKeyString(e), e]));
        return keys.map((k) => rows.get(edgeKeyString(k)) ?? null);
      },
      { cacheKeyFn: edgeKeyString },
    ),
    revision: new DataLoader<number, RevisionRow | null>(async (ids) => {
      const rows = new Map((await revisionsByRowIds(db, ids)).map((r) => [r.id, r]));
      return ids.map((id) => rows.get(id) ?? null);
    }),
    superseded: new DataLoader<string, boolean>(async (ids) => {
      const set = await supersededAmong(db, ids);
      return ids.map((id) => set.has(id));
    }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

/** An entry that an edge or graph node points at; it exists, since forget cascades to its edges. */
export async function loadExisting(loaders: Loaders, id: string): Promise<EntryRow> {
  const entry = await loaders.entry.load(id);
  if (!entry) throw new Error(`entry ${id} referenced by an edge no longer exists`);
  return entry;
}
