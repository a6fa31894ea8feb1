import { type SQL, sql } from 'drizzle-orm';
import { decodeCursor, encodeCursor } from '../contract/cursor.ts';
import type { Direction, EdgeType } from '../contract/enums.ts';
import type { EdgeSnapshot } from '../contract/events.ts';
import { checkRange, LIST_PAGES } from '../contract/limits.ts';
import type { Db } from '../db/client.ts';
import { edgeSnapshot } from '../db/mappers.ts';
import { edgeRows, pagesPerId } from '../db/rows.ts';
import type { EdgeRow } from '../db/schema.ts';

/** An edge as seen from one of its entries. */
export interface Connection {
  edge: EdgeSnapshot;
  /** OUT or IN from the entry's side; BOTH for the symmetric RELATES_TO. */
  direction: Direction;
  /** The entry at the other end. */
  otherId: string;
}

/** Which of an entry's connections to list, as a client asks. */
export interface ConnectionsRequest {
  type?: EdgeType | null;
  /** OUT or IN; BOTH or absent for all. */
  direction?: Direction | null;
  first?: number | null;
  /** A connection's cursor: list only those after it. */
  after?: string | null;
}

/** A checked request: `first` is within LIST_PAGES.connections. */
export interface ConnectionsPage {
  type: EdgeType | null;
  direction: Direction | null;
  first: number;
  after: EdgeRank | null;
}

/**
 * An edge's place in the heaviest-first order: weight descending, then oldest first, then
 * src, dst and type, which together are unique. A weight that changes between pages moves
 * its edge, so a walk may see it twice or miss it.
 */
type EdgeRank = [weight: number, createdAt: number, src: string, dst: string, type: string];

const rankOf = (e: Pick<EdgeRow, 'weight' | 'createdAt' | 'src' | 'dst' | 'type'>): EdgeRank => [
  e.weight,
  e.createdAt,
  e.src,
  e.dst,
  e.type,
];

/** Whether `a` comes after `b` in the heaviest-first order. */
function rankedAfter(a: EdgeRank, b: EdgeRank): boolean {
  if (a[0] !== b[0]) return a[0] < b[0];
  for (let i = 1; i < a.length; i++) if (a[i] !== b[i]) return (a[i] ?? '') > (b[i] ?? '');
  return false;
}

/** The opaque cursor of a connection: its edge's place in the heaviest-first order. */
export function connectionCursor(c: Connection): string {
  return encodeCursor('connections', rankOf(c.edge));
}

/** Checks a connections request before anything is read. */
export function connectionsPage(request: ConnectionsRequest): ConnectionsPage {
  const first = checkRange(request.first ?? LIST_PAGES.connections.first, LIST_PAGES.connections.range, 'first');
  const after =
    request.after == null
      ? null
      : (decodeCursor(
          request.after,
          'connections',
          ['number', 'integer', 'string', 'string', 'string'],
          'after',
        ) as EdgeRank);
  return { type: request.type ?? null, direction: request.direction ?? null, first, after };
}

/**
 * The first `page.first` of the edges touching `entryId` that match the page's type and
 * direction (and lie after its cursor), as connections from that entry, in the order
 * given (heaviest first, as connectionPages reads them). A
 * RELATES_TO edge runs both ways, so every direction filter keeps it.
 */
export function connectionsOf(entryId: string, edges: readonly EdgeRow[], page: ConnectionsPage): Connection[] {
  const out: Connection[] = [];
  for (const e of edges) {
    if (out.length >= page.first) break;
    if (page.type && e.type !== page.type) continue;
    if (page.after && !rankedAfter(rankOf(e), page.after)) continue;
    const dir: Direction = e.type === 'RELATES_TO' ? 'BOTH' : e.src === entryId ? 'OUT' : 'IN';
    if (page.direction && page.direction !== 'BOTH' && dir !== 'BOTH' && dir !== page.direction) continue;
    out.push({ edge: edgeSnapshot(e), direction: dir, otherId: e.src === entryId ? e.dst : e.src });
  }
  return out;
}

/**
 * The edges of each entry's page of connections, heaviest first: what `connectionsOf` lists
 * for `page`, read in SQL with a LIMIT per entry, so a hub with thousands of edges costs
 * what its page holds.
 */
export function connectionPages(
  db: Db,
  ids: readonly string[],
  page: ConnectionsPage,
): Promise<Map<string, EdgeRow[]>> {
  const pageOf = (id: string) => {
    const where = sql.join([sql`(src = ${id} OR dst = ${id})`, ...pageConditions(id, page)], sql` AND `);
    return edgeRows.query(sql`WHERE ${where} ORDER BY weight DESC, created_at, src, dst, type LIMIT ${page.first}`);
  };
  return pagesPerId(db, ids, pageOf, edgeRows.read);
}

/** The page's type, direction and cursor as SQL over the edges of entry `id` (see connectionsOf). */
function pageConditions(id: string, page: ConnectionsPage): SQL[] {
  const conditions: SQL[] = [];
  if (page.type) conditions.push(sql`type = ${page.type}`);
  if (page.direction === 'OUT') conditions.push(sql`(type = 'RELATES_TO' OR src = ${id})`);
  if (page.direction === 'IN') conditions.push(sql`(type = 'RELATES_TO' OR dst = ${id})`);
  if (page.after) {
    const [weight, createdAt, src, dst, type] = page.after;
    conditions.push(
      sql`(weight < ${weight} OR (weight = ${weight} AND (created_at, src, dst, type) > (${createdAt}, ${src}, ${dst}, ${type})))`,
    );
  }
  return conditions;
}
