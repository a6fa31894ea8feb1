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
/** How the index ranks; tests change it to reach every path on a small corpus. */
export interface ImpactPlan {
  /** The share of FTS5's work (counted as HEAD_COST tells) the index may plan to do. */
  workShare: number;
  /**
   * Candidates scored in the first round, best bound first; each later round scores twice
   * as many. Most queries stop within the first; one that does not first tightens its
   * bounds (see resolveDocuments), and one with loose bounds (several mid-frequency words)
   * still gets through its candidates in a few statements.
   */
  firstRound: number;
}

export const IMPACT_PLAN: ImpactPlan = { workShare: 1 / 3, firstRound: 256 };

/** Past this many candidates scored, ranking in FTS5 is the better plan. */
const RANK_MAX = 40_000;
/**
 * The index starts only while its work stays below a share of FTS5's (IMPACT_PLAN),
 * counted in matches FTS5 scores (a docsize lookup and bm25 each, ~4.5 µs at a million entries):
 * FTS5 scores every match of every word; the index counts the rare words' matches (a walk
 * of their doclists), reads each list's head (HEAD_COST a posting, one string for the
 * list), scores a rare word's matches as FTS5 does and hands them over packed (RARE_COST
 * each), scores candidates from their rows of impact_docs (SCORE_COST) and puts those that
 * may enter the hits through the prefilter (CHECK_COST: a row of entries). A word in a
 * few thousand entries has a head of most of its matches, and a query of such words is
 * ranked faster by FTS5 whole than the index could even start. Once started, a ranking
 * that runs over its budget finishes when finishing costs less than FTS5 whole (see
 * raiseBudget): what is spent is spent.
 */
const HEAD_COST = 0.15;
const RARE_COST = 1.4;
const SCORE_COST = 1.2;
const CHECK_COST = 0.7;
/**
 * An intersection of doclists (resolveDocuments): a walk of the listed word's doclist
 * (WALK_COST a document) and a rowid handed over for each document in it (RESOLVE_COST).
 */
const WALK_COST = 0.02;
const RESOLVE_COST = 0.2;
/**
 * What a candidate costs at most when deciding to finish a ranking: its score, its check
 * and the bookkeeping around them (measured at a million entries: ~12 µs a candidate
 * against ~4.5 µs a match for FTS5 whole).
 */
const FINISH_COST = 2.5;
/**
 * Before ranking, a listed word in at most this share of the documents is intersected with
 * the rare words (resolveDocuments); a more common one is in most of their documents anyway.
 */
const RESOLVE_SHARE = 0.25;
/** Candidates put through the prefilter at once, best first, when they may enter the hits. */
const CHECK_CHUNK = 32;
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
  /** A rare phrase's matches, once counted. */
  matches?: number;
}

/** Work (in FTS5 scorings) the index may still do before FTS5 whole is the cheaper plan. */
interface Budget {
  left: number;
  /** A rare word's match costs the index one scoring and saves FTS5's share of one. */
  rareCost: number;
  /** All FTS5 whole would score: the listed words' documents and the rare words' matches (once counted). */
  whole: number;
  /** What the budget was raised by to finish the ranking (see raiseBudget). */
  raised: number;
  /** Set once the listed words' documents were resolved against each other (see rankBest). */
  resolved: boolean;
}

/** What FTS5 would score for the listed words, against what reading their heads costs. */
function workBudget(phrases: readonly Phrase[], workShare: number): Budget | null {
  const lists = new Map(phrases.flatMap((p) => (p.list ? [[p.list.term, p.list] as const] : [])));
  let left = 0;
  let whole = 0;
  for (const list of lists.values()) {
    left += list.docs * workShare - list.head * HEAD_COST;
    whole += list.docs;
  }
  return left > 0 ? { left, rareCost: RARE_COST - workShare, whole, raised: 0, resolved: false } : null;
}

/** A document some list or rare term reached, with what is known of its score before it is read. */
interface Candidate {
  n: number;
  /**
   * Each phrase's exact contribution, or NaN where only its list's cap is known. A typed
   * array holds doubles whatever is stored: a plain array that starts with small integers
   * changes its kind at the first fraction, and optimized code that met the other kind is
   * thrown away.
   */
  parts: Float64Array;
  upper: number;
  /** Its exact score, once its counts are read. */
  score: number | undefined;
  /** Its id once it passed the prefilter; null when the prefilter leaves it out. */
  id: string | null | undefined;
}

/**
 * A new candidate. Every field is there from the start: a field added later gives the object
 * another hidden class, and recall's optimized code, compiled for the classes it had seen,
 * was thrown away and compiled again each time one of those classes was collected and made anew.
 */
function newCandidate(n: number, parts: Float64Array): Candidate {
  return { n, parts, upper: 0, score: undefined, id: undefined };
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
 * left out of that list can weigh (nothing, for a rare term's document that FTS5 shows to
 * lack the list's term). A document reached by nothing weighs at most the sum of those
 * caps. Candidates are then scored best bound first (their frequent terms' counts are one
 * row of impact_docs away) and put through the prefilter when they may enter the best,
 * until the next bound falls below the `limit`-th score: a threshold algorithm (Fagin's
 * TA, the lists read whole). When nothing unreached can beat that score either, the
 * ranking is final, computed as FTS5 computes it to the last bit; otherwise this returns
 * null and the caller asks FTS5 for everything. It also returns null, before reading, when
 * its work would not stay below `workShare` of FTS5's, and midway when finishing would
 * cost more than FTS5 whole.
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
  plan: Partial<ImpactPlan> = {},
): Promise<KeywordHit[] | null> {
  const { workShare, firstRound } = { ...IMPACT_PLAN, ...plan };
  const setup = await readPhrases(db, terms);
  if (!setup) return null;
  const { phrases, avgdl, documents } = setup;
  const budget = workBudget(phrases, workShare);
  if (!budget) return null;
  const candidates = await reachCandidates(db, { phrases, avgdl, budget, documents });
  if (!candidates) return null;
  const context = { phrases, avgdl, budget, documents, firstRound };
  let ranked = await rankBest(db, context, candidates, prefilter, limit);
  if (!ranked) return null;
  let outside = phrases.reduce((s, p) => s + (p.list?.cap ?? 0), 0);
  if (!(outside < ranked.floor)) {
    // Several frequent terms together could still beat the floor outside their heads:
    // only a document holding all of some such combination can, so those are reached too.
    const combined = await reachCombinations(db, { phrases, budget, documents }, ranked.floor, candidates);
    if (combined === null) return null;
    outside = combined;
    ranked = await rankBest(db, context, candidates, prefilter, limit);
    if (!ranked) return null;
  }
  // Strictly: a document outside tied with the last hit could come first by rowid.
  if (!(outside < ranked.floor)) return null;
  const hits: KeywordHit[] = [];
  for (const h of ranked.hits) hits.push({ id: h.id, rank: hits.length + 1, bm25: -h.score });
  return hits;
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
  const need = sets.reduce((s, set) => s + expected(set), 0) * (1 + FINISH_COST);
  if (need > budget.left && !raiseBudget(budget, need - Math.max(budget.left, 0))) return null;
  for (const set of sets) {
    const most = Math.min(RANK_MAX, Math.floor(budget.left / (1 + SCORE_COST)));
    const [row] = await db.all<{ matches: number; packed: string | null }>(sql`
      SELECT count(*) AS matches, group_concat(n, ' ') AS packed FROM (
        SELECT rowid AS n FROM entries_fts WHERE entries_fts MATCH ${set.map((p) => p.match).join(' AND ')}
        LIMIT ${most + 1})`);
    const matches = Number(row?.matches ?? 0);
    if (matches > most) return null;
    budget.left -= matches;
    for (const text of unpack(row?.packed ?? null, ' ')) {
      const n = Number(text);
      if (candidates.has(n)) continue;
      // It holds no rare term (their matches are all reached already), and of the listed
      // ones nothing is known but their caps.
      const c = newCandidate(n, blankParts(phrases));
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
  { phrases, avgdl, budget, documents }: { phrases: Phrase[]; avgdl: number; budget: Budget; documents: number },
): Promise<Map<number, Candidate> | null> {
  const out = new Map<number, Candidate>();
  const blank = blankParts(phrases);
  // Counting a word's matches only walks its doclist (a tenth of a microsecond a match):
  // a query whose rare words are too many for the budget is left to FTS5 before any is read.
  const rare = phrases.filter((p) => !p.list);
  if (rare.length > 0) {
    const [row] = await db.all<Record<string, number>>(
      sql`SELECT ${sql.join(
        rare.map(
          (p, i) =>
            sql`(SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ${p.match}) AS ${sql.identifier(`c${i}`)}`,
        ),
        sql`, `,
      )}`,
    );
    const counts = rare.map((_, i) => Number(row?.[`c${i}`] ?? 0));
    for (const [i, p] of rare.entries()) p.matches = counts[i]!;
    if (counts.some((c) => c > RARE_MATCHES_MAX)) return null;
    const matches = counts.reduce((a, b) => a + b, 0);
    if (matches * budget.rareCost > budget.left) return null;
    budget.whole += matches;
  }
  for (const [i, p] of phrases.entries()) {
    if (p.list) continue;
    const most = Math.min(RARE_MATCHES_MAX, Math.floor(budget.left / budget.rareCost));
    const [row] = await db.all<{ matches: number; packed: string | null }>(sql`
      SELECT count(*) AS matches, group_concat(n || ' ' || printf('%!.17g', -bm25), ' ') AS packed FROM (
        SELECT rowid AS n, bm25(entries_fts) AS bm25 FROM entries_fts
        WHERE entries_fts MATCH ${p.match} LIMIT ${most + 1})`);
    const matches = Number(row?.matches ?? 0);
    if (matches > most) return null;
    budget.left -= matches * budget.rareCost;
    const packed = unpack(row?.packed ?? null, ' ');
    for (let k = 0; k + 1 < packed.length; k += 2)
      candidate(out, Number(packed[k]), blank).parts[i] = Number(packed[k + 1]);
  }
  const heads = new Map<string, number[]>();
  for (const [i, p] of phrases.entries()) {
    if (!p.list) continue;
    const head = heads.get(p.list.term) ?? (await readHead(db, p.list.term));
    heads.set(p.list.term, head);
    for (let k = 0; k + 2 < head.length; k += 3) {
      candidate(out, head[k]!, blank).parts[i] = p.list.idf * termWeight(head[k + 1]!, head[k + 2]!, avgdl);
    }
  }
  await resolveDocuments(db, { phrases, budget, documents }, [...out.values()], false);
  for (const c of out.values()) bound(c, phrases);
  return out;
}

/** Document `n`'s candidate, made with `blank` parts when it is new. */
function candidate(out: Map<number, Candidate>, n: number, blank: Float64Array): Candidate {
  let c = out.get(n);
  if (!c) {
    c = newCandidate(n, blank.slice());
    out.set(n, c);
  }
  return c;
}

/**
 * Tells, for each listed word, which of these candidates hold it: a candidate reached by
 * another word (a rare word's match, or a list's head) holds the listed one exactly when
 * it is in their intersection, which FTS5 finds without scoring anything (`"listed" AND
 * ("other" OR …)`, a walk of the doclists). In a candidate that does not hold the word its
 * part is 0, not the list's cap. Without this, every rare word's document kept a bound
 * above the floor and had to be scored.
 *
 * First (`withLists` false) only the rare words' documents are resolved, for the listed
 * words most documents lack: that is cheap, and most queries stop soon after. A ranking
 * that does not stop within its first round resolves the heads against each other too
 * (see rankBest): a document in one list's head is bounded by the caps of every other list
 * until then, and a query of several mid-frequency words would otherwise score most of
 * their heads one by one. An intersection is read only when it costs less than scoring
 * the candidates it can settle.
 */
async function resolveDocuments(
  db: Db,
  { phrases, budget, documents }: { phrases: readonly Phrase[]; budget: Budget; documents: number },
  candidates: readonly Candidate[],
  withLists: boolean,
): Promise<void> {
  for (const [i, p] of phrases.entries()) {
    if (!p.list || !(withLists || p.list.docs <= documents * RESOLVE_SHARE)) continue;
    const docs = p.list.docs;
    const open: Candidate[] = [];
    for (const c of candidates) if (Number.isNaN(c.parts[i])) open.push(c);
    // Another word is intersected with this one when the candidates it reached outnumber
    // (in work) the documents the intersection hands over for it; words independent of
    // each other share about `docs × size / documents` of them.
    const others: { j: number; rows: number }[] = [];
    for (const [j, o] of phrases.entries()) {
      if (o.match === p.match || (o.list && !withLists)) continue;
      let reached = 0;
      for (const c of open) if (c.parts[j]! > 0) reached++;
      const rows = (docs * (o.list?.docs ?? o.matches ?? documents)) / documents;
      if (reached > 0 && (!withLists || rows * RESOLVE_COST < reached * SCORE_COST)) others.push({ j, rows });
    }
    const settled: Candidate[] = [];
    for (const c of open) if (reachedBy(c, others)) settled.push(c);
    if (settled.length === 0) continue;
    if (withLists) {
      let rows = 0;
      for (const o of others) rows += o.rows;
      const cost = docs * WALK_COST + rows * RESOLVE_COST;
      if (cost > settled.length * SCORE_COST || cost > budget.left) continue;
      budget.left -= cost;
    }
    const anyOther = [...new Set(others.map(({ j }) => phrases[j]!.match))];
    const expression = `${p.match} AND ${anyOther.length === 1 ? anyOther[0] : `(${anyOther.join(' OR ')})`}`;
    const [row] = await db.all<{ packed: string | null }>(sql`
      SELECT group_concat(n, ' ') AS packed FROM (
        SELECT rowid AS n FROM entries_fts WHERE entries_fts MATCH ${expression})`);
    const holding = new Set(unpack(row?.packed ?? null, ' ').map(Number));
    for (const c of settled) if (!holding.has(c.n)) c.parts[i] = 0;
  }
}

/** Whether one of the `others` words reached candidate `c`. */
function reachedBy(c: Candidate, others: readonly { j: number }[]): boolean {
  for (const { j } of others) if (c.parts[j]! > 0) return true;
  return false;
}

/**
 * A document's parts before anything is read of it: 0 for a rare term (all of its matches
 * are read, so one that does not reach the document has none of it), unknown (NaN) for a
 * listed one.
 */
function blankParts(phrases: readonly Phrase[]): Float64Array {
  const parts = new Float64Array(phrases.length);
  for (let i = 0; i < phrases.length; i++) if (phrases[i]!.list) parts[i] = Number.NaN;
  return parts;
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

/**
 * A statement's rows packed into one string (group_concat, json_group_array): handing over
 * one string costs far less than a row each (at a million entries a rare word's match cost
 * 8 µs as a row and 2.5 µs packed). `printf('%!.17g', x)` writes a double with every digit
 * it needs to read back exactly.
 */
function unpack(packed: string | null, separator: string): string[] {
  return packed ? packed.split(separator) : [];
}

/** Upper bound: the known parts plus, for each list the document is not in, that list's cap. */
function bound(c: Candidate, phrases: Phrase[]): void {
  let sum = 0;
  let open = 0;
  for (let i = 0; i < phrases.length; i++) {
    const part = c.parts[i]!;
    if (Number.isNaN(part)) open += phrases[i]!.list!.cap;
    else sum += part;
  }
  c.upper = open > 0 ? (sum + open) * BOUND_SLACK : sum;
}

interface Ranked {
  id: string;
  n: number;
  score: number;
}

// Recall's hot paths keep their callbacks at module level or write loops: V8 holds a
// closure's optimized code only while a closure of it lives, so a callback made per call is
// compiled again after every major garbage collection (see docs/architecture.md#recall).

/** Best first: higher score, then (as FTS5 breaks ties) lower rowid. */
const better = (a: Candidate, b: Candidate) => b.score! - a.score! || a.n - b.n;
/** Highest upper bound first. */
const byUpper = (a: Candidate, b: Candidate) => b.upper - a.upper;

/**
 * Exact scores for these candidates from their rows of impact_docs, summed in phrase order
 * as FTS5 sums them (a document without a row holds no listed term).
 */
async function scoreExactly(
  db: Db,
  { phrases, avgdl }: { phrases: Phrase[]; avgdl: number },
  chunk: readonly Candidate[],
): Promise<void> {
  // Each listed term's count is cut out of the entry's counts in SQL (CAST reads the digits
  // after "id:"), so only numbers come back: "n dl tf tf …" for each entry with a row. The
  // ids are bound, not written into the text: the statement's text then depends only on how
  // many there are, and each reader connection keeps a few prepared statements instead of
  // one for every combination of listed words a query ever had.
  const ids = [...new Set(phrases.flatMap((p) => (p.list ? [p.list.id] : [])))];
  const countsSql = ids.map((id) => {
    const key = ` ${id}:`;
    return sql`ifnull(CAST(substr(s, nullif(instr(s, ${key}), 0) + ${key.length}) AS INTEGER), 0)`;
  });
  const [row] = await db.all<{ packed: string | null }>(sql`
    SELECT group_concat(n || ' ' || dl || ' ' || ${sql.join(countsSql, sql` || ' ' || `)}, ' ') AS packed FROM (
      SELECT n, dl, ' ' || terms AS s FROM impact_docs
      WHERE n IN (SELECT value FROM json_each(${JSON.stringify(chunk.map((c) => c.n))})))`);
  const texts = unpack(row?.packed ?? null, ' ');
  const numbers = new Float64Array(texts.length);
  for (let k = 0; k < texts.length; k++) numbers[k] = Number(texts[k]);
  const stride = 2 + ids.length;
  const at = new Map<number, number>();
  for (let k = 0; k + stride <= numbers.length; k += stride) at.set(numbers[k]!, k);
  const column = phrases.map((p) => (p.list ? 2 + ids.indexOf(p.list.id) : -1));
  for (const c of chunk) {
    const k = at.get(c.n);
    let score = 0;
    for (let i = 0; i < phrases.length; i++) {
      const p = phrases[i]!;
      if (!p.list) {
        score += c.parts[i]!;
        continue;
      }
      const tf = k === undefined ? 0 : numbers[k + column[i]!]!;
      score += tf === 0 ? 0 : p.list.idf * termWeight(tf, numbers[k! + 1]!, avgdl);
    }
    c.score = score;
  }
}

/** Puts these candidates through the prefilter: each gets its id, or null when left out (or gone). */
async function checkPrefilter(db: Db, batch: readonly Candidate[], prefilter: SQL): Promise<void> {
  const [row] = await db.all<{ packed: string | null }>(sql`
    SELECT json_group_array(json_array(e.n, e.id)) AS packed FROM entries e
    WHERE e.n IN (SELECT value FROM json_each(${JSON.stringify(batch.map((c) => c.n))})) AND ${prefilter}`);
  const ids = new Map(JSON.parse(row?.packed ?? '[]') as [number, string][]);
  for (const c of batch) c.id = ids.get(c.n) ?? null;
}

/**
 * Whether to go on with a ranking whose budget ran out, raising the budget by what going
 * on can still cost at most (`worst`): what is spent is spent, and while all the budget
 * was raised by stays below FTS5's whole work, going on is the cheaper plan. (Declining
 * late paid FTS5 whole on top of the work done, the slowest queries there were.)
 */
function raiseBudget(budget: Budget, worst: number): boolean {
  if (budget.raised + worst >= budget.whole) return false;
  budget.raised += worst;
  budget.left = Math.max(budget.left, 0) + worst;
  return true;
}

/**
 * The best `limit` candidates that pass the prefilter, with their exact bm25 scores; taken
 * best bound first until the next bound is below the `limit`-th score (returned as
 * `floor`). A candidate's score needs its row of impact_docs; only one that could still
 * enter the best `limit` is put through the prefilter (its row of entries). Null when that
 * takes too many.
 */
async function rankBest(
  db: Db,
  {
    phrases,
    avgdl,
    budget,
    documents,
    firstRound,
  }: { phrases: Phrase[]; avgdl: number; budget: Budget; documents: number; firstRound: number },
  candidates: Map<number, Candidate>,
  prefilter: SQL,
  limit: number,
): Promise<{ hits: Ranked[]; floor: number } | null> {
  let order = [...candidates.values()].sort(byUpper);
  // What an earlier call settled stays settled.
  let hits: Candidate[] = [];
  let pending: Candidate[] = [];
  let scoredCount = 0;
  for (const c of order) {
    if (typeof c.id === 'string') hits.push(c);
    else if (c.score !== undefined && c.id === undefined) pending.push(c);
    if (c.score !== undefined) scoredCount++;
  }
  hits = hits.sort(better).slice(0, limit);
  pending.sort(better);
  let at = 0;
  for (let size = firstRound; ; size *= 2) {
    while (pending.length > 0 && mayEnter(pending[0]!, hits, limit)) {
      const batch = pending.splice(0, Math.max(CHECK_CHUNK, limit - hits.length));
      budget.left -= batch.length * CHECK_COST;
      const left = order.length - scoredCount + pending.length + batch.length;
      if (budget.left < 0 && !raiseBudget(budget, left * FINISH_COST)) {
        return null;
      }
      await checkPrefilter(db, batch, prefilter);
      for (const c of batch) if (c.id) hits.push(c);
      hits = hits.sort(better).slice(0, limit);
    }
    while (at < order.length && order[at]!.score !== undefined) at++;
    if (at >= order.length) break;
    const floor = floorOf(hits, limit);
    if (floor && order[at]!.upper < floor.score!) break;
    if (!budget.resolved && scoredCount >= firstRound) {
      // Past its first round the ranking is slow to settle: tighten the bounds left open
      // (the hits, and so the floor, stay as they are).
      budget.resolved = true;
      const open: Candidate[] = [];
      for (let k = at; k < order.length; k++) if (!floor || order[k]!.upper >= floor.score!) open.push(order[k]!);
      await resolveDocuments(db, { phrases, budget, documents }, open, true);
      for (const c of open) bound(c, phrases);
      order = [...order.slice(0, at), ...order.slice(at).sort(byUpper)];
      if (floor && order[at]!.upper < floor.score!) break;
    }
    if (scoredCount >= RANK_MAX) return null;
    // Room is kept for checking the hits still missing: scoring more than the budget can
    // then check would only find out later that it cannot finish.
    const reserve = Math.max(0, limit - hits.length) * CHECK_COST;
    if (budget.left - reserve < SCORE_COST)
      raiseBudget(budget, (order.length - scoredCount + pending.length) * FINISH_COST);
    const room = Math.min(size, Math.floor((budget.left - reserve) / SCORE_COST));
    const chunk: Candidate[] = [];
    for (; at < order.length && chunk.length < room; at++) if (order[at]!.score === undefined) chunk.push(order[at]!);
    if (chunk.length === 0) return null;
    budget.left -= chunk.length * SCORE_COST;
    scoredCount += chunk.length;
    await scoreExactly(db, { phrases, avgdl }, chunk);
    pending = [...pending, ...chunk].sort(better);
  }
  if (hits.length < limit) return null;
  const ranked: Ranked[] = [];
  for (const c of hits) ranked.push({ id: c.id!, n: c.n, score: c.score! });
  return { hits: ranked, floor: hits[limit - 1]!.score! };
}

/** The `limit`-th best hit, once there are that many. */
function floorOf(hits: readonly Candidate[], limit: number): Candidate | null {
  return hits.length >= limit ? hits[limit - 1]! : null;
}

/** Whether `c` would enter the best `limit` hits. */
function mayEnter(c: Candidate, hits: readonly Candidate[], limit: number): boolean {
  const floor = floorOf(hits, limit);
  return floor === null || better(c, floor) < 0;
}
