/**
 * The impact index in process, on the run's database file: how often the keyword arm stops
 * early on the query mix, whether it then returns exactly FTS5's exhaustive ranking, and
 * how recall's top 10 compare with recall's top 10 when every query is ranked exhaustively
 * (the same recall, in a transaction that empties the index's term list and rolls back).
 */
import { sql, TransactionRollbackError } from 'drizzle-orm';
import { type Db, drizzleFor, openClient } from '../../src/db/client.ts';
import { searchKeywordByImpact } from '../../src/retrieval/impact.ts';
import { searchKeyword } from '../../src/retrieval/keyword.ts';
import { recallEntries } from '../../src/retrieval/pipeline.ts';
import { RANKING_POLICY } from '../../src/retrieval/policy.ts';
import { buildPrefilter } from '../../src/retrieval/prefilter.ts';
import { buildMatchExpression, extractTerms } from '../../src/retrieval/query.ts';
import { type LatencySummary, summarize } from './util.ts';

export interface ImpactMeasure {
  queries: number;
  /** Queries whose keyword arm the impact index answered (the rest went to FTS5 whole). */
  earlyStops: number;
  /** Of those, how many returned FTS5's exhaustive hits exactly (ids, order, bm25). */
  armIdentical: number;
  /** Mean share of the exhaustive recall's top 10 that recall's top 10 holds. */
  overlap: number;
  /** Queries whose top 10 were identical, in order. */
  identicalTop10: number;
  /** The keyword arm as recall runs it (the index, then FTS5 whole when it declines). */
  fastArm: LatencySummary;
  /** The keyword arm ranked by FTS5 whole. */
  exhaustiveArm: LatencySummary;
  index: { terms: number; postings: number; entryRows: number; bytes: Record<string, number> | null };
}

const TOP = 10;

/**
 * Recall with the index hidden: its terms deleted in a write transaction that is rolled
 * back. The server on the same file writes too (recall counts), and runs have stopped on
 * SQLITE_BUSY here after the busy timeout: the transaction is tried again, a second apart.
 */
async function exhaustiveRecall(db: Db, query: string, now: Date) {
  for (let attempt = 1; ; attempt++) {
    let out: Awaited<ReturnType<typeof recallEntries>> | null = null;
    try {
      await db.transaction(async (tx) => {
        await tx.run(sql`DELETE FROM impact_terms`);
        out = await recallEntries(tx, { query, topK: TOP, hops: 1 }, now);
        tx.rollback();
      });
    } catch (error) {
      const busy = (error as { code?: string }).code === 'SQLITE_BUSY';
      if (busy && attempt < 10) {
        console.error(`  exhaustive recall: database busy (attempt ${attempt}), trying again in 1 s`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        continue;
      }
      if (!(error instanceof TransactionRollbackError)) throw error;
    }
    return out!;
  }
}

async function indexSize(db: Db): Promise<ImpactMeasure['index']> {
  const [counts] = await db.all<{ terms: number; postings: number; rows: number }>(sql`SELECT
    (SELECT count(*) FROM impact_terms) AS terms, (SELECT count(*) FROM impact_postings) AS postings,
    (SELECT count(*) FROM impact_docs) AS rows`);
  let bytes: Record<string, number> | null = null;
  try {
    const rows = await db.all<{ name: string; bytes: number }>(
      sql`SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'impact%' GROUP BY name`,
    );
    bytes = Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)]));
  } catch {
    // dbstat is optional in SQLite builds.
  }
  return {
    terms: Number(counts?.terms),
    postings: Number(counts?.postings),
    entryRows: Number(counts?.rows),
    bytes,
  };
}

export async function measureImpact(file: string, queries: readonly string[]): Promise<ImpactMeasure> {
  const client = await openClient({ url: `file:${file}`, local: true });
  const db = drizzleFor(client) as unknown as Db;
  const now = new Date();
  const limit = RANKING_POLICY.keyword.candidateLimit;
  let earlyStops = 0;
  let armIdentical = 0;
  let overlapSum = 0;
  let identicalTop10 = 0;
  const fastMs: number[] = [];
  const slowMs: number[] = [];
  try {
    for (const q of queries) {
      const terms = extractTerms(q).terms;
      const prefilter = buildPrefilter({});
      let t0 = performance.now();
      const fast = await searchKeywordByImpact(db, terms, prefilter, limit);
      const fastTook = performance.now() - t0;
      t0 = performance.now();
      const exhaustive = await searchKeyword(db, buildMatchExpression(terms)!, prefilter, limit);
      slowMs.push(performance.now() - t0);
      // As recall runs the arm: when the index declines, FTS5 ranks everything after it.
      fastMs.push(fastTook + (fast ? 0 : performance.now() - t0));
      if (fast) {
        earlyStops++;
        if (JSON.stringify(fast) === JSON.stringify(exhaustive)) armIdentical++;
      }
      const ours = (await recallEntries(db, { query: q, topK: TOP, hops: 1 }, now)).hits.map((h) => h.entry.id);
      const theirs = (await exhaustiveRecall(db, q, now)).hits.map((h) => h.entry.id);
      const shared = ours.filter((id) => theirs.includes(id)).length;
      overlapSum += theirs.length === 0 ? 1 : shared / theirs.length;
      if (JSON.stringify(ours) === JSON.stringify(theirs)) identicalTop10++;
    }
    return {
      queries: queries.length,
      earlyStops,
      armIdentical,
      overlap: overlapSum / Math.max(1, queries.length),
      identicalTop10,
      fastArm: summarize(fastMs),
      exhaustiveArm: summarize(slowMs),
      index: await indexSize(db),
    };
  } finally {
    client.close();
  }
}
