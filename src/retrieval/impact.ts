import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { ftsTermsOf } from '../db/fts-tokens.ts';
import { IMPACT_INDEX, readDocLengths, readFtsTotals } from '../db/impact-index.ts';
import type { KeywordHit } from './keyword.ts';
import { LruCache } from './lru.ts';
import { buildMatchExpression } from './query.ts';

/**
 * A rare term's matches are read whole; past this many the term is not rare, and ranking
 * every match in FTS5 is the better plan.
 */
const RARE_MATCHES_MAX = 20_000;
/** Candidates go through the prefilter this many at a time, best bound first. */
const FILTER_CHUNK = 512;
/**
 * Slack on every bound: weights are computed in SQL and here in different orders, so a
 * bound is raised by far more than their rounding could ever differ.
 */
const BOUND_SLACK = 1 + 1e-9;

/** A query word's FTS5 term, remembered: the same words come back query after query. */
const termCache = new LruCache<string, string | null>(20_000);

function ftsTerms(words: readonly string[]): (string | null)[] {
  const known = words.map((w) => termCache.get(w));
  const missing = [...new Set(words.filter((_, i) => known[i] === undefined))];
  const found = new Map<string, string | null>();
  if (missing.length > 0) {
    const terms = ftsTermsOf(missing);
    for (const [i, w] of missing.entries()) found.set(w, terms[i] ?? null);
    for (const [w, t] of found) termCache.set(w, t);
  }
  return words.map((w, i) => known[i] ?? found.get(w) ?? null);
}

/** One phrase of the MATCH expression, in its order (bm25 sums the phrases in that order). */
interface Phrase {
  match: string;
  /** Its impact list, when its term has one. */
  list: { term: string; threshold: number; idf: number; cap: number } | null;
}

/** A document some list or rare term reached, with what is known of its score. */
interface Candidate {
  n: number;
  /** Each phrase's exact contribution, or NaN where only a bound is known. */
  parts: Float64Array;
  /** Token count, when read. */
  dl: number | null;
  lower: number;
  upper: number;
}

/** FTS5's bm25() weight of a term in a document (without the idf), in FTS5's order of operations. */
function termWeight(tf: number, dl: number, avgdl: number): number {
  const { k1, b } = IMPACT_INDEX;
  return (tf * (k1 + 1.0)) / (tf + k1 * (1 - b + (b * dl) / avgdl));
}

/**
 * The keyword arm through the impact index: the same hits, in the same order and with the
 * same bm25 as searchKeyword's FTS5 query, without ranking every match of a frequent word.
 *
 * A frequent term's list holds its heaviest postings (drizzle/0003_impact.sql); a rare
 * term's matches come from FTS5 whole, with their exact weights. Every document reached
 * gets a lower bound (what is known) and an upper bound (plus, for each list it is not
 * in, the most a posting left out of that list can weigh). A document reached by nothing
 * weighs at most the sum of those caps. When `limit` candidates that pass the prefilter
 * beat that sum, the rest cannot enter the ranking (a threshold algorithm, Fagin's TA
 * with whole lists read); the ones whose bound still reaches into it get their missing
 * terms counted in FTS5 (one highlight() per document, never a scan), and the ranking is
 * bm25 computed as FTS5 computes it. Otherwise this returns null and the caller asks
 * FTS5 for everything.
 *
 * @example
 * const hits = await searchKeywordByImpact(db, ['deploy', 'friday'], buildPrefilter({}), 100);
 * hits?.[0]; // { id: '0193…', rank: 1, bm25: -4.2 }, or null: no early stop possible
 */
export async function searchKeywordByImpact(
  db: Db,
  terms: readonly string[],
  prefilter: SQL,
  limit: number,
): Promise<KeywordHit[] | null> {
  const setup = await readPhrases(db, terms);
  if (!setup) return null;
  const { phrases, avgdl } = setup;
  const candidates = await reachCandidates(db, phrases, avgdl);
  if (!candidates) return null;
  const outside = phrases.reduce((s, p) => s + (p.list?.cap ?? 0), 0);
  const passed = await filterBest(db, candidates, prefilter, limit);
  if (passed.hits.length < limit) return null;
  const floor = kthLower(passed.hits, limit);
  // Strictly: a document outside tied with the last hit could come first by rowid.
  if (!(outside < floor)) return null;
  const contenders = passed.hits.filter((c) => c.upper >= floor);
  await resolve(db, phrases, contenders, avgdl);
  contenders.sort((a, b) => b.lower - a.lower || a.n - b.n);
  return contenders.slice(0, limit).map((c, i) => ({ id: passed.ids.get(c.n)!, rank: i + 1, bm25: -c.lower }));
}

/** The phrases, with the lists of the frequent ones; null when no term has a list. */
async function readPhrases(db: Db, terms: readonly string[]) {
  const matches = terms.map((t) => buildMatchExpression([t])!);
  // A long word searches as a prefix, which no single list covers.
  const listable = terms.map((t, i) => (matches[i]!.endsWith('*') ? null : t));
  const ftsTermOf = ftsTerms(listable.map((t) => t ?? ''));
  const wanted = [...new Set(ftsTermOf.filter((t, i): t is string => t !== null && listable[i] !== null))];
  if (wanted.length === 0) return null;
  const totals = await readFtsTotals(db);
  // idf through SQLite's ln(): the C library's log, as FTS5's own bm25() takes it (the
  // engine's log and JavaScript's may differ in the last bit).
  const rows = await db.all<{ term: string; threshold: number; docs: number; avgdl: number; idf: number }>(sql`
    SELECT t.term AS term, t.threshold AS threshold, t.docs AS docs, m.avgdl AS avgdl,
      ln((${totals.rows} - t.docs + 0.5) / (t.docs + 0.5)) AS idf
    FROM impact_terms t CROSS JOIN impact_meta m
    WHERE t.term IN (SELECT value FROM json_each(${JSON.stringify(wanted)}))`);
  if (rows.length === 0) return null;
  const avgdl = totals.tokens / totals.rows;
  // Weights were quantized against the reference length; a longer average now raises them by at most this.
  const drift = Math.max(1, avgdl / Number(rows[0]!.avgdl));
  const byTerm = new Map(rows.map((r) => [r.term, r]));
  const phrases: Phrase[] = matches.map((match, i) => {
    const row = listable[i] !== null && ftsTermOf[i] ? byTerm.get(ftsTermOf[i]!) : undefined;
    if (!row) return { match, list: null };
    const idf = Number(row.idf) <= 0 ? 1e-6 : Number(row.idf);
    const threshold = Number(row.threshold);
    const cap = ((idf * threshold) / IMPACT_INDEX.scale) * drift * BOUND_SLACK;
    return { match, list: { term: row.term, threshold, idf, cap } };
  });
  return { phrases, avgdl };
}

/** Every document a list or a rare term reaches, with its bounds; null when a "rare" term is not. */
async function reachCandidates(db: Db, phrases: Phrase[], avgdl: number): Promise<Map<number, Candidate> | null> {
  const out = new Map<number, Candidate>();
  const get = (n: number) => {
    let c = out.get(n);
    if (!c) {
      c = { n, parts: new Float64Array(phrases.length).fill(Number.NaN), dl: null, lower: 0, upper: 0 };
      out.set(n, c);
    }
    return c;
  };
  const heads = new Map<string, { n: number; tf: number; dl: number }[]>();
  for (const [i, p] of phrases.entries()) {
    if (p.list) {
      let head = heads.get(p.list.term);
      if (!head) {
        head = await db.all(sql`SELECT n, tf, dl FROM impact_postings WHERE term = ${p.list.term}`);
        heads.set(p.list.term, head);
      }
      for (const r of head) {
        const c = get(Number(r.n));
        c.dl = Number(r.dl);
        c.parts[i] = p.list.idf * termWeight(Number(r.tf), c.dl, avgdl);
      }
      continue;
    }
    const rows = await db.all<{ n: number; bm25: number }>(sql`
      SELECT rowid AS n, bm25(entries_fts) AS bm25 FROM entries_fts
      WHERE entries_fts MATCH ${p.match} LIMIT ${RARE_MATCHES_MAX + 1}`);
    if (rows.length > RARE_MATCHES_MAX) return null;
    for (const r of rows) get(Number(r.n)).parts[i] = -Number(r.bm25);
  }
  // A rare term's matches are all here: a document it does not reach has none of it.
  for (const c of out.values()) {
    phrases.forEach((p, i) => {
      if (!p.list && Number.isNaN(c.parts[i])) c.parts[i] = 0;
    });
    bound(c, phrases);
  }
  return out;
}

/** Lower bound: the known parts summed in phrase order (exact when all are known); upper: plus the caps. */
function bound(c: Candidate, phrases: Phrase[]): void {
  let lower = 0;
  let open = 0;
  phrases.forEach((p, i) => {
    const part = c.parts[i]!;
    if (Number.isNaN(part)) open += p.list!.cap;
    else lower += part;
  });
  c.lower = lower;
  c.upper = open > 0 ? (lower + open) * BOUND_SLACK : lower;
}

const kthLower = (hits: Candidate[], k: number) =>
  hits
    .map((c) => c.lower)
    .sort((a, b) => b - a)
    .at(k - 1)!;

/**
 * The candidates that pass the prefilter, taken best upper bound first until the rest
 * cannot reach the `limit`-th lower bound of those that passed.
 */
async function filterBest(db: Db, candidates: Map<number, Candidate>, prefilter: SQL, limit: number) {
  const order = [...candidates.values()].sort((a, b) => b.upper - a.upper);
  const hits: Candidate[] = [];
  const ids = new Map<number, string>();
  for (let at = 0; at < order.length; at += FILTER_CHUNK) {
    if (hits.length >= limit && order[at]!.upper < kthLower(hits, limit)) break;
    const chunk = order.slice(at, at + FILTER_CHUNK);
    const rows = await db.all<{ n: number; id: string }>(sql`
      SELECT e.n AS n, e.id AS id FROM entries e
      WHERE e.n IN (SELECT value FROM json_each(${JSON.stringify(chunk.map((c) => c.n))})) AND ${prefilter}`);
    for (const r of rows) ids.set(Number(r.n), r.id);
    for (const c of chunk) if (ids.has(c.n)) hits.push(c);
  }
  return { hits, ids };
}

/** Counts, in FTS5, the terms a contender's lists left open, and makes its score exact. */
async function resolve(db: Db, phrases: Phrase[], contenders: Candidate[], avgdl: number): Promise<void> {
  const open = contenders.filter((c) => c.parts.some(Number.isNaN));
  if (open.length === 0) return;
  const lengths = await readDocLengths(
    db,
    open.filter((c) => c.dl === null).map((c) => c.n),
  );
  for (const c of open) c.dl ??= lengths.get(c.n) ?? 0;
  for (const [i, p] of phrases.entries()) {
    const need = open.filter((c) => Number.isNaN(c.parts[i]));
    if (need.length === 0) continue;
    // highlight() adds one character per occurrence of the phrase: the term frequency, read
    // from this one document without FTS5 counting the whole term as bm25() would.
    const rows = await db.all<{ n: number; tf: number }>(sql`
      SELECT rowid AS n, length(highlight(entries_fts, 0, char(1), '')) - length(content) AS tf
      FROM entries_fts
      WHERE entries_fts MATCH ${p.match} AND rowid IN (SELECT value FROM json_each(${JSON.stringify(need.map((c) => c.n))}))`);
    const tfs = new Map(rows.map((r) => [Number(r.n), Number(r.tf)]));
    for (const c of need) {
      const tf = tfs.get(c.n) ?? 0;
      c.parts[i] = tf === 0 ? 0 : p.list!.idf * termWeight(tf, c.dl!, avgdl);
    }
  }
  for (const c of open) bound(c, phrases);
}
