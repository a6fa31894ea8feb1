import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { jsonList } from '../db/rows.ts';
import { dot, vectorFromBytes } from '../memory/embeddings/embedder.ts';
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
  /** The model's MMR floor (its profile's); absent: the ranking policy's. */
  mmrFloor?: number;
}

/**
 * What the vector arm found, as it crosses to a reader thread: the query's vector and its
 * nearest entries. The vectors of the other candidates are read there, from entry_vectors
 * (the rows the matrix copies, byte for byte): see vectorArmOn.
 */
export interface VectorArmParts {
  model: string;
  dim: number;
  /** The query's vector; null when the arm was skipped. */
  query: Float32Array | null;
  ranking: VectorMatch[];
  searched: number;
  skipped: string | null;
  mmrFloor?: number;
}

/**
 * The vector arm's search, on the thread that holds the workspace's matrix: embeds the
 * query and scans every vector of the workspace (not only the keyword candidates), so an
 * entry that shares no word with the question can still be found. With a narrowing
 * prefilter the scan covers only the entries that pass it; otherwise it takes a few more
 * than it needs and hydration's prefilter drops the rest (only DEPRECATED ones, by
 * default). An embedder that fails leaves recall to the keyword and graph arms, with the
 * reason.
 *
 * @example
 * const { parts } = await nearestVectors(db, source, 'where does she go hiking', prefilter, false);
 * parts.ranking[0]; // { id: '0193…', cosine: 0.71 }
 */
export async function nearestVectors(
  db: Db,
  source: VectorSource,
  query: string,
  prefilter: SQL,
  narrowed: boolean,
): Promise<{ parts: VectorArmParts; matrix: VectorMatrix | null }> {
  const { candidateLimit } = RANKING_POLICY.vector;
  const base = { model: source.model, ...(source.mmrFloor === undefined ? {} : { mmrFloor: source.mmrFloor }) };
  let q: Float32Array;
  try {
    q = await source.embedQuery(query);
  } catch (error) {
    const reason = `vector arm skipped: ${error instanceof Error ? error.message : String(error)}`;
    return { parts: { ...base, dim: 0, query: null, ranking: [], searched: 0, skipped: reason }, matrix: null };
  }
  const matrix = await source.vectors();
  let allowed: Set<string> | null = null;
  if (narrowed) {
    const rows = await db.all<{ id: string }>(sql`SELECT e.id AS id FROM entries e WHERE ${prefilter}`);
    allowed = new Set(rows.map((r) => r.id));
  }
  const ranking = await matrix.search(q, narrowed ? candidateLimit : candidateLimit * 2, allowed);
  const searched = allowed ? allowed.size : matrix.size;
  return { parts: { ...base, dim: matrix.model.dim, query: q, ranking, searched, skipped: null }, matrix };
}

/**
 * The vector arm from its parts, on a reader thread: the stored vectors of the candidates
 * (every id recall may ask a cosine or a vector of) read in one statement.
 */
export async function vectorArmOn(
  db: Db,
  parts: VectorArmParts,
  candidates: readonly string[],
): Promise<VectorArmResult> {
  if (!parts.query || candidates.length === 0) return armOf(parts, () => null);
  const rows = await db.all<{ entry_id: string; vector: ArrayBuffer | Uint8Array }>(sql`
    SELECT entry_id, vector FROM entry_vectors
    WHERE model = ${parts.model} AND dim = ${parts.dim} AND entry_id IN ${jsonList(candidates)}`);
  const stored = new Map<string, Float32Array>();
  for (const row of rows) {
    const u8 = row.vector instanceof Uint8Array ? row.vector : new Uint8Array(row.vector);
    if (u8.byteLength === parts.dim * 4) stored.set(row.entry_id, vectorFromBytes(u8));
  }
  return armOf(parts, (id) => stored.get(id) ?? null);
}

/** The vector arm on the thread that searched it: every candidate's vector is the matrix's. */
export function armFromMatrix(parts: VectorArmParts, matrix: VectorMatrix | null): VectorArmResult {
  return armOf(parts, matrix && parts.query ? (id) => matrix.vectorOf(id) : () => null);
}

function armOf(parts: VectorArmParts, vectorOf: (id: string) => Float32Array | null): VectorArmResult {
  const q = parts.query;
  const cosineOf = (id: string) => {
    const v = q && vectorOf(id);
    return v ? dot(v, q) : null;
  };
  const { model, ranking, searched, skipped, mmrFloor } = parts;
  return { model, ranking, cosineOf, vectorOf, searched, skipped, ...(mmrFloor === undefined ? {} : { mmrFloor }) };
}
