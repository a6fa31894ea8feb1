import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { searchKeywordByImpact } from './impact.ts';

/** How long a workspace's database is taken to have no impact lists before it is asked again. */
const IMPACT_PROBE_MS = 60_000;
const impactProbes = new WeakMap<Db, { empty: boolean; at: number; asking?: boolean }>();

async function probeImpactLists(db: Db): Promise<boolean> {
  const [row] = await db.all<{ some: number }>(sql`SELECT EXISTS (SELECT 1 FROM impact_terms) AS some`);
  const empty = !row?.some;
  impactProbes.set(db, { empty, at: Date.now() });
  return !empty;
}

/**
 * Whether the impact index may answer: a workspace under its size threshold (or never
 * reindexed) has no lists, and asking costs a round trip per recall on a hosted database.
 * The answer is remembered; once it is a minute old, recall goes on with it while the
 * database is asked again beside it, so lists built meanwhile (reindex, import from another
 * process) are used within a minute and only a database's first recall waits for the answer.
 */
async function mayHaveImpactLists(db: Db): Promise<boolean> {
  const known = impactProbes.get(db);
  if (!known) return probeImpactLists(db);
  if (Date.now() - known.at >= IMPACT_PROBE_MS && !known.asking) {
    known.asking = true;
    probeImpactLists(db).catch(() => {
      known.asking = false;
    });
  }
  return !known.empty;
}

/** One FTS5 match, in bm25 order. */
export interface KeywordHit {
  id: string;
  /** 1-based position in the keyword arm. */
  rank: number;
  /** FTS5's bm25(): negative, lower is better. */
  bm25: number;
}

/**
 * The keyword arm (CONTRACT §6.3): FTS5 `MATCH` over the content, ranked by bm25 (ties by
 * insertion order), restricted by the prefilter so that a filtered-out entry never takes a
 * place in the ranking, and bounded to `limit` matches.
 *
 * The best `2 × limit` matches are ranked inside FTS5 first and only those are joined to
 * their entries: joining every match before ranking cost more than the ranking itself for
 * common words in large workspaces. When the prefilter leaves fewer than
 * `limit` of that window, the whole match set is filtered and ranked instead, so the result
 * is always exactly the first `limit` matches that pass.
 *
 * Given the terms `match` was built from, the impact index answers first where it can
 * (searchKeywordByImpact: the same hits without ranking every match of a frequent word).
 *
 * @example
 * const hits = await searchKeyword(db, '"deploy" OR "friday"', buildPrefilter({}), 100);
 * hits[0]; // { id: '0193…', rank: 1, bm25: -4.2 }
 */
export async function searchKeyword(
  db: Db,
  match: string,
  prefilter: SQL,
  limit: number,
  terms?: readonly string[],
): Promise<KeywordHit[]> {
  if (terms && (await mayHaveImpactLists(db))) {
    const fast = await searchKeywordByImpact(db, terms, prefilter, limit);
    if (fast) return fast;
  }
  // The match expression is a bound parameter built by buildMatchExpression (every term
  // quoted), so user text is only ever searched as words. ORDER BY bm25 rather than FTS5's
  // `rank`: SQLite then keeps only the best rows while scanning instead of sorting them all.
  // The last row (id NULL) says how many matches the window held: fewer than it can hold
  // means it held every match, and what passed the prefilter is already the whole answer.
  const window = 2 * limit;
  const answer = await db.all<{ id: string | null; bm25: number; n: number }>(sql`
    WITH f AS MATERIALIZED (
      SELECT rowid AS n, bm25(entries_fts) AS bm25 FROM entries_fts
      WHERE entries_fts MATCH ${match}
      ORDER BY bm25, rowid
      LIMIT ${window}
    )
    SELECT id, bm25, n, 0 AS last FROM (
      SELECT e.id AS id, f.bm25 AS bm25, f.n AS n
      FROM f JOIN entries e ON e.n = f.n
      WHERE ${prefilter}
      ORDER BY f.bm25, f.n
      LIMIT ${limit}
    )
    UNION ALL SELECT NULL, NULL, (SELECT count(*) FROM f), 1
    ORDER BY last, bm25, n`);
  const held = Number(answer.at(-1)?.n ?? 0);
  let rows = answer.slice(0, -1) as { id: string; bm25: number }[];
  if (rows.length < limit && held >= window) {
    rows = await db.all<{ id: string; bm25: number }>(sql`
      SELECT e.id AS id, bm25(entries_fts) AS bm25
      FROM entries_fts JOIN entries e ON e.n = entries_fts.rowid
      WHERE entries_fts MATCH ${match} AND ${prefilter}
      ORDER BY bm25(entries_fts), e.n
      LIMIT ${limit}`);
  }
  const hits: KeywordHit[] = [];
  for (const r of rows) hits.push({ id: r.id, rank: hits.length + 1, bm25: Number(r.bm25) });
  return hits;
}
