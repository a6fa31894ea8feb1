import { type SQL, sql } from 'drizzle-orm';
import { decodeCursor, encodeCursor } from '../contract/cursor.ts';
import { ENTRY_STATUSES, type EntryStatus } from '../contract/enums.ts';
import { badInput } from '../contract/errors.ts';
import { checkRange, filterTags, LIST_PAGES } from '../contract/limits.ts';
import type { Db } from '../db/client.ts';
import { ENTRY_COLUMNS_BUT_CONTENT, entriesInOrder, entryRows, TEXT_ROWS_PER_STATEMENT } from '../db/rows.ts';
import type { EntryRow } from '../db/schema.ts';
import { buildPrefilter, type PrefilterInput } from './prefilter.ts';

export const ENTRY_ORDER_FIELDS = ['CREATED_AT', 'UPDATED_AT', 'OBSERVED_AT'] as const;
export type EntryOrderField = (typeof ENTRY_ORDER_FIELDS)[number];
export const ORDER_DIRECTIONS = ['ASC', 'DESC'] as const;
export type OrderDirection = (typeof ORDER_DIRECTIONS)[number];

/** The sort key of each order; OBSERVED_AT falls back to created_at, as recall's time filter does. */
const SORT_KEY: Record<EntryOrderField, SQL> = {
  CREATED_AT: sql`e.created_at`,
  UPDATED_AT: sql`e.updated_at`,
  OBSERVED_AT: sql`coalesce(e.observed_at, e.created_at)`,
};
const SORT_VALUE: Record<EntryOrderField, (e: EntryRow) => number> = {
  CREATED_AT: (e) => e.createdAt,
  UPDATED_AT: (e) => e.updatedAt,
  OBSERVED_AT: (e) => e.observedAt ?? e.createdAt,
};

/** The listing's filters: recall's prefilter without its time-phrase range, every status by default. */
export type EntryListFilter = Omit<PrefilterInput, 'timeRange'>;

export interface EntryPageRequest {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  filter?: EntryListFilter | null;
  orderBy?: { field?: EntryOrderField | null; direction?: OrderDirection | null } | null;
}

export interface EntryPage {
  edges: { cursor: string; node: EntryRow }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  /** How many entries match the filter, whatever the cursors; counted only when asked for. */
  totalCount: () => Promise<number>;
}

interface Position {
  value: number;
  n: number;
}

/**
 * A page of entries in a total order: the sort key, then the INTEGER PRIMARY KEY `n` in the
 * same direction. Cursors are keyset positions (sort value, n), so a walk over CREATED_AT
 * sees every entry that existed when it began exactly once while others are captured; an
 * entry updated mid-walk moves in the UPDATED_AT order and may be seen twice or not at all.
 * `first`/`after` and `last`/`before` follow the Relay Cursor Connections spec, including
 * `first` with `before` and `last` with `after`.
 *
 * @example
 * const page = await listEntries(db, { first: 20, filter: { tags: ['infra'] } });
 * const next = await listEntries(db, { first: 20, after: page.pageInfo.endCursor });
 */
export async function listEntries(
  db: Db,
  request: EntryPageRequest,
  { text = true }: { text?: boolean } = {},
): Promise<EntryPage> {
  const field = request.orderBy?.field ?? 'CREATED_AT';
  const direction = request.orderBy?.direction ?? 'DESC';
  const { first, last } = pageSize(request);
  const kind = `entries:${field}:${direction}`;
  const after = request.after == null ? null : readPosition(request.after, kind, 'after');
  const before = request.before == null ? null : readPosition(request.before, kind, 'before');
  const filter = listFilter(request.filter);
  const where = buildPrefilter(filter);
  const key = SORT_KEY[field];
  const desc = direction === 'DESC';
  // Entries strictly past `p` in the order (forward) or strictly ahead of it (backward), and
  // the rest. Each is a range of the sort key and a tie-break on n, which SQLite answers
  // from the order's index (key, n); written as row values, `(key, e.n) < (?, ?)`, an
  // expression's index is scanned from its end, and `NOT (…)` scans the table: 140 ms a
  // page at 1M entries.
  const past = (p: Position, forward: boolean) =>
    desc === forward
      ? sql`(${key} <= ${p.value} AND (${key} < ${p.value} OR e.n < ${p.n}))`
      : sql`(${key} >= ${p.value} AND (${key} > ${p.value} OR e.n > ${p.n}))`;
  const notPast = (p: Position, forward: boolean) =>
    desc === forward
      ? sql`(${key} >= ${p.value} AND (${key} > ${p.value} OR e.n >= ${p.n}))`
      : sql`(${key} <= ${p.value} AND (${key} < ${p.value} OR e.n <= ${p.n}))`;
  const conds = [where];
  if (after) conds.push(past(after, true));
  if (before) conds.push(past(before, false));
  const backward = last !== null;
  const size = last ?? first;
  const dir = sql.raw(desc === !backward ? 'DESC' : 'ASC');
  const rows = await selectEntries(
    db,
    sql`${sql.join(conds, sql` AND `)} ORDER BY ${key} ${dir}, e.n ${dir}`,
    size + 1,
    text,
  );
  const more = rows.length > size;
  const nodes = rows.slice(0, size);
  if (backward) nodes.reverse();
  const exists = async (cond: SQL) => (await selectEntries(db, sql`${where} AND ${cond}`, 1, false)).length > 0;
  // Past a cursor, what lies on its other side is asked for only at a page's far end, and
  // costs one indexed probe: it is part of the cursor's position, or not.
  const hasNextPage = backward ? (before ? await exists(notPast(before, false)) : false) : more;
  const hasPreviousPage = backward ? more : after ? await exists(notPast(after, true)) : false;
  const edges = nodes.map((node) => ({ cursor: encodeCursor(kind, [SORT_VALUE[field](node), node.n]), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage,
      hasPreviousPage,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: async () => {
      // Filtered by status alone (every status unless some are named), the count is a sum
      // of the counts triggers keep (drizzle/0010_counts.sql): counting the rows took 88 ms
      // at a million entries.
      const statuses = statusesOnly(filter);
      const [row] = await db.all<{ n: number }>(
        statuses
          ? sql`SELECT coalesce(sum(n), 0) AS n FROM row_counts
              WHERE dim = 'status' AND key IN (SELECT value FROM json_each(${JSON.stringify(statuses)}))`
          : sql`SELECT count(*) AS n FROM entries e WHERE ${where}`,
      );
      return Number(row?.n ?? 0);
    },
  };
}

function pageSize(request: EntryPageRequest): { first: number; last: number | null } {
  const range = LIST_PAGES.entries.range;
  if (request.first != null && request.last != null) {
    throw badInput('give first or last, not both', 'last');
  }
  if (request.last != null) return { first: 0, last: checkRange(request.last, range, 'last') };
  return { first: checkRange(request.first ?? LIST_PAGES.entries.first, range, 'first'), last: null };
}

function readPosition(cursor: string, kind: string, field: string): Position {
  const [value, n] = decodeCursor(cursor, kind, ['integer', 'integer'], field) as [number, number];
  return { value, n };
}

/** The statuses of a filter that holds nothing else (no other field, or only empty ones), else null. */
function statusesOnly(filter: PrefilterInput): readonly EntryStatus[] | null {
  for (const [key, value] of Object.entries(filter)) {
    if (key === 'statuses' || key === 'timeRange') continue;
    if (value == null || (Array.isArray(value) && value.length === 0)) continue;
    return null;
  }
  return filter.statuses ?? null;
}

/** Every status unless some are named: a listing shows DEPRECATED entries too, unlike recall. */
function listFilter(filter: EntryListFilter | null | undefined): PrefilterInput {
  const tags = filterTags(filter?.tags ?? []);
  for (const f of ['since', 'until'] as const) {
    const d = filter?.[f];
    if (d != null && (!(d instanceof Date) || Number.isNaN(d.getTime()))) throw badInput(`${f} is not a valid date`, f);
  }
  const statuses = filter?.statuses && filter.statuses.length > 0 ? filter.statuses : ENTRY_STATUSES;
  return { ...filter, tags, statuses, timeRange: null };
}

/** The entries `rest` selects; with `text` false, every column but the text (read as ''; ENTRY_COLUMNS_BUT_CONTENT). */
async function selectEntries(db: Db, rest: SQL, limit: number, text: boolean): Promise<EntryRow[]> {
  // With their text, more rows than a statement reads come a few a statement, in order.
  if (text && limit > TEXT_ROWS_PER_STATEMENT)
    return entriesInOrder(db, sql`WHERE ${rest} LIMIT ${limit}`, sql`e.*`, entryRows.read);
  const columns = text ? sql`e.*` : sql`${ENTRY_COLUMNS_BUT_CONTENT}, '' AS content`;
  const rows = await db.all<Record<string, unknown>>(
    sql`SELECT ${columns} FROM entries e WHERE ${rest} LIMIT ${limit}`,
  );
  return rows.map(entryRows.read);
}
