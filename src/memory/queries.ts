import { and, asc, count, desc, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm';
import { decodeCursor, encodeCursor } from '../contract/cursor.ts';
import type { EntryKind, EntryStatus } from '../contract/enums.ts';
import { notFound } from '../contract/errors.ts';
import { checkRange, LIMITS, normalizeTag } from '../contract/limits.ts';
import type { EdgeKey } from '../contract/node-ids.ts';
import { VOLATILITY_MAX_AGE_MS } from '../contract/policy.ts';
import type { Db } from '../db/client.ts';
import {
  contentCut,
  edgeRows,
  entriesInOrder,
  entryColumnsCut,
  entryRows,
  jsonList,
  pagesPerId,
  revisionColumnsCut,
  revisionRows,
  TEXT_ROWS_PER_STATEMENT,
} from '../db/rows.ts';
import { type EdgeRow, type EntryRow, entries, type RevisionRow, revisions, tags } from '../db/schema.ts';

const ENTRY_COLUMNS = getTableColumns(entries);

/** The entry with this id, or undefined; any string is a valid lookup key. */
export async function findEntry(db: Db, id: string): Promise<EntryRow | undefined> {
  const [row] = await db.select().from(entries).where(eq(entries.id, id)).limit(1);
  return row;
}

/** The entry with this id, or NOT_FOUND. */
export async function requireEntry(db: Db, id: string): Promise<EntryRow> {
  const row = await findEntry(db, id);
  if (!row) throw notFound(id);
  return row;
}

/** The entries with these ids, in no particular order; unknown ids are left out. */
export async function entriesByIds(db: Db, ids: readonly string[]): Promise<EntryRow[]> {
  if (ids.length === 0) return [];
  return entryRows.all(db, sql`WHERE id IN ${jsonList(ids)}`);
}

/**
 * Entries by id with at most `chars` characters of their text each; `cut` holds those whose
 * text is longer (read it whole with textsByIds).
 */
export async function entriesByIdsCut(
  db: Db,
  ids: readonly string[],
  chars: number,
): Promise<{ rows: EntryRow[]; cut: Set<string> }> {
  const cut = new Set<string>();
  if (ids.length === 0) return { rows: [], cut };
  const found = await db.all<Record<string, unknown>>(
    sql`SELECT ${entryColumnsCut(chars)} FROM entries e WHERE e.id IN ${jsonList(ids)}`,
  );
  const rows = found.map((row) => {
    const entry = entryRows.read(row);
    if (contentCut(row)) cut.add(entry.id);
    return entry;
  });
  return { rows, cut };
}

/** The whole texts of entries by id. */
export async function textsByIds(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i += TEXT_ROWS_PER_STATEMENT) {
    const rows = await db.all<{ id: string; content: string }>(
      sql`SELECT id, content FROM entries WHERE id IN ${jsonList(ids.slice(i, i + TEXT_ROWS_PER_STATEMENT))}`,
    );
    for (const r of rows) out.set(r.id, r.content);
  }
  return out;
}

/** Tags of each entry, sorted. */
export async function tagsByEntryIds(db: Db, ids: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (ids.length === 0) return out;
  const rows = await db
    .select()
    .from(tags)
    .where(inArray(tags.entryId, [...ids]))
    .orderBy(asc(tags.entryId), asc(tags.tag));
  for (const r of rows) {
    const list = out.get(r.entryId);
    if (list) list.push(r.tag);
    else out.set(r.entryId, [r.tag]);
  }
  return out;
}

/**
 * A page of each entry's revisions, oldest first: the first `first` whose id is above
 * `after`. Each entry's page is read through the (entry_id, id) index with its own LIMIT,
 * so an entry with tens of thousands of revisions costs what its page holds. Each earlier
 * text is read as far as `textChars`; `cut` is told of the rows whose text is longer.
 */
export function revisionPages(
  db: Db,
  ids: readonly string[],
  after: number,
  first: number,
  textChars: number,
  cut: (row: RevisionRow) => void,
): Promise<Map<string, RevisionRow[]>> {
  const pageOf = (id: string) =>
    sql`SELECT ${revisionColumnsCut(textChars)}
      FROM "revisions" r WHERE r.entry_id = ${id} AND r.id > ${after} ORDER BY r.id LIMIT ${first}`;
  return pagesPerId(db, ids, pageOf, (row) => {
    const revision = revisionRows.read(row);
    if (contentCut(row)) cut(revision);
    return revision;
  });
}

/** The edges with these (src, dst, type) keys, in no particular order; unknown keys are left out. */
export async function edgesByKeys(db: Db, keys: readonly EdgeKey[]): Promise<EdgeRow[]> {
  if (keys.length === 0) return [];
  const list = JSON.stringify(keys.map((k) => [k.src, k.dst, k.type]));
  // One lookup per key through the (src, dst, type) unique index.
  return edgeRows.all(
    db,
    sql`WHERE (src, dst, type) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(${list}))`,
  );
}

/** The revisions with these row ids, in no particular order; unknown ids are left out. */
export async function revisionsByRowIds(db: Db, ids: readonly number[]): Promise<RevisionRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(revisions)
    .where(inArray(revisions.id, [...ids]));
}

/** The ids among `ids` that a SUPERSEDES edge points at. */
export async function supersededAmong(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  // The index holds only SUPERSEDES edges: one probe per id. The type index would visit
  // every SUPERSEDES edge of the workspace, the dst index every edge into each id.
  const rows = await db.all<{ dst: string }>(sql`
    SELECT DISTINCT dst FROM edges INDEXED BY edges_supersedes_idx
    WHERE type = 'SUPERSEDES' AND dst IN ${jsonList(ids)}`);
  return new Set(rows.map((r) => r.dst));
}

/** What a one-line summary of an entry reads: its id, its kind and the start of its text. */
export interface EntryHead {
  id: string;
  kind: EntryRow['kind'];
  head: string;
}

/** Characters of an entry's text an EntryHead holds. */
export const ENTRY_HEAD_CHARS = 960;

const HEAD_COLUMNS = {
  id: entries.id,
  kind: entries.kind,
  head: sql<string>`substr(${entries.content}, 1, ${ENTRY_HEAD_CHARS})`,
};

/**
 * The first `n` entries of a brief's list (`recentEntries`, `importantEntries`,
 * `staleEntries`, in their orders), as heads: a brief's text shows a line of each, and
 * reading each whole text for it moved 100,000 characters an entry.
 */
export function entryHeads(
  db: Db,
  list: 'recent' | 'important' | 'stale',
  n: number,
  now: number,
): Promise<EntryHead[]> {
  const q = db.select(HEAD_COLUMNS).from(entries);
  if (list === 'recent') return q.orderBy(...RECENT_ORDER).limit(n);
  const [first, order] =
    list === 'important' ? [importantFirst(n), IMPORTANT_ORDER] : [staleFirst(now, n), STALE_ORDER];
  return q.where(inArray(entries.n, first)).orderBy(...order);
}

const RECENT_ORDER = [desc(entries.createdAt), desc(entries.n)];

/** Newest first by created_at, ties in reverse insertion order. */
export async function recentEntries(
  db: Db,
  n: number,
  tag?: string | null,
  { columns = null }: { columns?: readonly (keyof EntryRow)[] | null } = {},
): Promise<EntryRow[]> {
  checkRange(n, LIMITS.recentN, 'n');
  const tagged = tag == null ? sql`` : await newestTagged(db, normalizeTag(tag), n);
  // Only these columns (and the id) of each row, for a caller that knows which fields it
  // shows: `recent(n: 200) { id }` over long texts would otherwise move every text.
  const keys = columns ? [...new Set<keyof EntryRow>(['id', ...columns])] : null;
  const reader = keys ? entryRows.only(keys) : entryRows;
  const names = keys ? sql.raw(keys.map((k) => `e.${ENTRY_COLUMNS[k].name}`).join(', ')) : sql.raw('e.*');
  const withText = keys === null || keys.includes('content');
  const rest = sql`${tagged}ORDER BY e.created_at DESC, e.n DESC LIMIT ${n}`;
  const read = reader.read as (row: Record<string, unknown>) => EntryRow;
  // With their text, more rows than a statement reads come a few a statement, in order.
  if (withText && n > TEXT_ROWS_PER_STATEMENT) return entriesInOrder(db, rest, names, read);
  return (await db.all<Record<string, unknown>>(sql`SELECT ${names} FROM entries e ${rest}`)).map(read);
}

/**
 * How recentEntries picks the newest `n` entries with `tag` (a WHERE clause for `entries e`):
 * from the newest entry back, keeping those with the tag, when many carry it; from the tag's
 * entries, sorted by their time alone, when few do. Each way alone is slow for the other
 * kind of tag: at a million entries, sorting a tag on 27% of them took 310 ms, and walking
 * back to twenty entries of a rare tag reads every entry.
 */
async function newestTagged(db: Db, tag: string, n: number): Promise<SQL> {
  const [row] = await db.all<{ c: number }>(
    sql`SELECT count(*) AS c FROM (SELECT 1 FROM ${tags} WHERE ${tags.tag} = ${tag} LIMIT ${FEW_TAGGED + 1})`,
  );
  if (Number(row?.c ?? 0) > FEW_TAGGED)
    return sql`WHERE EXISTS (SELECT 1 FROM tags t WHERE t.entry_id = e.id AND t.tag = ${tag}) `;
  return sql`WHERE e.n IN (SELECT f.n FROM tags t JOIN entries f ON f.id = t.entry_id WHERE t.tag = ${tag}
    ORDER BY f.created_at DESC, f.n DESC LIMIT ${n}) `;
}

/** Up to this many entries with a tag, recentEntries sorts them (see newestTagged). */
export const FEW_TAGGED = 2_000;

export interface TagCount {
  tag: string;
  count: number;
}

/** The opaque cursor of a tag: its place in the most-used-first order. */
export const tagCursor = (t: TagCount): string => encodeCursor('tags', [t.count, t.tag]);

/**
 * Every tag with the number of entries carrying it, most used first (ties by name), after
 * the tag whose cursor is `after`. A tag whose count changes between pages moves.
 */
export async function tagCounts(db: Db, limit?: number, after?: string | null): Promise<TagCount[]> {
  const position = after == null ? null : decodeCursor(after, 'tags', ['integer', 'string'], 'after');
  // Past the cursor's tag in the order: fewer entries, or as many and a later name. Read
  // from tag_counts' index in that order (drizzle/0010_counts.sql), not grouped from tags.
  const past = position ? sql`WHERE n <= ${position[0]} AND (n < ${position[0]} OR tag > ${position[1]})` : sql``;
  // One row of JSON, not a row a tag: 30 aliases of 10,000 tags mapped 300,000 rows on the
  // request thread one by one. Its objects are the answer's, as JSON.parse makes them.
  const [row] = await db.all<{ packed: string }>(sql`
    SELECT json_group_array(json_object('tag', tag, 'count', n) ORDER BY n DESC, tag) AS packed FROM (
      SELECT tag, n FROM tag_counts ${past} ORDER BY n DESC, tag LIMIT ${limit ?? -1})`);
  return JSON.parse(row!.packed) as TagCount[];
}

export async function countEntries(
  db: Db,
  f: { kind?: EntryKind | null; status?: EntryStatus | null; tag?: string | null },
): Promise<number> {
  // One filter, or none, is a count triggers keep (drizzle/0010_counts.sql): through the
  // entries, a tag on 27% of a million entries took 350 ms.
  const only = [f.kind, f.status, f.tag].filter((x) => x != null).length <= 1;
  if (only) {
    const kept =
      f.tag != null
        ? sql`SELECT n FROM tag_counts WHERE tag = ${normalizeTag(f.tag)}`
        : f.kind
          ? sql`SELECT n FROM row_counts WHERE dim = 'kind' AND key = ${f.kind}`
          : f.status
            ? sql`SELECT n FROM row_counts WHERE dim = 'status' AND key = ${f.status}`
            : sql.raw(`SELECT ${totalOf('kind')}`);
    const [row] = await db.all<{ n: number }>(sql`SELECT coalesce((${kept}), 0) AS n`);
    return Number(row?.n ?? 0);
  }
  const conds = [];
  if (f.kind) conds.push(eq(entries.kind, f.kind));
  if (f.status) conds.push(eq(entries.status, f.status));
  if (f.tag != null) {
    conds.push(
      sql`EXISTS (SELECT 1 FROM ${tags} WHERE ${tags.entryId} = ${entries.id} AND ${tags.tag} = ${normalizeTag(f.tag)})`,
    );
  }
  const [row] = await db
    .select({ n: count() })
    .from(entries)
    .where(conds.length ? and(...conds) : undefined);
  return row?.n ?? 0;
}

export interface CountBy {
  key: string;
  count: number;
}

export interface WorkspaceStats {
  entries: number;
  edges: number;
  tags: number;
  revisions: number;
  byKind: CountBy[];
  byStatus: CountBy[];
  byVolatility: CountBy[];
  byClaimTag: CountBy[];
  edgesByType: CountBy[];
  oldestAt: number | null;
  newestAt: number | null;
}

/**
 * The counts of one dimension of row_counts (drizzle/0010_counts.sql), most first (ties by
 * value), as a JSON array of [value, count].
 */
const countsOf = (dim: string) =>
  `(SELECT json_group_array(json_array(key, n) ORDER BY n DESC, key) FROM row_counts WHERE dim = '${dim}' AND n > 0)`;
const totalOf = (dim: string) => `(SELECT coalesce(sum(n), 0) FROM row_counts WHERE dim = '${dim}')`;

/**
 * Every count of workspaceStats in one statement, one JSON object: one read, on one
 * snapshot, whose SQL is built once (as nine drizzle queries, building them took the request
 * thread ~80 µs each, and a document of 30 briefs asked for 270). The counts come from
 * row_counts and tag_counts, which triggers keep in step with every write: grouping every
 * entry, edge and tag row took 420–760 ms at a million entries.
 */
const STATS_SQL = sql.raw(`SELECT json_object(
  'entries', ${totalOf('kind')},
  'oldest', (SELECT min(created_at) FROM entries),
  'newest', (SELECT max(created_at) FROM entries),
  'edges', ${totalOf('edge_type')},
  'tags', (SELECT count(*) FROM tag_counts),
  'revisions', ${totalOf('revisions')},
  'byKind', ${countsOf('kind')},
  'byStatus', ${countsOf('status')},
  'byVolatility', ${countsOf('volatility')},
  'byClaimTag', ${countsOf('claim_tag')},
  'edgesByType', ${countsOf('edge_type')}
) AS stats`);

interface PackedStats {
  entries: number;
  oldest: number | null;
  newest: number | null;
  edges: number;
  tags: number;
  revisions: number;
  byKind: [string, number][];
  byStatus: [string, number][];
  byVolatility: [string, number][];
  byClaimTag: [string, number][];
  edgesByType: [string, number][];
}

const countBy = ([key, count]: [string, number]): CountBy => ({ key, count });

export async function workspaceStats(db: Db): Promise<WorkspaceStats> {
  const [row] = await db.all<{ stats: string }>(STATS_SQL);
  const p = JSON.parse(row!.stats) as PackedStats;
  return {
    entries: p.entries,
    edges: p.edges,
    tags: p.tags,
    revisions: p.revisions,
    byKind: p.byKind.map(countBy),
    byStatus: p.byStatus.map(countBy),
    byVolatility: p.byVolatility.map(countBy),
    byClaimTag: p.byClaimTag.map(countBy),
    edgesByType: p.edgesByType.map(countBy),
    oldestAt: p.oldest,
    newestAt: p.newest,
  };
}

/** The most important entries that are still in force. */
export async function importantEntries(db: Db, n: number): Promise<EntryRow[]> {
  return db
    .select()
    .from(entries)
    .where(inArray(entries.n, importantFirst(n)))
    .orderBy(...IMPORTANT_ORDER);
}

const IMPORTANT_ORDER = [desc(entries.importance), desc(entries.updatedAt), desc(entries.n)];
const STALE_ORDER = [asc(entries.updatedAt), asc(entries.n)];

/*
 * The first entries of a brief's lists are picked by row number, from the lists' partial
 * indexes (drizzle/0009_brief_lists.sql), whose conditions each statement repeats word for
 * word: SQLite uses a partial index only for a query whose WHERE holds its condition.
 * Without them, the important list sorted every entry in force and the stale list every
 * ACTIVE and STALE one: 320 and 370 ms at a million entries, against under a millisecond.
 * INDEXED BY keeps the planner, which has no statistics, off the status index.
 */

/** The `n` most important entries in force (ACTIVE or CANONICAL), by row number, as a subquery. */
const importantFirst = (n: number): SQL =>
  sql`(SELECT n FROM entries INDEXED BY entries_important_idx WHERE status IN ('ACTIVE', 'CANONICAL') ORDER BY importance DESC, updated_at DESC, n DESC LIMIT ${n})`;

/**
 * The `n` stale entries updated longest ago, by row number: those marked STALE, and the
 * ACTIVE ones past their volatility's age limit at `now` (VOLATILITY_MAX_AGE_MS; DURABLE
 * has none), as a subquery. Each part reads the first `n` of its own index range.
 */
function staleFirst(now: number, n: number): SQL {
  const aging = (volatility: 'EVOLVING' | 'EPHEMERAL') =>
    sql`SELECT * FROM (SELECT n, updated_at FROM entries INDEXED BY entries_aging_idx
      WHERE status = 'ACTIVE' AND volatility IN ('EVOLVING', 'EPHEMERAL')
        AND volatility = ${volatility} AND updated_at < ${now - (VOLATILITY_MAX_AGE_MS[volatility] ?? 0)}
      ORDER BY volatility, updated_at, n LIMIT ${n})`;
  return sql`(SELECT n FROM (
    SELECT * FROM (SELECT n, updated_at FROM entries INDEXED BY entries_stale_idx WHERE status = 'STALE' ORDER BY updated_at, n LIMIT ${n})
    UNION ALL ${aging('EVOLVING')}
    UNION ALL ${aging('EPHEMERAL')}
  ) ORDER BY updated_at, n LIMIT ${n})`;
}

/** Entries marked STALE, or ACTIVE past their volatility limit at `now`. */
export async function staleEntries(db: Db, n: number, now: number): Promise<EntryRow[]> {
  return db
    .select()
    .from(entries)
    .where(inArray(entries.n, staleFirst(now, n)))
    .orderBy(...STALE_ORDER);
}
