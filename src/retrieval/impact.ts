import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { ftsTermsOf } from '../db/fts-tokens.ts';
import { decodeFtsTotals, FTS_TOTALS, IMPACT_INDEX } from '../db/impact-index.ts';
import type { KeywordHit } from './keyword.ts';
import { LruCache } from './lru.ts';
import { buildMatchExpression } from './query.ts';

/**
 * A rare term's matches are read whole; past this many the term is not rare, and ranking
 * every match in FTS5 is the better plan.
 */
const RARE_MATCHES_MAX = 20_000;
/**
 * Candidates are scored this many at a time at first, best bound first, then twice as many
 * each round: most queries stop within the first round, and one with loose bounds (several
 * mid-frequency words) gets through its candidates in a few statements.
 */
const RANK_CHUNK = 256;
/** Past this many candidates scored, ranking in FTS5 is the better plan. */
const RANK_MAX = 40_000;
/**
 * The index answers only while its work stays below this share of FTS5's, counted in
 * matches FTS5 scores (a docsize lookup and bm25 each): FTS5 scores every match of every
 * word; the index reads each list's head (HEAD_COST a posting, one string for the list),
 * scores a rare word's matches as FTS5 does, and scores candidates (SCORE_COST each: a
 * lookup in entries and one in impact_docs). A word in a few thousand entries has a head
 * of most of its matches, and a query of such words is ranked faster by FTS5 whole than
 * the index could even start; a query whose candidates do not settle gives up before it
 * has cost much.
 */
const WORK_SHARE = 1 / 3;
const HEAD_COST = 0.25;
const SCORE_COST = 6;
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
  list: { id: number; term: string; threshold: number; docs: number; head: number; idf: number; cap: number } | null;
}

/** Work (in FTS5 scorings) the index may still do before FTS5 whole is the cheaper plan. */
interface Budget {
  left: number;
  /** A rare word's match costs the index one scoring and saves FTS5's share of one. */
  rareCost: number;
}

/** What FTS5 would score for the listed words, against what reading their heads costs. */
function workBudget(phrases: readonly Phrase[], workShare: number): Budget | null {
  const lists = new Map(phrases.flatMap((p) => (p.list ? [[p.list.term, p.list] as const] : [])));
  let left = 0;
  for (const list of lists.values()) left += list.docs * workShare - list.head * HEAD_COST;
  return left > 0 ? { left, rareCost: 1 - workShare } : null;
}

/** A document some list or rare term reached, with what is known of its score before it is read. */
interface Candidate {
  n: number;
  /** Each phrase's exact contribution, or NaN where only its list's cap is known. */
  parts: Float64Array;
  upper: number;
  /** Its id and exact score once read; null when the prefilter leaves it out. */
  scored?: { id: string; score: number } | null;
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
 * A frequent term's list holds its heaviest postings (drizzle/0004_impact.sql); a rare
 * term's matches come from FTS5 whole, with their exact weights. Every document reached
 * gets an upper bound: what is known, plus for each list it is not in the most a posting
 * left out of that list can weigh. A document reached by nothing weighs at most the sum of
 * those caps. Candidates are then taken best bound first, through the prefilter and with
 * their exact bm25 (their frequent terms' counts are one row of impact_docs away), until
 * the next bound falls below the `limit`-th score: a threshold algorithm (Fagin's TA, the
 * lists read whole). When nothing unreached can beat that score either, the ranking is
 * final, computed as FTS5 computes it to the last bit; otherwise this returns null and
 * the caller asks FTS5 for everything. It also returns null, before reading or as soon as
 * it has read too much, when its work would not stay below `workShare` of FTS5's.
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
  workShare = WORK_SHARE,
): Promise<KeywordHit[] | null> {
  const setup = await readPhrases(db, terms);
  if (!setup) return null;
  const { phrases, avgdl, documents } = setup;
  const budget = workBudget(phrases, workShare);
  if (!budget) return null;
  const candidates = await reachCandidates(db, { phrases, avgdl, budget });
  if (!candidates) return null;
  let ranked = await rankBest(db, { phrases, avgdl, budget }, candidates, prefilter, limit);
  if (!ranked) return null;
  let outside = phrases.reduce((s, p) => s + (p.list?.cap ?? 0), 0);
  if (!(outside < ranked.floor)) {
    // Several frequent terms together could still beat the floor outside their heads:
    // only a document holding all of some such combination can, so those are reached too.
    const combined = await reachCombinations(db, { phrases, budget, documents }, ranked.floor, candidates);
    if (combined === null) return null;
    outside = combined;
    ranked = await rankBest(db, { phrases, avgdl, budget }, candidates, prefilter, limit);
    if (!ranked) return null;
  }
  // Strictly: a document outside tied with the last hit could come first by rowid.
  if (!(outside < ranked.floor)) return null;
  return ranked.hits.map((h, i) => ({ id: h.id, rank: i + 1, bm25: -h.score }));
}

/**
 * Adds to the candidates every document that holds all the terms of a smallest set of
 * listed phrases whose caps sum to `floor` or more (FTS5 intersects those doclists without
 * scoring them). Returns the bound that is left for documents still unreached, the largest
 * cap sum below `floor`, or null when a set matches too many documents.
 */
async function reachCombinations(
  db: Db,
  { phrases, budget, documents }: { phrases: Phrase[]; budget: Budget; documents: number },
  floor: number,
  candidates: Map<number, Candidate>,
): Promise<number | null> {
  const listed = phrases.filter((p) => p.list);
  const sets: Phrase[][] = [];
  let below = 0;
  for (let mask = 1; mask < 1 << listed.length; mask++) {
    const set = listed.filter((_, i) => mask & (1 << i));
    const sum = set.reduce((s, p) => s + p.list!.cap, 0);
    if (sum < floor) below = Math.max(below, sum);
    else if (!sets.some((smaller) => smaller.every((p) => set.includes(p)))) sets.push(set);
  }
  // Words independent of each other: a set shares about this many documents. Sets that
  // large would be read only to find that they are too many to score.
  const expected = (set: Phrase[]) => set.reduce((e, p) => (e * p.list!.docs) / documents, documents);
  if (sets.reduce((s, set) => s + expected(set), 0) * (1 + SCORE_COST) > budget.left) return null;
  for (const set of sets) {
    const most = Math.min(RANK_MAX, Math.floor(budget.left / (1 + SCORE_COST)));
    const rows = await db.all<{ n: number }>(sql`
      SELECT rowid AS n FROM entries_fts WHERE entries_fts MATCH ${set.map((p) => p.match).join(' AND ')}
      LIMIT ${most + 1}`);
    if (rows.length > most) return null;
    budget.left -= rows.length;
    for (const r of rows) {
      const n = Number(r.n);
      if (candidates.has(n)) continue;
      // It holds no rare term (their matches are all reached already), and of the listed
      // ones nothing is known but their caps.
      const c: Candidate = { n, parts: new Float64Array(phrases.length).fill(Number.NaN), upper: 0 };
      for (const [i, p] of phrases.entries()) if (!p.list) c.parts[i] = 0;
      bound(c, phrases);
      candidates.set(n, c);
    }
  }
  return below;
}

/** The phrases, with the lists of the frequent ones; null when no term has a list. */
async function readPhrases(db: Db, terms: readonly string[]) {
  const matches = terms.map((t) => buildMatchExpression([t])!);
  // A long word searches as a prefix, which no single list covers.
  const listable = terms.map((t, i) => (matches[i]!.endsWith('*') ? null : t));
  const ftsTermOf = ftsTerms(listable.map((t) => t ?? ''));
  const wanted = [...new Set(ftsTermOf.filter((t, i): t is string => t !== null && listable[i] !== null))];
  if (wanted.length === 0) return null;
  const rows = await db.all<{
    id: number;
    term: string;
    threshold: number;
    docs: number;
    head: number;
    avgdl: number;
    totals: unknown;
  }>(sql`
    SELECT t.id AS id, t.term AS term, t.threshold AS threshold, t.docs AS docs, m.avgdl AS avgdl,
      (SELECT count(*) FROM impact_postings p WHERE p.term = t.term) AS head,
      (SELECT block FROM ${FTS_TOTALS}) AS totals
    FROM impact_terms t CROSS JOIN impact_meta m
    WHERE t.term IN (SELECT value FROM json_each(${JSON.stringify(wanted)}))`);
  if (rows.length === 0) return null;
  const totals = decodeFtsTotals(rows[0]!.totals);
  const avgdl = totals.tokens / totals.rows;
  // Weights were quantized against the reference length; a longer average now raises them by at most this.
  const drift = Math.max(1, avgdl / Number(rows[0]!.avgdl));
  // idf as FTS5's bm25() computes it: the ratio in doubles (as here), its log by the C
  // library through SQLite's ln() (JavaScript's log may differ in the last bit).
  const ratios = rows.map((r) => (totals.rows - Number(r.docs) + 0.5) / (Number(r.docs) + 0.5));
  const [logs] = await db.all<Record<string, number>>(
    sql`SELECT ${sql.join(
      ratios.map((r, i) => sql`ln(${r}) AS ${sql.identifier(`l${i}`)}`),
      sql`, `,
    )}`,
  );
  const idfOf = new Map(rows.map((r, i) => [r.term, Number(logs![`l${i}`])]));
  const byTerm = new Map(rows.map((r) => [r.term, r]));
  const phrases: Phrase[] = matches.map((match, i) => {
    const row = listable[i] !== null && ftsTermOf[i] ? byTerm.get(ftsTermOf[i]!) : undefined;
    if (!row) return { match, list: null };
    const idf = idfOf.get(row.term)! <= 0 ? 1e-6 : idfOf.get(row.term)!;
    const threshold = Number(row.threshold);
    const cap = ((idf * threshold) / IMPACT_INDEX.scale) * drift * BOUND_SLACK;
    const [docs, head] = [Number(row.docs), Number(row.head)];
    return { match, list: { id: Number(row.id), term: row.term, threshold, docs, head, idf, cap } };
  });
  return { phrases, avgdl, documents: totals.rows };
}

/**
 * Every document a list or a rare term reaches, with its bounds; null when the rare terms'
 * matches are more than the budget allows. Rare terms are read first: past the budget,
 * nothing else has been read.
 */
async function reachCandidates(
  db: Db,
  { phrases, avgdl, budget }: { phrases: Phrase[]; avgdl: number; budget: Budget },
): Promise<Map<number, Candidate> | null> {
  const out = new Map<number, Candidate>();
  const get = (n: number) => {
    let c = out.get(n);
    if (!c) {
      c = { n, parts: new Float64Array(phrases.length).fill(Number.NaN), upper: 0 };
      out.set(n, c);
    }
    return c;
  };
  for (const [i, p] of phrases.entries()) {
    if (p.list) continue;
    const most = Math.min(RARE_MATCHES_MAX, Math.floor(budget.left / budget.rareCost));
    const rows = await db.all<{ n: number; bm25: number }>(sql`
      SELECT rowid AS n, bm25(entries_fts) AS bm25 FROM entries_fts
      WHERE entries_fts MATCH ${p.match} LIMIT ${most + 1}`);
    if (rows.length > most) return null;
    budget.left -= rows.length * budget.rareCost;
    for (const r of rows) get(Number(r.n)).parts[i] = -Number(r.bm25);
  }
  const heads = new Map<string, number[]>();
  for (const [i, p] of phrases.entries()) {
    if (!p.list) continue;
    const head = heads.get(p.list.term) ?? (await readHead(db, p.list.term));
    heads.set(p.list.term, head);
    for (let k = 0; k + 2 < head.length; k += 3) {
      get(head[k]!).parts[i] = p.list.idf * termWeight(head[k + 1]!, head[k + 2]!, avgdl);
    }
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

/**
 * A list's postings as one string of "n tf dl" triples: a row per posting cost more to
 * hand over than to read.
 */
async function readHead(db: Db, term: string): Promise<number[]> {
  const [row] = await db.all<{ head: string | null }>(sql`
    SELECT group_concat(n || ' ' || tf || ' ' || dl, ' ') AS head FROM impact_postings WHERE term = ${term}`);
  return row?.head ? row.head.split(' ').map(Number) : [];
}

/** Upper bound: the known parts plus, for each list the document is not in, that list's cap. */
function bound(c: Candidate, phrases: Phrase[]): void {
  let sum = 0;
  let open = 0;
  for (const [i, p] of phrases.entries()) {
    const part = c.parts[i]!;
    if (Number.isNaN(part)) open += p.list!.cap;
    else sum += part;
  }
  c.upper = open > 0 ? (sum + open) * BOUND_SLACK : sum;
}

/** The frequent terms' counts of one entry ("id:tf id:tf"). */
function parseCounts(terms: string | null): Map<number, number> {
  const out = new Map<number, number>();
  for (const pair of terms ? terms.split(' ') : []) {
    const colon = pair.indexOf(':');
    out.set(Number(pair.slice(0, colon)), Number(pair.slice(colon + 1)));
  }
  return out;
}

interface Ranked {
  id: string;
  n: number;
  score: number;
}

/**
 * The best `limit` candidates that pass the prefilter, each with its exact bm25 score
 * summed in phrase order as FTS5 sums it; taken best bound first until the next bound is
 * below the `limit`-th score (returned as `floor`). Null when that takes too many.
 */
async function rankBest(
  db: Db,
  { phrases, avgdl, budget }: { phrases: Phrase[]; avgdl: number; budget: Budget },
  candidates: Map<number, Candidate>,
  prefilter: SQL,
  limit: number,
): Promise<{ hits: Ranked[]; floor: number } | null> {
  const order = [...candidates.values()].sort((a, b) => b.upper - a.upper);
  let hits: Ranked[] = [];
  let floor = Number.NEGATIVE_INFINITY;
  for (let at = 0, size = RANK_CHUNK; at < order.length; size *= 2) {
    if (hits.length >= limit && order[at]!.upper < floor) break;
    if (at >= RANK_MAX) return null;
    const chunk = order.slice(at, at + Math.min(size, Math.floor(budget.left / SCORE_COST)));
    if (chunk.length === 0) return null;
    const unread = chunk.filter((c) => c.scored === undefined);
    budget.left -= unread.length * SCORE_COST;
    const rows = await db.all<{ n: number; id: string; dl: number | null; terms: string | null }>(sql`
      SELECT e.n AS n, e.id AS id, d.dl AS dl, d.terms AS terms
      FROM entries e LEFT JOIN impact_docs d ON d.n = e.n
      WHERE e.n IN (SELECT value FROM json_each(${JSON.stringify(unread.map((c) => c.n))})) AND ${prefilter}`);
    for (const c of unread) c.scored = null;
    for (const r of rows) {
      const c = candidates.get(Number(r.n))!;
      const counts = parseCounts(r.terms);
      let score = 0;
      for (const [i, p] of phrases.entries()) {
        const tf = p.list ? (counts.get(p.list.id) ?? 0) : 0;
        score += p.list ? (tf === 0 ? 0 : p.list.idf * termWeight(tf, Number(r.dl), avgdl)) : c.parts[i]!;
      }
      c.scored = { id: r.id, score };
    }
    for (const c of chunk) if (c.scored) hits.push({ id: c.scored.id, n: c.n, score: c.scored.score });
    hits.sort((a, b) => b.score - a.score || a.n - b.n);
    hits = hits.slice(0, limit);
    if (hits.length >= limit) floor = hits[limit - 1]!.score;
    at += chunk.length;
  }
  if (hits.length < limit) return null;
  return { hits, floor };
}
