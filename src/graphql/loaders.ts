import DataLoader from 'dataloader';
import { DomainError } from '../contract/errors.ts';
import { type EdgeKey, edgeKeyString } from '../contract/node-ids.ts';
import type { Db } from '../db/client.ts';
import type { EdgeRow, EntryRow, RevisionRow } from '../db/schema.ts';
import { type ConnectionsPage, connectionPages } from '../memory/connections.ts';
import {
  type Classification,
  type Conflict,
  classificationsOf,
  conflictsOf,
  contradictedAmong,
} from '../memory/llm/records.ts';
import {
  edgesByKeys,
  entriesByIdsCut,
  revisionPages,
  revisionsByRowIds,
  supersededAmong,
  tagsByEntryIds,
  textsByIds,
} from '../memory/queries.ts';
import type { ReadBudget } from './read-budget.ts';

/** Findings an entry lists at most: the newest. */
export const CONFLICTS_PER_ENTRY = 20;

/**
 * Entries read by one statement at most: a batch of more (200 entries' connections, say)
 * is read in parts, and a spent read budget stops it between them.
 */
export const ENTRIES_PER_READ = 200;

/**
 * How much of a text the `entry` and `revisions` loaders read: an operation may load
 * thousands of entries (200 entries' connections) or revisions for fields other than
 * `content`, and a text is up to 100,000 characters. A longer text is read whole (the `text`
 * and `revision` loaders) only for a `content` field asked of it.
 */
export const LOADED_TEXT_CHARS = 4_096;

/**
 * Entries and revisions whose `content` holds only the start of their text (recall reads no
 * more of a candidate than ranking needs, the `entry` and `revisions` loaders
 * LOADED_TEXT_CHARS): their `content` field reads the whole text, as an entry's does for rows
 * read without it (readsText).
 */
export const CUT_CONTENT = new WeakSet<EntryRow | RevisionRow>();

/**
 * Per-request batch loaders: each nested field costs one query per level, whatever the list
 * size. With a read budget (an operation's), what they read is charged to it as it comes.
 */
export function createLoaders(db: Db, budget?: ReadBudget) {
  return {
    entry: new DataLoader<string, EntryRow | null>(async (ids) => {
      const rows = new Map<string, EntryRow>();
      for (let i = 0; i < ids.length; i += ENTRIES_PER_READ) {
        budget?.check();
        const part = await entriesByIdsCut(db, ids.slice(i, i + ENTRIES_PER_READ), LOADED_TEXT_CHARS);
        budget?.charge(part.rows);
        for (const e of part.rows) {
          if (part.cut.has(e.id)) CUT_CONTENT.add(e);
          rows.set(e.id, e);
        }
      }
      return ids.map((id) => rows.get(id) ?? null);
    }),
    /** Entries' whole texts, for the `content` of entries read with only the start of it (CUT_CONTENT). */
    text: new DataLoader<string, string | null>(async (ids) => {
      const texts = new Map<string, string>();
      for (let i = 0; i < ids.length; i += ENTRIES_PER_READ) {
        budget?.check();
        const part = await textsByIds(db, ids.slice(i, i + ENTRIES_PER_READ));
        budget?.charge([...part.values()]);
        for (const [id, text] of part) texts.set(id, text);
      }
      return ids.map((id) => texts.get(id) ?? null);
    }),
    /** Where each entry's classification came from (see memory/llm/records.ts). */
    classification: new DataLoader<EntryRow, Classification, string>((entries) => classificationsOf(db, entries), {
      cacheKeyFn: (e) => e.id,
    }),
    /** Each entry's newest findings of the LLM binding. */
    conflicts: new DataLoader<string, Conflict[]>(async (ids) => {
      const map = await conflictsOf(db, ids, CONFLICTS_PER_ENTRY);
      return ids.map((id) => map.get(id) ?? []);
    }),
    /** Of recall's hits, those a newer entry contradicts or updates, with the newer ones. */
    contradictedBy: new DataLoader<string, string[]>(async (ids) => {
      const map = await contradictedAmong(db, ids);
      return ids.map((id) => map.get(id) ?? []);
    }),
    tags: new DataLoader<string, string[]>(async (ids) => {
      const map = await tagsByEntryIds(db, ids);
      return ids.map((id) => map.get(id) ?? []);
    }),
    /** A page of an entry's revisions: pages asked with the same `after` and `first` are read together. */
    revisions: new DataLoader<RevisionPageKey, RevisionRow[], string>(
      async (keys) => {
        const pages = new Map<string, Map<string, RevisionRow[]>>();
        for (const [args, group] of groupBy(keys, (k) => `${k.after} ${k.first}`)) {
          const { after, first } = group[0]!;
          const ids = [...new Set(group.map((k) => k.entryId))];
          // In parts of about ENTRIES_PER_READ revisions when the budget could not take them all.
          const size = !budget || budget.fits(ids.length * first) ? ids.length : Math.ceil(ENTRIES_PER_READ / first);
          const read = new Map<string, RevisionRow[]>();
          for (let i = 0; i < ids.length; i += size) {
            budget?.check();
            const part = await revisionPages(db, ids.slice(i, i + size), after, first, LOADED_TEXT_CHARS, (r) =>
              CUT_CONTENT.add(r),
            );
            budget?.charge([...part.values()]);
            for (const [id, rows] of part) read.set(id, rows);
          }
          pages.set(args, read);
        }
        return keys.map((k) => pages.get(`${k.after} ${k.first}`)?.get(k.entryId) ?? []);
      },
      { cacheKeyFn: (k) => `${k.entryId} ${k.after} ${k.first}` },
    ),
    /** The edges of a page of an entry's connections: pages asked alike are read together. */
    connections: new DataLoader<ConnectionPageKey, EdgeRow[], string>(
      async (keys) => {
        const pages = new Map<string, Map<string, EdgeRow[]>>();
        for (const [args, group] of groupBy(keys, (k) => JSON.stringify(k.page))) {
          const ids = [...new Set(group.map((k) => k.entryId))];
          budget?.check();
          const read = await connectionPages(db, ids, group[0]!.page);
          budget?.charge([...read.values()]);
          pages.set(args, read);
        }
        return keys.map((k) => pages.get(JSON.stringify(k.page))?.get(k.entryId) ?? []);
      },
      { cacheKeyFn: (k) => JSON.stringify([k.entryId, k.page]) },
    ),
    edge: new DataLoader<EdgeKey, EdgeRow | null, string>(
      async (keys) => {
        const rows = new Map((await edgesByKeys(db, keys)).map((e) => [edgeKeyString(e), e]));
        return keys.map((k) => rows.get(edgeKeyString(k)) ?? null);
      },
      { cacheKeyFn: edgeKeyString },
    ),
    revision: new DataLoader<number, RevisionRow | null>(async (ids) => {
      const rows = new Map<number, RevisionRow>();
      for (let i = 0; i < ids.length; i += ENTRIES_PER_READ) {
        budget?.check();
        const part = await revisionsByRowIds(db, ids.slice(i, i + ENTRIES_PER_READ));
        budget?.charge(part);
        for (const r of part) rows.set(r.id, r);
      }
      return ids.map((id) => rows.get(id) ?? null);
    }),
    superseded: new DataLoader<string, boolean>(async (ids) => {
      const set = await supersededAmong(db, ids);
      return ids.map((id) => set.has(id));
    }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

/** Which page of an entry's connections. */
export interface ConnectionPageKey {
  entryId: string;
  page: ConnectionsPage;
}

/** Which page of an entry's revisions: those with an id above `after`, the first `first` of them. */
export interface RevisionPageKey {
  entryId: string;
  after: number;
  first: number;
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = out.get(key);
    if (group) group.push(item);
    else out.set(key, [item]);
  }
  return out;
}

/**
 * An entry that an edge or graph node points at. A live edge's entries exist (forget
 * cascades to its edges), but an event's edge is a snapshot that outlives them: its
 * forgotten end is NOT_FOUND, said so, rather than an internal error.
 */
export async function loadExisting(loaders: Loaders, id: string): Promise<EntryRow> {
  const entry = await loaders.entry.load(id);
  if (!entry)
    throw new DomainError('NOT_FOUND', `entry ${JSON.stringify(id)} no longer exists: it was forgotten`, { id });
  return entry;
}
