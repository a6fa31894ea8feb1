import type { Direction, EdgeType } from '../contract/enums.ts';
import type { EdgeSnapshot } from '../contract/events.ts';
import { checkRange, LIST_PAGES } from '../contract/limits.ts';
import { edgeSnapshot } from '../db/mappers.ts';
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
}

/** A checked request: `first` is within LIST_PAGES.connections. */
export interface ConnectionsPage {
  type: EdgeType | null;
  direction: Direction | null;
  first: number;
}

/** Checks a connections request before anything is read. */
export function connectionsPage(request: ConnectionsRequest): ConnectionsPage {
  const first = checkRange(request.first ?? LIST_PAGES.connections.first, LIST_PAGES.connections.range, 'first');
  return { type: request.type ?? null, direction: request.direction ?? null, first };
}

/**
 * The first `page.first` of the edges touching `entryId` that match the page's type and
 * direction, as connections from that entry, in the order given (heaviest first). A
 * RELATES_TO edge runs both ways, so every direction filter keeps it.
 */
export function connectionsOf(entryId: string, edges: readonly EdgeRow[], page: ConnectionsPage): Connection[] {
  const out: Connection[] = [];
  for (const e of edges) {
    if (out.length >= page.first) break;
    if (page.type && e.type !== page.type) continue;
    const dir: Direction = e.type === 'RELATES_TO' ? 'BOTH' : e.src === entryId ? 'OUT' : 'IN';
    if (page.direction && page.direction !== 'BOTH' && dir !== 'BOTH' && dir !== page.direction) continue;
    out.push({ edge: edgeSnapshot(e), direction: dir, otherId: e.src === entryId ? e.dst : e.src });
  }
  return out;
}
