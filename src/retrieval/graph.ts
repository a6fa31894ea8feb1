import { and, asc, desc, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { type EdgeRow, edges } from '../db/schema.ts';
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
}

export interface WalkResult {
  /** Seeds first, then by hop, then by score (best first). */
  nodes: WalkNode[];
  /** True when the fanout or the node cap left a node within `hops` out. */
  truncated: boolean;
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
}

export type WalkSeed = string | { id: string; score: number };

interface WalkRow {
  id: string;
  hop: number;
  score: number;
  src: string | null;
  dst: string | null;
  type: string | null;
  weight: number | null;
  provenance: string | null;
  metadata: string | null;
  created_at: number | null;
  updated_at: number | null;
}

/**
 * Walks typed edges in both directions from the seeds, to depth `hops`, following at most
 * `fanout` edges per node (heaviest first) and returning at most `nodeCap` nodes. Safe on
 * cycles: a node keeps its nearest hop and best score there.
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

  const seedScores = new Map<string, number>();
  for (const s of seeds) {
    const [id, score] = typeof s === 'string' ? [s, 1] : [s.id, s.score];
    seedScores.set(id, Math.max(score, seedScores.get(id) ?? Number.NEGATIVE_INFINITY));
  }
  if (seedScores.size === 0) return { nodes: [], truncated: false };

  const values = sql.join(
    [...seedScores].map(([id, score]) => sql`(${id}, ${score})`),
    sql`, `,
  );
  // The fanout is a correlated subquery with ORDER BY weight DESC LIMIT fanout, evaluated
  // for each node as the walk expands it, over the edges of both directions at once. A
  // node reached by several paths is expanded once per path; with hops ≤ 3 and fanout 8
  // that stays small, and the outer query keeps each node's nearest hop and best score.
  const rows = await db.all<WalkRow>(sql`
    WITH RECURSIVE
      seeds(id, score) AS (VALUES ${values}),
      walk(id, hop, score, edge) AS (
        SELECT id, 0, score, NULL FROM seeds
        UNION ALL
        SELECT CASE WHEN ed.src = w.id THEN ed.dst ELSE ed.src END, w.hop + 1, w.score * ${decay} * ed.weight, ed.rowid
        FROM walk w
        JOIN edges ed ON ed.rowid IN (
          SELECT x.r FROM (
            SELECT rowid AS r, weight FROM edges WHERE src = w.id
            UNION ALL
            SELECT rowid AS r, weight FROM edges WHERE dst = w.id
          ) x
          ORDER BY x.weight DESC, x.r
          LIMIT ${fanout}
        )
        WHERE w.hop < ${hops}
      ),
      best AS (
        SELECT id, hop, score, edge,
          row_number() OVER (PARTITION BY id ORDER BY hop, score DESC, edge) AS pick
        FROM walk
      )
    SELECT b.id AS id, b.hop AS hop, b.score AS score, ed.src AS src, ed.dst AS dst, ed.type AS type,
      ed.weight AS weight, ed.provenance AS provenance, ed.metadata AS metadata,
      ed.created_at AS created_at, ed.updated_at AS updated_at
    FROM best b LEFT JOIN edges ed ON ed.rowid = b.edge
    WHERE b.pick = 1
    ORDER BY b.hop, b.score DESC, b.id
    LIMIT ${nodeCap + 1}`);

  const nodes: WalkNode[] = rows.slice(0, nodeCap).map((r) => ({
    id: r.id,
    hop: Number(r.hop),
    score: Number(r.score),
    viaEdge:
      r.src === null
        ? null
        : {
            src: r.src,
            dst: r.dst!,
            type: r.type!,
            weight: Number(r.weight),
            provenance: r.provenance!,
            metadata: r.metadata,
            createdAt: Number(r.created_at),
            updatedAt: Number(r.updated_at),
          },
  }));
  let truncated = rows.length > nodeCap;
  if (!truncated && options.checkTruncation && hops > 0) {
    truncated = await leftOutByFanout(db, [...seedScores.keys()], hops, new Set(nodes.map((n) => n.id)));
  }
  return { nodes, truncated };
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
  // Probe by src and filter dst without its index (+): matching both through the unique
  // (src, dst, type) index would probe every pair, n² lookups instead of n.
  return db
    .select()
    .from(edges)
    .where(and(inArray(edges.src, [...ids]), sql`+${edges.dst} IN ${[...ids]}`))
    .orderBy(desc(edges.weight), asc(edges.src), asc(edges.dst), asc(edges.type));
}
