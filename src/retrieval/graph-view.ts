import { sql } from 'drizzle-orm';
import { badInput, notFound } from '../contract/errors.ts';
import type { EdgeSnapshot } from '../contract/events.ts';
import { checkRange, LIMITS } from '../contract/limits.ts';
import { GRAPH_WALK, READ_DEFAULTS } from '../contract/policy.ts';
import type { Db } from '../db/client.ts';
import { edgeSnapshot } from '../db/mappers.ts';
import { edgeRows, entryRows, jsonList, readTogether } from '../db/rows.ts';
import type { EdgeRow, EntryRow } from '../db/schema.ts';
import { edgesAmongQuery, walkGraph } from './graph.ts';

/** An entry in a graph view, with its distance from the nearest seed. */
export interface GraphViewNode {
  id: string;
  /** Edges from the nearest seed (0 for a seed). */
  hop: number;
  /** decayPerHop^hop times the weights of the edges on the way. */
  score: number;
  /** The entry's row, when the view was asked to read it (`withEntries`) and it still exists. */
  entry?: EntryRow;
}

export interface GraphView {
  /** Seeds first, then by hop and score. */
  nodes: GraphViewNode[];
  /** Every edge between two returned nodes, heaviest first. */
  edges: EdgeSnapshot[];
  /** True when the fanout or the node cap left reachable nodes out. */
  truncated: boolean;
}

/**
 * The neighbourhood of some entries: a walk in both directions from the distinct seeds, to
 * depth `hops` (0 to 3), heaviest edges first, within GRAPH_WALK's fanout and node cap, and
 * the edges among the nodes it reached (not only the ones it took). Too many seeds is
 * BAD_USER_INPUT; an unknown seed is NOT_FOUND. With `withEntries`, each node also carries
 * its entry's row, read with the edges in one request (one snapshot).
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
  options: { withEntries?: boolean } = {},
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
    options.withEntries === true,
  );
  for (const node of nodes) {
    const entry = entries.get(node.id);
    if (entry) node.entry = entry;
  }
  return { nodes, edges: edges.map(edgeSnapshot), truncated: walk.truncated };
}

/** The edges among `ids` (edgesAmong) and, if asked, their entries: the reads the walk leaves. */
async function readAmong(
  db: Db,
  ids: string[],
  withEntries: boolean,
): Promise<{ edges: EdgeRow[]; entries: Map<string, EntryRow> }> {
  const queries = [
    ...(ids.length >= 2 ? [edgesAmongQuery(ids)] : []),
    ...(withEntries && ids.length > 0 ? [entryRows.query(sql`WHERE id IN ${jsonList(ids)}`)] : []),
  ];
  const results = await readTogether(db, queries);
  const edges = ids.length >= 2 ? results.shift()!.map(edgeRows.read) : [];
  const entries = new Map<string, EntryRow>();
  for (const row of results.shift() ?? []) {
    const entry = entryRows.read(row);
    entries.set(entry.id, entry);
  }
  return { edges, entries };
}
