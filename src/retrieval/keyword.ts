import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';

/** One FTS5 match, in bm25 order. */
export interface KeywordHit {
  id: string;
  /** 1-based position in the keyword arm. */
  rank: number;
  /** FTS5's bm25(): negative, lower is better. */
  bm25: number;
}

/**
 * The keyword arm (CONTRACT §6.3): FTS5 `MATCH` over the content, ranked by bm25, restricted
 * by the prefilter inside the same statement so that a filtered-out entry never takes a
 * place in the ranking, and bounded to `limit` matches.
 *
 * @example
 * const hits = await searchKeyword(db, '"deploy" OR "friday"', buildPrefilter({}), 100);
 * hits[0]; // { id: '0193…', rank: 1, bm25: -4.2 }
 */
export async function searchKeyword(db: Db, match: string, prefilter: SQL, limit: number): Promise<KeywordHit[]> {
  // The match expression is a bound parameter built by buildMatchExpression (every term
  // quoted), so user text is only ever searched as words.
  const rows = await db.all<{ id: string; bm25: number }>(sql`
    SELECT e.id AS id, bm25(entries_fts) AS bm25
    FROM entries_fts JOIN entries e ON e.n = entries_fts.rowid
    WHERE entries_fts MATCH ${match} AND ${prefilter}
    ORDER BY entries_fts.rank, e.n
    LIMIT ${limit}`);
  return rows.map((r, i) => ({ id: r.id, rank: i + 1, bm25: Number(r.bm25) }));
}
