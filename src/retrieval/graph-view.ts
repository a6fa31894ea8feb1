import { sql } from 'drizzle-orm';
import { badInput, notFound } from '../contract/errors.ts';
import type { EdgeSnapshot } from '../contract/events.ts';
import { checkRange, LIMITS } from '../contract/limits.ts';
import { GRAPH_WALK, READ_DEFAULTS } from '../contract/policy.ts';
import { type Db, onReaderThread, taskModuleUrl } from '../db/client.ts';
import { edgeSnapshot } from '../db/mappers.ts';
import { type ColumnReader, edgeRows, entryRows, jsonList, readTogether } from '../db/rows.ts';
import type { EdgeRow, EntryRow } from '../db/schema.ts';
import { edgesAmongWhere, walkGraph } from './graph.ts';
import type { GraphViewArgs } from './read-tasks.ts';

/** An entry's row, or some of its columns (always its id). */
export type EntryPart = Pick<EntryRow, 'id'> & Partial<EntryRow>;
/** An edge, or some of its fields (always its ends and type). */
export type EdgePart = Pick<EdgeSnapshot, 'src' | 'dst' | 'type'> & Partial<EdgeSnapshot>;

export interface GraphViewOptions {
  /**
   * Read each node's entry with the edges (one snapshot): its whole row (true), or only
   * these columns and its id, for a caller that knows which fields it will use.
   */
  entries?: boolean | readonly (keyof EntryRow)[];
  /** Read only these columns of each edge, and its ends and type; every column when absent. */
  edgeColumns?: readonly (keyof EdgeRow)[];
}

/** An entry in a graph view, with its distance from the nearest seed. */
export interface GraphViewNode {
  id: string;
  /** Edges from the nearest seed (0 for a seed). */
  hop: number;
  /** decayPerHop^hop times the weights of the edges on the way. */
  score: number;
  /** The entry's row (or the columns asked for), when the view was asked to read it and it still exists. */
  entry?: EntryPart;
}

export interface GraphView {
  /** Seeds first, then by hop and score. */
  nodes: GraphViewNode[];
  /** Every edge between two returned nodes, heaviest first (with the fields asked for). */
  edges: EdgePart[];
  /** True when the fanout or the node cap left reachable nodes out. */
  truncated: boolean;
}

/**
 * The neighbourhood of some entries: a walk in both directions from the distinct seeds, to
 * depth `hops` (0 to 3), heaviest edges first, within GRAPH_WALK's fanout and node cap, and
 * the edges among the nodes it reached (not only the ones it took). Too many seeds is
 * BAD_USER_INPUT; an unknown seed is NOT_FOUND. With `entries`, each node also carries
 * its entry's row, read with the edges in one request (one snapshot). A view's reads are
 * ~100 rows; converting the values no field will show was a fifth of its time, so a
 * caller may name the columns it needs.
 *
 * @example
 * const view = await graphView(db, ['0193a…'], 1);
 * view.nodes; // [{ id: '0193a…', hop: 0, score: 1 }, { id: '0193b…', hop: 1, score: 0.6 }]
 * view.edges; // [{ src: '0193a…', dst: '0193b…', type: 'FOLLOWS', weight: 1, ... }]
 */
export async function graphView(
  db: Db,
  seedIds: readonly string[],
  hops?: number | null,
  options: GraphViewOptions = {},
): Promise<GraphView> {
  // On a reader thread, when the database has them: the walk's statements (one per hop)
  // then cross between threads once, not one after another.
  const args: GraphViewArgs = { seedIds, hops, options };
  const there = await onReaderThread<GraphView>(db, READ_TASKS, 'graphView', args);
  return there ? there.value : graphViewHere(db, seedIds, hops, options);
}

/** The module a reader thread runs graphView from (see read-tasks.ts). */
const READ_TASKS = taskModuleUrl('read-tasks', import.meta.url);

/** graphView, on the thread it is called on. */
export async function graphViewHere(
  db: Db,
  seedIds: readonly string[],
  hops?: number | null,
  options: GraphViewOptions = {},
): Promise<GraphView> {
  const depth = checkRange(hops ?? READ_DEFAULTS.graphView.hops, LIMITS.hops, 'hops');
  const seeds = [...new Set(seedIds)];
  if (seeds.length > LIMITS.graphSeedsMax) throw badInput(`at most ${LIMITS.graphSeedsMax} seed ids`, 'seedIds');
  const walk = await walkGraph(db, seeds, depth, {
    fanout: GRAPH_WALK.fanout,
    nodeCap: GRAPH_WALK.nodeCap,
    checkTruncation: true,
    // A view lists the edges among its nodes, not the ones the walk took.
    viaEdges: false,
    // Whether the seeds exist comes with their edges; their rows load with the other nodes'.
    checkSeeds: true,
  });
  const missing = walk.missing?.[0];
  if (missing !== undefined) throw notFound(missing);
  const nodes: GraphViewNode[] = walk.nodes.map((n) => ({ id: n.id, hop: n.hop, score: n.score }));
  const { edges, entries } = await readAmong(
    db,
    nodes.map((n) => n.id),
    options,
  );
  for (const node of nodes) {
    const entry = entries.get(node.id);
    if (entry) node.entry = entry;
  }
  return { nodes, edges, truncated: walk.truncated };
}

const EDGE_KEY_COLUMNS: readonly (keyof EdgeRow)[] = ['src', 'dst', 'type'];

/** The edges among `ids` (as edgesAmong) and, if asked, their entries: the reads the walk leaves. */
async function readAmong(
  db: Db,
  ids: string[],
  options: GraphViewOptions,
): Promise<{ edges: EdgePart[]; entries: Map<string, EntryPart> }> {
  const edgeReader = options.edgeColumns ? edgeRows.only([...EDGE_KEY_COLUMNS, ...options.edgeColumns]) : edgeRows;
  const { entries: asked = false } = options;
  const entryReader: ColumnReader<EntryPart> = Array.isArray(asked)
    ? entryRows.only<keyof EntryRow>(['id', ...asked])
    : entryRows;
  const withEdges = ids.length >= 2;
  const withEntries = asked !== false && ids.length > 0;
  const results = await readTogether(db, [
    ...(withEdges ? [edgeReader.query(edgesAmongWhere(ids))] : []),
    ...(withEntries ? [entryReader.query(sql`WHERE id IN ${jsonList(ids)}`)] : []),
  ]);
  const toEdge = options.edgeColumns ? partialSnapshot : edgeSnapshot;
  const edges = withEdges ? results.shift()!.map((row) => toEdge(edgeReader.read(row) as EdgeRow)) : [];
  const entries = new Map<string, EntryPart>();
  for (const row of results.shift() ?? []) {
    const entry = entryReader.read(row);
    entries.set(entry.id, entry);
  }
  return { edges, entries };
}

/** Some columns of an edge's row as its snapshot would have them (edgeSnapshot). */
function partialSnapshot(row: Pick<EdgeRow, 'src' | 'dst' | 'type'> & Partial<EdgeRow>): EdgePart {
  const { metadata, ...rest } = row;
  if (metadata === undefined) return rest;
  return { ...rest, metadata: metadata ? (JSON.parse(metadata) as Record<string, unknown>) : null };
}
