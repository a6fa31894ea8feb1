import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { dot } from '../memory/embeddings/embedder.ts';
import type { VectorMatch, VectorMatrix } from '../memory/embeddings/vector-index.ts';
import { RANKING_POLICY } from './policy.ts';

/** Where recall's vector arm gets its vectors: the workspace's matrix and a way to embed the query. */
export interface VectorSource {
  model: string;
  /** The model's MMR floor (its profile's); absent: the ranking policy's. */
  mmrFloor?: number;
  embedQuery(text: string): Promise<Float32Array>;
  vectors(): Promise<VectorMatrix>;
}

/** What the vector arm found, and what it could not do. */
export interface VectorArmResult {
  model: string;
  /** The nearest entries to the query, best first (before hydration's prefilter). */
  ranking: VectorMatch[];
  /** The cosine of any candidate with a vector (null: none yet). */
  cosineOf(id: string): number | null;
  /** The stored vector of any candidate (null: none yet), for MMR's similarity. */
  vectorOf(id: string): Float32Array | null;
  /** How many vectors were searched. */
  searched: number;
  /** Why the arm did not run (the embedder failed), or null. */
  skipped: string | null;
}

/**
 * The vector arm: embeds the query and scans every vector of the workspace (not only the
 * keyword candidates), so an entry that shares no word with the question can still be
 * found. With a narrowing prefilter the scan covers only the entries that pass it;
 * otherwise it takes a few more than it needs and hydration's prefilter drops the rest
 * (only DEPRECATED ones, by default). An embedder that fails leaves recall to the keyword
 * and graph arms, with the reason.
 *
 * @example
 * const arm = await searchVectors(db, source, 'where does she go hiking', prefilter, false);
 * arm.ranking[0]; // { id: '0193…', cosine: 0.71 }
 */
export async function searchVectors(
  db: Db,
  source: VectorSource,
  query: string,
  prefilter: SQL,
  narrowed: boolean,
): Promise<VectorArmResult> {
  const { candidateLimit } = RANKING_POLICY.vector;
  let q: Float32Array;
  try {
    q = await source.embedQuery(query);
  } catch (error) {
    const reason = `vector arm skipped: ${error instanceof Error ? error.message : String(error)}`;
    const none = () => null;
    return { model: source.model, ranking: [], cosineOf: none, vectorOf: none, searched: 0, skipped: reason };
  }
  const matrix = await source.vectors();
  let allowed: Set<string> | null = null;
  if (narrowed) {
    const rows = await db.all<{ id: string }>(sql`SELECT e.id AS id FROM entries e WHERE ${prefilter}`);
    allowed = new Set(rows.map((r) => r.id));
  }
  const ranking = await matrix.search(q, narrowed ? candidateLimit : candidateLimit * 2, allowed);
  const cosineOf = (id: string) => {
    const v = matrix.vectorOf(id);
    return v ? dot(v, q) : null;
  };
  const searched = allowed ? allowed.size : matrix.size;
  return { model: source.model, ranking, cosineOf, vectorOf: (id) => matrix.vectorOf(id), searched, skipped: null };
}
