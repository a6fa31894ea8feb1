import { type SQL, sql } from 'drizzle-orm';
import { GRAPH_WALK } from '../contract/policy.ts';
import type { Db } from '../db/client.ts';
import { edgeRows, jsonList } from '../db/rows.ts';
import type { EdgeRow } from '../db/schema.ts';
import { RANKING_POLICY } from './policy.ts';

/** A node reached by a graph walk. */
export interface WalkNode {
  id: string;
  /** Edges from the nearest seed (0 for a seed). */
  hop: number;
  /** seed score × decayPerHop^hop × the weights of the edges on the way. */
  score: number;
  /** The edge the walk arrived by (null for a seed). */
  viaEdge: EdgeRow | null;
  /** That edge's [src, dst, type], also when `viaEdges` is off (its row can then come from edgesAmong). */
  viaEnds: [src: string, dst: string, type: string] | null;
}

export interface WalkResult {
  /** Seeds first, then by hop, then by score (best first). */
  nodes: WalkNode[];
  /** True when the fanout or the node cap left a node within `hops` out. */
  truncated: boolean;
  /** With `checkSeeds`: the seeds that are not entries, in seed order (the walk then returns no nodes). */
  missing?: string[];
}

export interface WalkOptions {
  fanout?: number;
  nodeCap?: number;
  decayPerHop?: number;
  /**
   * Work out `truncated` exactly (a few extra small queries). Recall does not need it;
   * graphView does.
   */
  checkTruncation?: boolean;
  /** Load the edge each node was reached by (`viaEdge`; one more query). Default true. */
  viaEdges?: boolean;
  /**
   * Find out which seeds are entries (`missing`), in the statement that reads their edges
   * when the stored lists serve the fanout.
   */
  checkSeeds?: boolean;
  /**
   * Leave out INFERRED edges (made from embedding cosines): recall with the vector arm on
   * counts the cosine there, once. Read from the edges table, not the stored lists.
   */
  skipInferred?: boolean;
}

export type WalkSeed = string | { id: string; score: number };

/**
 * How many of each entry's heaviest edges the entry_neighbours table keeps (drizzle/0002):
 * walks with a fanout up to this read one short row per node; wider ones rank the edges.
 */
export const STORED_FANOUT = GRAPH_WALK.fanout;

/** One edge as a walk sees it from the node it expands: [other end, type, 1 if outgoing, weight]. */
type Step = [other: string, type: string, out: 0 | 1, weight: number | string];

interface Reached {
  hop: number;
  score: number;
  /** The edge it was reached by, from `from`'s side (null for a seed). */
  from: string | null;
  step: Step | null;
}

/**
 * Walks typed edges in both directions from the seeds, to depth `hops`, following at most
 * `fanout` edges per node (heaviest first, then oldest) and returning at most `nodeCap`
 * nodes. Safe on cycles: a node keeps its nearest hop and its best score there, which is
 * the best score of a node one hop nearer times the decay times the edge weight.
 *
 * Breadth first, one query per hop: each node is expanded once, however many paths reach
 * it, and its heaviest edges come precomputed from entry_neighbours, where the
 * equivalent recursive CTE expands a node once per path and ranks each node's edges every
 * time (the bench compares the two; see the README's performance section).
 *
 * @example
 * const { nodes, truncated } = await walkGraph(db, ['0193a…'], 2, { fanout: 8, nodeCap: 50, checkTruncation: true });
 * nodes[1]; // { id: '0193b…', hop: 1, score: 0.6, viaEdge: { src: '0193a…', dst: '0193b…', type: 'FOLLOWS', ... } }
 */
export async function walkGraph(
  db: Db,
  seeds: readonly WalkSeed[],
  hops: number,
  options: WalkOptions = {},
): Promise<WalkResult> {
  const fanout = options.fanout ?? RANKING_POLICY.graph.fanout;
  const nodeCap = options.nodeCap ?? RANKING_POLICY.graph.nodeCap;
  const decay = options.decayPerHop ?? RANKING_POLICY.graph.decayPerHop;

  const reached = new Map<string, Reached>();
  for (const s of seeds) {
    const [id, score] = typeof s === 'string' ? [s, 1] : [s.id, s.score];
    const known = reached.get(id);
    if (!known || score > known.score) reached.set(id, { hop: 0, score, from: null, step: null });
  }
  if (reached.size === 0) return { nodes: [], truncated: false };

  const seedIds = [...reached.keys()];
  let first: Map<string, Step[]> | null = null;
  if (options.checkSeeds) {
    const seen = await seedEdges(db, seedIds, hops > 0 ? fanout : 0);
    const missing = seedIds.filter((id) => !seen.found.has(id));
    if (missing.length > 0) return { nodes: [], truncated: false, missing };
    first = seen.edges;
  }
  let frontier = seedIds;
  // Nodes sort by hop first: once more than nodeCap are reached, every node a further hop
  // would add sorts after nodeCap others and is cut, so the walk stops there (truncated).
  for (let hop = 0; hop < hops && frontier.length > 0 && reached.size <= nodeCap; hop++) {
    const next: string[] = [];
    const edges = hop === 0 && first ? first : await heaviestEdges(db, frontier, fanout, options.skipInferred ?? false);
    for (const [node, steps] of edges) {
      const base = reached.get(node)!.score * decay;
      for (const step of steps) {
        const child = step[0];
        const score = base * Number(step[3]);
        const known = reached.get(child);
        if (!known) {
          reached.set(child, { hop: hop + 1, score, from: node, step });
          next.push(child);
        } else if (known.hop === hop + 1 && score > known.score) {
          known.score = score;
          known.from = node;
          known.step = step;
        }
      }
    }
    frontier = next;
  }

  const ordered = [...reached].sort(byHopThenScore).slice(0, nodeCap + 1);
  const kept = ordered.slice(0, nodeCap);
  const via = options.viaEdges === false ? new Map<string, EdgeRow>() : await edgesByKey(db, kept);
  const nodes: WalkNode[] = [];
  for (const [id, r] of kept) {
    const viaEnds = r.step ? edgeEnds(r.from!, r.step) : null;
    nodes.push({
      id,
      hop: r.hop,
      score: r.score,
      viaEdge: viaEnds ? (via.get(edgeKey(viaEnds)) ?? null) : null,
      viaEnds,
    });
  }
  let truncated = ordered.length > nodeCap;
  if (!truncated && options.checkTruncation && hops > 0) {
    truncated = await leftOutByFanout(db, seedIds, hops, new Set(nodes.map((n) => n.id)));
  }
  return { nodes, truncated };
}

/**
 * Which of the seeds are entries and, for a fanout the stored lists serve, the first hop's
 * edges of each, in one statement; a larger fanout ranks them in the walk's first hop.
 * A fanout of 0 asks for existence only.
 */
async function seedEdges(
  db: Db,
  seeds: string[],
  fanout: number,
): Promise<{ found: Set<string>; edges: Map<string, Step[]> | null }> {
  const list = JSON.stringify(seeds);
  if (fanout === 0 || fanout > STORED_FANOUT) {
    const rows = await db.all<{ id: string }>(
      sql`SELECT id FROM entries WHERE id IN (SELECT value FROM json_each(${list}))`,
    );
    return { found: new Set(rows.map((r) => r.id)), edges: null };
  }
  const rows = await db.all<{ id: string; top: string | null }>(sql`
    SELECT e.id AS id, n.top AS top
    FROM json_each(${list}) f JOIN entries e ON e.id = f.value
    LEFT JOIN entry_neighbours n ON n.entry_id = f.value`);
  const edges = new Map<string, Step[]>();
  for (const r of rows) if (r.top !== null) edges.set(r.id, (JSON.parse(r.top) as Step[]).slice(0, fanout));
  return { found: new Set(rows.map((r) => r.id)), edges };
}

/**
 * The `fanout` heaviest edges of each node (both directions; weight desc, then oldest),
 * from entry_neighbours when it holds that many, else ranked from the edges table.
 */
async function heaviestEdges(
  db: Db,
  nodes: string[],
  fanout: number,
  skipInferred: boolean,
): Promise<Map<string, Step[]>> {
  const out = new Map<string, Step[]>();
  const list = JSON.stringify(nodes);
  if (fanout <= STORED_FANOUT && !skipInferred) {
    const rows = await db.all<{ id: string; top: string }>(sql`
      SELECT n.entry_id AS id, n.top AS top
      FROM json_each(${list}) f JOIN entry_neighbours n ON n.entry_id = f.value`);
    for (const r of rows) out.set(r.id, (JSON.parse(r.top) as Step[]).slice(0, fanout));
    return out;
  }
  const rows = await db.all<{ node: string; other: string; type: string; out: 0 | 1; weight: number }>(sql`
    SELECT f.value AS node, CASE WHEN ed.src = f.value THEN ed.dst ELSE ed.src END AS other,
      ed.type AS type, ed.src = f.value AS out, ed.weight AS weight
    FROM json_each(${list}) f
    JOIN edges ed ON ed.rowid IN (
      SELECT x.r FROM (
        SELECT rowid AS r, weight, provenance FROM edges WHERE src = f.value
        UNION ALL
        SELECT rowid AS r, weight, provenance FROM edges WHERE dst = f.value
      ) x
      WHERE ${skipInferred ? sql`x.provenance <> 'INFERRED'` : sql`1`}
      ORDER BY x.weight DESC, x.r
      LIMIT ${fanout}
    )
    ORDER BY f.key, ed.weight DESC, ed.rowid`);
  for (const r of rows) {
    const steps = out.get(r.node) ?? [];
    steps.push([r.other, r.type, r.out ? 1 : 0, r.weight]);
    out.set(r.node, steps);
  }
  return out;
}

// At module level, not made per walk: V8 keeps a closure's optimized code only while a
// closure of it lives (see docs/architecture.md#recall).
const byHopThenScore = ([a, x]: [string, Reached], [b, y]: [string, Reached]): number =>
  x.hop - y.hop || y.score - x.score || (a < b ? -1 : a > b ? 1 : 0);

/** The [src, dst, type] of the edge `step` takes from `from`: the key of an edge. */
const edgeEnds = (from: string, [other, type, outgoing]: Step): [string, string, string] =>
  outgoing ? [from, other, type] : [other, from, type];

const edgeKey = (ends: readonly string[]) => ends.join('\u0000');

/** The edges the walk arrived by, keyed by edgeKey, in one statement. */
async function edgesByKey(db: Db, nodes: [string, Reached][]): Promise<Map<string, EdgeRow>> {
  const keys = nodes.flatMap(([, r]) => (r.step ? [edgeEnds(r.from!, r.step)] : []));
  if (keys.length === 0) return new Map();
  const rows = await edgeRows.all(
    db,
    sql`WHERE (src, dst, type) IN (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(${JSON.stringify(keys)}))`,
  );
  return new Map(rows.map((e) => [edgeKey([e.src, e.dst, e.type]), e]));
}

/**
 * Whether a plain breadth-first walk (no fanout, no cap) reaches a node within `hops` that
 * the limited walk did not return. It stops at the first such node, so every frontier is a
 * subset of the returned nodes and each level is one small query.
 */
async function leftOutByFanout(db: Db, seeds: string[], hops: number, returned: Set<string>): Promise<boolean> {
  const seen = new Set(seeds);
  let frontier = seeds;
  for (let hop = 0; hop < hops && frontier.length > 0; hop++) {
    const list = sql.join(
      frontier.map((id) => sql`${id}`),
      sql`, `,
    );
    const rows = await db.all<{ src: string; dst: string }>(
      sql`SELECT src, dst FROM edges WHERE src IN (${list}) OR dst IN (${list})`,
    );
    const next: string[] = [];
    for (const { src, dst } of rows) {
      for (const id of [src, dst]) {
        if (seen.has(id)) continue;
        if (!returned.has(id)) return true;
        seen.add(id);
        next.push(id);
      }
    }
    frontier = next;
  }
  return false;
}

/**
 * Every edge whose two ends are both among `ids` (graphView's edge list; recall's neighbour
 * smoothing). One statement; both ends are matched through their indexes.
 *
 * @example const links = await edgesAmong(db, nodes.map((n) => n.id));
 */
export async function edgesAmong(db: Db, ids: readonly string[]): Promise<EdgeRow[]> {
  if (ids.length < 2) return [];
  return edgeRows.all(db, edgesAmongWhere(ids));
}

/**
 * edgesAmong's statement, to send with other reads (readTogether); its rows map with
 * edgeRows.read.
 */
export function edgesAmongQuery(ids: readonly string[]): SQL {
  return edgeRows.query(edgesAmongWhere(ids));
}

/** The clause after `FROM edges` that picks the edges among `ids`, heaviest first. */
export function edgesAmongWhere(ids: readonly string[]): SQL {
  // Probe by src and filter dst without its index (+): matching both through the unique
  // (src, dst, type) index would probe every pair, n² lookups instead of n. That index
  // still serves the probe, so dst is tested in it and only the edges kept are read from
  // the table (the (src, weight) index the planner prefers reads every edge of each src).
  const list = jsonList(ids);
  return sql`INDEXED BY edges_src_dst_type_unique WHERE src IN ${list} AND +dst IN ${list} ORDER BY weight DESC, src, dst, type`;
}
