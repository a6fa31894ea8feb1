import { type SQL, sql } from 'drizzle-orm';
import type { ClaimTag, EntryKind, EntryStatus, Volatility } from '../contract/enums.ts';
import { badInput } from '../contract/errors.ts';
import { checkRange, filterTags, LIMITS } from '../contract/limits.ts';
import { READ_DEFAULTS } from '../contract/policy.ts';
import { type Db, onReaderThread, taskModuleUrl } from '../db/client.ts';
import { edgeFromRow, entryFromRow } from '../db/mappers.ts';
import { contentCut, entryColumnsCut, jsonList, readTogether } from '../db/rows.ts';
import type { EdgeRow, EntryRow } from '../db/schema.ts';
import { textsByIds } from '../memory/queries.ts';
import { fuseRankings, type RecallArm } from './fuse.ts';
import { edgesAmongQuery, type WalkNode, walkGraph } from './graph.ts';
import { searchKeyword } from './keyword.ts';
import { LruCache, SeenBefore } from './lru.ts';
import { RANKING_POLICY } from './policy.ts';
import { buildPrefilter, effectiveStatuses } from './prefilter.ts';
import { buildMatchExpression, contentStems, extractTerms, lightStem } from './query.ts';
import {
  coverageFactor,
  decayFactor,
  importanceFactor,
  mmrSelect,
  recallBoostFactor,
  tagOverlapFactor,
} from './rerank.ts';
import { planSnippets, snippetSource } from './snippet.ts';
import { rewriteTemporal } from './temporal.ts';
import { cpuTurn } from './turns.ts';
import {
  armFromMatrix,
  nearestVectors,
  type VectorArmParts,
  type VectorArmResult,
  type VectorSource,
  vectorArmOn,
} from './vector.ts';

export interface RecallInput {
  query: string;
  topK?: number;
  hops?: number;
  full?: boolean;
  tag?: string | null;
  kind?: EntryKind | null;
  filter?: {
    kinds?: EntryKind[] | null;
    statuses?: EntryStatus[] | null;
    volatilities?: Volatility[] | null;
    claimTags?: ClaimTag[] | null;
    tags?: string[] | null;
    since?: Date | null;
    until?: Date | null;
  } | null;
  asOf?: Date | null;
}

export interface RecallExplain {
  keywordRank: number | null;
  /** Okapi bm25 relevance as a positive number (FTS5's bm25() negated). */
  bm25: number | null;
  graphScore: number | null;
  vectorRank: number | null;
  /** Beyond the contract: cosine of the entry's vector to the query's (null: no vector arm, or no vector yet). */
  cosine: number | null;
  rrf: number;
  /** Beyond the contract: relative bm25 plus neighbour support (see RANKING_POLICY.neighbourSupport). */
  match: number;
  /** Beyond the contract: the query-term coverage factor. */
  coverage: number;
  decay: number;
  recallBoost: number;
  importance: number;
  tagOverlap: number;
  final: number;
}

export interface RecallHitResult {
  /** Its `content` is only the text's start when `contentCut` (whole with `full`). */
  entry: EntryRow;
  /** Recall read the start of a long text only: whoever shows `content` reads it whole. */
  contentCut: boolean;
  /** The entry's tags, sorted, and whether a SUPERSEDES edge points at it: read with it, for its fields. */
  tags: string[];
  superseded: boolean;
  rank: number;
  score: number;
  snippet: string;
  truncated: boolean;
  arms: RecallArm[];
  hop: number | null;
  via: EdgeRow | null;
  explain: RecallExplain;
}

export interface RecallOutput {
  query: string;
  queryUsed: string;
  timeRange: { from: Date | null; to: Date | null; phrase: string } | null;
  hits: RecallHitResult[];
  candidates: number;
  usedChars: number;
  budgetChars: number | null;
  omitted: { entryId: string; reason: string }[];
  policyVersion: string;
  /** The vector arm's part, or null when no embedder is configured. */
  vectorArm: VectorArmStatus | null;
}

export interface VectorArmStatus {
  model: string;
  /** Vectors searched (after a narrowing prefilter). */
  searched: number;
  /** Candidates that had no vector yet: ranked by the other arms only. */
  withoutVector: number;
  /** Why the arm did not run, or null. */
  skipped: string | null;
}

/** Entries tagged this are machine-written patterns, never returned by recall. */
const AUTO_PATTERN_TAG = 'auto-pattern';

interface Hydrated {
  /** `content` is its first `snippetSource()` characters when `cut` (see hydrateQuery). */
  entry: EntryRow;
  cut: boolean;
  /** Sorted, as the entry's `tags` field lists them. */
  tags: string[];
  /** The entry that supersedes this one, when a SUPERSEDES edge points at it. */
  supersededBy: string | null;
}

interface Scored {
  id: string;
  hydrated: Hydrated;
  ranks: Partial<Record<RecallArm, number>>;
  rrf: number;
  bm25: number | null;
  node: WalkNode | null;
  graphScore: number | null;
  cosine: number | null;
  match: number;
  coverage: number;
  decay: number;
  recallBoost: number;
  importance: number;
  tagOverlap: number;
  final: number;
  /** The final score the keyword and graph arms alone give (0: only the vector arm found it). */
  lexical: number;
  stems: Set<string>;
}

// Counted in stems (a few MB per workspace): a recall touches ~150 candidates, most of a few
// dozen stems, so this keeps many recalls' worth, and entries of a thousand stems fewer.
const STEMS_CACHE_MAX = 100_000;
/** Entries the stems cache remembers having seen once (see SeenBefore): 64 KB per workspace. */
const STEMS_SEEN_SLOTS = 16_384;

interface StemsCache {
  kept: LruCache<string, { hash: string; stems: Set<string> }>;
  seen: SeenBefore;
}
/**
 * Per workspace (keyed by its database handle, and gone with it), so that a workspace whose
 * recalls stream through many entries only ever pushes out its own.
 */
const stemsCaches = new WeakMap<Db, StemsCache>();

/** The stems cache of one workspace's database. */
export function stemsCacheFor(db: Db): StemsCache {
  let cache = stemsCaches.get(db);
  if (!cache) {
    cache = { kept: new LruCache(STEMS_CACHE_MAX, (v) => v.stems.size + 1), seen: new SeenBefore(STEMS_SEEN_SLOTS) };
    stemsCaches.set(db, cache);
  }
  return cache;
}

/**
 * An entry's stemmed words, remembered by content hash: the same candidates come back
 * query after query (10k entries, the same 30 questions asked over and over: tokenizing
 * them again cost 15% more CPU per recall).
 * Scores are still computed per request; only this pure function of the content is kept.
 *
 * Only entries seen before are kept: in a large workspace most candidates come up once in
 * a long while, and keeping every one made a recall dearer than tokenizing it again (the
 * kept sets outlive young collections and churn the old generation; at 100k entries with
 * varied questions 7% of lookups found their entry).
 *
 * @example entryStems(db, entry) // Set { 'deploy', 'fail', 'friday' }
 */
export function entryStems(db: Db, entry: EntryRow): Set<string> {
  const { kept, seen } = stemsCacheFor(db);
  const hit = kept.get(entry.id);
  if (hit && hit.hash === entry.contentHash) return hit.stems;
  const stems = contentStems(entry.content);
  if (hit || seen.again(entry.id)) kept.set(entry.id, { hash: entry.contentHash, stems });
  return stems;
}

/**
 * Loads the candidates that pass the prefilter, with their tags and their successor, in one
 * statement.
 */
async function hydrate(db: Db, ids: readonly string[], prefilter: SQL): Promise<Map<string, Hydrated>> {
  if (ids.length === 0) return new Map();
  return hydrated(await db.all<Record<string, unknown>>(hydrateQuery(ids, prefilter)));
}

function hydrateQuery(ids: readonly string[], prefilter: SQL): SQL {
  // Correlated on e.id explicitly. The successor comes from the index of SUPERSEDES edges
  // alone: one probe per candidate, where the dst index read the row of every edge into it.
  // A candidate's text is read as far as ranking and its snippet look (snippetSource): a
  // hundred candidates of 100,000 characters would otherwise be 20 MB to move and collect
  // on the thread that serves every request. Whole texts are read for the hits that need them.
  const window = snippetSource();
  return sql`
    SELECT ${entryColumnsCut(window)},
      (SELECT json_group_array(tag) FROM (SELECT t.tag FROM tags t WHERE t.entry_id = e.id ORDER BY t.tag)) AS tags_json,
      (SELECT s.src FROM edges s INDEXED BY edges_supersedes_idx
        WHERE s.dst = e.id AND s.type = 'SUPERSEDES' ORDER BY s.created_at DESC LIMIT 1) AS superseded_by
    FROM entries e
    WHERE e.id IN ${jsonList(ids)} AND ${prefilter}`;
}

function hydrated(rows: Record<string, unknown>[]): Map<string, Hydrated> {
  const out = new Map<string, Hydrated>();
  for (const row of rows) {
    const entry = entryFromRow(row);
    const supersededBy = (row.superseded_by ?? null) as string | null;
    out.set(entry.id, {
      entry,
      cut: contentCut(row),
      tags: JSON.parse(String(row.tags_json)) as string[],
      supersededBy,
    });
  }
  return out;
}

function emptyOutput(
  query: string,
  queryUsed: string,
  timeRange: RecallOutput['timeRange'],
  full: boolean,
): RecallOutput {
  return {
    query,
    queryUsed,
    timeRange,
    hits: [],
    candidates: 0,
    usedChars: 0,
    budgetChars: full ? null : RANKING_POLICY.snippet.totalChars,
    omitted: [],
    policyVersion: RANKING_POLICY.version,
    vectorArm: null,
  };
}

function checkDate(value: Date | null | undefined, field: string): Date | null {
  if (value === null || value === undefined) return null;
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw badInput(`${field} is not a valid date`, field);
  return value;
}

/**
 * Ranked recall (CONTRACT §6): temporal rewrite → prefilter → keyword arm (FTS5 bm25) →
 * graph arm (walk from the best keyword hits) → reciprocal rank fusion → rerank (decay,
 * recall boost, importance, tag overlap, query coverage, superseded penalty) → hydration
 * drops → MMR → snippets. Reads only; the caller records recall counts.
 *
 * @example
 * const out = await recallEntries(db, { query: 'why did the deploy fail last week', topK: 5 });
 * out.timeRange?.phrase; // 'last week'
 * out.hits[0].explain;   // { keywordRank: 1, bm25: 7.1, graphScore: 1, rrf: 0.0328, ... }
 */
export async function recallEntries(
  db: Db,
  input: RecallInput,
  now: Date = new Date(),
  vectors: VectorSource | null = null,
): Promise<RecallOutput> {
  // Checked here, so that a bad argument is refused before any thread is asked. The vector
  // arm searches here, where the workspace's matrix and the embedder are; what it found (the
  // query's vector and the nearest entries) goes with the recall.
  const plan = vectors ? planRecall(input, now) : null;
  if (!plan) readArgs(input, now);
  const arm =
    vectors && plan && plan.match !== null
      ? await nearestVectors(db, vectors, plan.queryUsed, plan.prefilter, plan.narrowed)
      : null;
  // Ranked where its rows are read: on a reader thread, when the database has them, the
  // whole recall runs there and only its answer comes back to the thread that serves every
  // request.
  const there = await onReaderThread<RecallOutput>(db, READ_TASKS, 'recall', {
    input,
    now,
    vector: arm?.parts ?? null,
  });
  if (there) return there.value;
  return recallHere(db, input, now, arm && armFromMatrix(arm.parts, arm.matrix));
}

/** The module a reader thread runs recall from (see read-tasks.ts). */
const READ_TASKS = taskModuleUrl('read-tasks', import.meta.url);

/** What recall knows before it reads anything: its arguments checked, the query rewritten, its prefilter. */
function planRecall(input: RecallInput, now: Date) {
  const args = readArgs(input, now);
  const { timeRange, queryUsed } = rewriteTemporal(args.query, args.asOf);
  // `kind` and `filter.kinds` both apply; when they exclude each other nothing matches.
  const filter = input.filter ?? {};
  let kinds = filter.kinds && filter.kinds.length > 0 ? [...filter.kinds] : null;
  if (input.kind) kinds = kinds ? kinds.filter((k) => k === input.kind) : [input.kind];
  const tags = filterTags([...(filter.tags ?? []), ...(input.tag != null ? [input.tag] : [])], 'tag');
  const statuses = effectiveStatuses(filter);
  const prefilter = buildPrefilter({ ...filter, kinds, tags, since: args.since, until: args.until, timeRange });
  const { terms, onlyStopWords } = extractTerms(queryUsed);
  // A query that is only a time phrase (maybe with a few stop words: "what happened last
  // week") lists that range, newest first.
  const listsRange = timeRange !== null && (terms.length === 0 || onlyStopWords);
  const nothing = kinds !== null && kinds.length === 0;
  const match = nothing || listsRange ? null : buildMatchExpression(terms);
  const narrowed =
    Boolean(kinds || tags.length > 0 || filter.statuses?.length || filter.volatilities?.length) ||
    Boolean(filter.claimTags?.length || args.since || args.until || timeRange);
  return { args, timeRange, queryUsed, statuses, prefilter, terms, nothing, listsRange, match, narrowed };
}

/**
 * recallEntries, on the thread it is called on. `vector` is what the vector arm found: with
 * the matrix's vectors (on the request thread), or as sent to a reader thread, whose
 * candidates' vectors are then read from the database.
 *
 * `turns`: on the request thread, each recall starts, and scores, in a turn of the event
 * loop of its own (see cpuTurn). A reader thread runs each recall through instead (its
 * reads there are synchronous), and turns to another workspace's calls between recalls:
 * there, interleaving recalls would only keep each one's rows alive longer (at 100k: 60%
 * more of each recall's memory outlived young collections, and collection took 70% more
 * CPU) and answer all of them later.
 */
export async function recallHere(
  db: Db,
  input: RecallInput,
  now: Date,
  vector: VectorArmResult | VectorArmParts | null,
  turns = true,
): Promise<RecallOutput> {
  const plan = planRecall(input, now);
  // The recalls of one document (15 aliases are allowed), or of many requests, whose reads
  // answer together would otherwise run as one unbroken stretch of callbacks: each recall
  // starts, and scores, in a turn of its own, and other requests run between (see cpuTurn).
  if (turns) await cpuTurn();
  const { query, topK, full, asOf } = plan.args;
  const { timeRange, queryUsed, statuses, prefilter, terms } = plan;
  const empty = () => emptyOutput(query, queryUsed, timeRange, full);
  if (plan.nothing) return empty();
  if (plan.listsRange && timeRange) {
    return wholeTexts(
      db,
      await listTimeRange(db, { query, queryUsed, timeRange, prefilter, topK, full, statuses, asOf }),
    );
  }
  const match = plan.match;
  if (match === null) return empty();
  const candidates = await gatherCandidates(db, match, prefilter, plan.args.hops, vector, terms);
  if (!candidates) return { ...empty(), vectorArm: vector && armStatus(vector, []) };
  const arm = candidates.vector;
  const queryStems = [...new Set(terms.map(lightStem))];
  if (turns) await cpuTurn();
  const scored = scoreCandidates(db, candidates, terms, queryStems, asOf.getTime());
  if (arm) guardHead(scored);
  // The first hits are the ones keyword-only recall returns, in its order: the vector arm adds below them.
  const head = arm ? keywordOnlyHead(scored, statuses, Math.min(topK, RANKING_POLICY.vector.head)) : [];
  keepBelowSuccessors(scored);
  const headIds = new Set(head);
  const vectorOf = arm ? (id: string) => (headIds.has(id) ? null : arm.vectorOf(id)) : undefined;
  const mmrFloor = vector?.mmrFloor;
  const out = await wholeTexts(
    db,
    finish({ query, queryUsed, timeRange, scored, topK, full, statuses, queryStems, vectorOf, mmrFloor, head }),
  );
  return arm ? { ...out, vectorArm: armStatus(arm, scored) } : out;
}

/**
 * With `full`, snippets are whole texts: the hits whose text recall read only the start of
 * are read whole, in one statement (at most topK of them).
 */
async function wholeTexts(db: Db, out: RecallOutput): Promise<RecallOutput> {
  const cut = out.hits.filter((h) => h.contentCut);
  if (out.budgetChars !== null || cut.length === 0) return out;
  const whole = await textsByIds(
    db,
    cut.map((h) => h.entry.id),
  );
  const hits = out.hits.map((h) => {
    const content = h.contentCut ? whole.get(h.entry.id) : undefined;
    // Forgotten meanwhile: the hit keeps what recall read.
    if (content === undefined) return h;
    return { ...h, entry: { ...h.entry, content }, contentCut: false, snippet: content, truncated: false };
  });
  return { ...out, hits, usedChars: hits.reduce((n, h) => n + h.snippet.length, 0) };
}

function armStatus(
  vector: Pick<VectorArmResult, 'model' | 'searched' | 'skipped'>,
  scored: readonly Scored[],
): VectorArmStatus {
  const withoutVector = scored.filter((s) => s.cosine === null).length;
  return { model: vector.model, searched: vector.searched, withoutVector, skipped: vector.skipped };
}

/** recall's arguments, each checked against its limit. */
function readArgs(input: RecallInput, now: Date) {
  const { query } = input;
  if (typeof query !== 'string' || query.length < LIMITS.queryLength[0] || query.length > LIMITS.queryLength[1]) {
    throw badInput(`query must be ${LIMITS.queryLength[0]} to ${LIMITS.queryLength[1]} characters`, 'query');
  }
  return {
    query,
    topK: checkRange(input.topK ?? READ_DEFAULTS.recall.topK, LIMITS.topK, 'topK'),
    hops: checkRange(input.hops ?? READ_DEFAULTS.recall.hops, LIMITS.hops, 'hops'),
    full: input.full ?? false,
    asOf: checkDate(input.asOf, 'asOf') ?? now,
    since: checkDate(input.filter?.since, 'since'),
    until: checkDate(input.filter?.until, 'until'),
  };
}

/** What the arms found, hydrated and fused, with the edges among them. */
interface Candidates {
  keyword: Awaited<ReturnType<typeof searchKeyword>>;
  nodes: Map<string, WalkNode>;
  rows: Map<string, Hydrated>;
  fused: ReturnType<typeof fuseRankings>;
  /** Every edge between two candidates, heaviest first (edgesAmong). */
  edges: EdgeRow[];
  vector: VectorArmResult | null;
}

/**
 * The keyword arm, then the graph arm from its best hits, hydrated through the prefilter
 * and fused by RRF; null when the keyword arm finds nothing.
 */
async function gatherCandidates(
  db: Db,
  match: string,
  prefilter: SQL,
  hops: number,
  found: VectorArmResult | VectorArmParts | null,
  terms: readonly string[],
): Promise<Candidates | null> {
  const policy = RANKING_POLICY;
  const keyword = await searchKeyword(db, match, prefilter, policy.keyword.candidateLimit, terms);
  const near = found?.ranking ?? [];
  if (keyword.length === 0 && near.length === 0) return null;
  // Graph arm: seeds carry their bm25 relative to the best hit, so a neighbour of a strong
  // match outranks a neighbour of a weak one; the seeds themselves are ranked in the arm too
  // (otherwise every neighbour would tie with keyword rank 1).
  let walk: WalkNode[] = [];
  if (hops > 0 && keyword.length > 0) {
    const top = keyword[0]!.bm25;
    const seeds: { id: string; score: number }[] = [];
    for (const h of keyword.slice(0, policy.graph.seedCount))
      seeds.push({ id: h.id, score: top < 0 ? h.bm25 / top : 1 });
    const options = {
      fanout: policy.graph.fanout,
      nodeCap: policy.graph.nodeCap,
      viaEdges: false,
      skipInferred: found !== null && policy.vector.ignoreInferredNeighbours,
    };
    walk = (await walkGraph(db, seeds, hops, options)).nodes;
  }
  const unique = new Set<string>();
  for (const h of keyword) unique.add(h.id);
  for (const n of walk) unique.add(n.id);
  for (const m of near) unique.add(m.id);
  const ids = [...unique];
  // Sent from the request thread, the arm has the vectors of its nearest entries there: the
  // candidates' are read here.
  const vector = found && ('cosineOf' in found ? found : await vectorArmOn(db, found, ids));
  // One request for both: the edges among all candidates hold the ones the walk arrived by
  // (a node's predecessor is always kept with it) and the links neighbour smoothing needs.
  const [entryRows = [], edgeList = []] = await readTogether(db, [hydrateQuery(ids, prefilter), edgesAmongQuery(ids)]);
  const rows = hydrated(entryRows);
  const edges: EdgeRow[] = [];
  const byEnds = new Map<string, EdgeRow>();
  for (const row of edgeList) {
    const e = edgeFromRow(row);
    edges.push(e);
    byEnds.set(`${e.src}\u0000${e.dst}\u0000${e.type}`, e);
  }
  for (const n of walk) if (n.viaEnds) n.viaEdge = byEnds.get(n.viaEnds.join('\u0000')) ?? null;
  // Graph-only nodes pass the same prefilter as keyword hits: those hydrate() did not return are out.
  const nodes = new Map<string, WalkNode>();
  for (const n of walk) if (rows.has(n.id)) nodes.set(n.id, n);
  const arms: Parameters<typeof fuseRankings>[0] = {
    KEYWORD: idsIn(keyword, rows),
    GRAPH: idsIn([...nodes.values()].sort(byGraphScore), rows),
  };
  if (vector) arms.VECTOR = idsIn(near, rows).slice(0, policy.vector.candidateLimit);
  return { keyword, nodes, rows, fused: fuseRankings(arms), edges, vector };
}

// Recall's hot paths keep their callbacks at module level or write loops: V8 holds a
// closure's optimized code only while a closure of it lives, so a callback made per call is
// compiled again after every major garbage collection (see docs/architecture.md#recall).

/** The ids of `items`, in order, that `rows` holds. */
function idsIn(items: readonly { id: string }[], rows: ReadonlyMap<string, unknown>): string[] {
  const ids: string[] = [];
  for (const { id } of items) if (rows.has(id)) ids.push(id);
  return ids;
}

const byGraphScore = (a: WalkNode, b: WalkNode): number => b.score - a.score || a.hop - b.hop;

/** Links among the fused candidates, both ways, for neighbour smoothing. */
function neighboursAmong(edges: readonly EdgeRow[], ids: string[]): Map<string, { id: string; weight: number }[]> {
  const among = new Set(ids);
  const neighbours = new Map<string, { id: string; weight: number }[]>();
  for (const e of edges) {
    if (!among.has(e.src) || !among.has(e.dst)) continue;
    neighbours.set(e.src, [...(neighbours.get(e.src) ?? []), { id: e.dst, weight: e.weight }]);
    neighbours.set(e.dst, [...(neighbours.get(e.dst) ?? []), { id: e.src, weight: e.weight }]);
  }
  return neighbours;
}

/** Every fused candidate with its score parts (see RecallExplain) and final score. */
function scoreCandidates(
  db: Db,
  { keyword, nodes, rows, fused, edges, vector }: Candidates,
  terms: string[],
  queryStems: string[],
  asOfMs: number,
): Scored[] {
  // Neighbours count among what the lexical arms found: a candidate only the vector arm
  // brought must not lend a keyword hit its words (that changed keyword-only's order).
  const lexicalIds: string[] = [];
  for (const c of fused) if (c.ranks.KEYWORD !== undefined || c.ranks.GRAPH !== undefined) lexicalIds.push(c.id);
  const neighbours = neighboursAmong(
    vector && RANKING_POLICY.vector.ignoreInferredNeighbours ? edges.filter(isStated) : edges,
    lexicalIds,
  );
  const bm25ById = new Map<string, number>();
  for (const h of keyword) bm25ById.set(h.id, -h.bm25);
  const best = keyword.length > 0 ? -keyword[0]!.bm25 : 0;
  const vectorMatch = vectorMatcher(vector);
  const stemsById = new Map<string, Set<string>>();
  for (const c of fused) stemsById.set(c.id, entryStems(db, rows.get(c.id)!.entry));
  const out: Scored[] = [];
  for (const c of fused) {
    const hydrated = rows.get(c.id)!;
    const stems = stemsById.get(c.id)!;
    const node = nodes.get(c.id) ?? null;
    const linked = neighbours.get(c.id) ?? [];
    let support = 0;
    const linkedStems: Set<string>[] = [];
    for (const n of linked) {
      support = Math.max(support, n.weight * relativeBm25(bm25ById, best, n.id));
      linkedStems.push(stemsById.get(n.id)!);
    }
    const cosine = vector ? vector.cosineOf(c.id) : null;
    const lexical = {
      rrf: c.rrf - vectorRrf(c.ranks.VECTOR),
      match: Math.max(relativeBm25(bm25ById, best, c.id) + RANKING_POLICY.neighbourSupport * support, node?.score ?? 0),
      coverage: coverageFactor(stems, linkedStems, queryStems),
      tagOverlap: tagOverlapFactor(hydrated.tags, terms),
    };
    const parts = {
      ...lexical,
      rrf: c.rrf,
      match: Math.max(lexical.match, vectorMatch(cosine)) * cosineFactor(cosine),
    };
    const bm25 = bm25ById.get(c.id) ?? null;
    out.push({
      id: c.id,
      ranks: c.ranks,
      bm25,
      node,
      graphScore: node?.score ?? null,
      cosine,
      stems,
      lexical: vector && lexical.rrf > 0 ? score(hydrated, lexical, asOfMs).final : 0,
      ...score(hydrated, parts, asOfMs),
    });
  }
  return out;
}

const isStated = (e: EdgeRow): boolean => e.provenance !== 'INFERRED';

/** A keyword hit's bm25 relative to the best hit's (0 for an entry that is not one). */
function relativeBm25(bm25ById: ReadonlyMap<string, number>, best: number, id: string): number {
  return best > 0 ? (bm25ById.get(id) ?? 0) / best : 0;
}

/** What the vector arm added to an entry's RRF: taken off again for its lexical score. */
function vectorRrf(rank: number | undefined): number {
  return rank === undefined ? 0 : RANKING_POLICY.armWeights.VECTOR / (RANKING_POLICY.rrfK + rank);
}

/**
 * The cosine as a rerank factor on every candidate (RANKING_POLICY.vector.cosineRerank):
 * among keyword hits of one strength, the one nearer the question in meaning goes first.
 */
function cosineFactor(cosine: number | null): number {
  const w = RANKING_POLICY.vector.cosineRerank;
  return w > 0 && cosine !== null ? 1 + w * Math.max(0, cosine) : 1;
}

/**
 * The `head` best candidates by the lexical arms alone keep their order and places; the
 * vector arm orders only what comes after them.
 */
function guardHead(scored: Scored[]): void {
  const head = RANKING_POLICY.vector.head;
  if (head <= 0) return;
  const lexical = scored.filter((s) => s.lexical > 0).sort((a, b) => b.lexical - a.lexical);
  if (lexical.length === 0) return;
  const top = new Set(lexical.slice(0, head));
  const floor = Math.min(...[...top].map((s) => s.lexical));
  const rest = scored.filter((s) => !top.has(s));
  const max = rest.reduce((m, s) => Math.max(m, s.final), 0);
  const scale = max >= floor ? (floor / max) * 0.999 : 1;
  for (const s of top) s.final = s.lexical;
  for (const s of rest) s.final *= scale;
}

/** The vector arm's match strength for a cosine (see RANKING_POLICY.vector); 0 without the arm. */
function vectorMatcher(vector: VectorArmResult | null): (cosine: number | null) => number {
  const best = vector?.ranking[0]?.cosine ?? 0;
  if (!vector || best <= 0) return () => 0;
  const { matchWeight, sharpness } = RANKING_POLICY.vector;
  return (cosine) => (cosine === null || cosine <= 0 ? 0 : matchWeight * Math.min(1, cosine / best) ** sharpness);
}

/**
 * The final score, the one formula: rrf × match × coverage × time decay × recall boost ×
 * importance × tag overlap, × the superseded penalty for an entry something replaced.
 */
function score(
  hydrated: Hydrated,
  parts: { rrf: number; match: number; coverage: number; tagOverlap: number },
  asOfMs: number,
) {
  const { entry } = hydrated;
  const decay = decayFactor(entry, asOfMs);
  const recallBoost = recallBoostFactor(entry.recallCount);
  const importance = importanceFactor(entry.importance);
  const superseded = entry.status === 'SUPERSEDED' || hydrated.supersededBy !== null;
  const penalty = superseded ? RANKING_POLICY.supersededPenalty : 1;
  const final =
    parts.rrf * parts.match * parts.coverage * decay * recallBoost * importance * parts.tagOverlap * penalty;
  return { hydrated, ...parts, decay, recallBoost, importance, final };
}

/**
 * A superseded entry ranks below its successor whenever both are candidates: the penalty
 * alone cannot promise that when the old text happens to match the query better.
 */
function keepBelowSuccessors(scored: Scored[]): void {
  const byId = new Map(scored.map((s) => [s.id, s]));
  // Chains (a supersedes b supersedes c) settle in as many passes as they are long; three is plenty.
  for (let pass = 0; pass < 3; pass++) {
    for (const s of scored) {
      const successor = s.hydrated.supersededBy ? byId.get(s.hydrated.supersededBy) : undefined;
      if (successor && s.final >= successor.final) s.final = successor.final * RANKING_POLICY.supersededPenalty;
    }
  }
}

interface FinishInput {
  query: string;
  queryUsed: string;
  timeRange: RecallOutput['timeRange'];
  /** Every fused candidate, scored. */
  scored: Scored[];
  topK: number;
  full: boolean;
  statuses: readonly EntryStatus[];
  queryStems: string[];
  /** Keep this order instead of relevance + MMR (time-only queries: newest first). */
  fixedOrder?: boolean;
  /** Entries' vectors (embeddings on): MMR then also compares meaning, not only words. */
  vectorOf?: (id: string) => Float32Array | null;
  /** The model's cosine below which vectors count as no likeness for MMR. */
  mmrFloor?: number;
  /** Ids picked first, in this order (keyword-only's first hits when the vector arm is on). */
  head?: readonly string[];
}

/** Why a candidate is left out whatever its score (null: it may be picked). */
function ineligible(s: Scored, statuses: readonly EntryStatus[]): string | null {
  if (s.hydrated.tags.includes(AUTO_PATTERN_TAG)) return 'auto-pattern';
  if (s.hydrated.entry.status === 'DEPRECATED' && !statuses.includes('DEPRECATED')) return 'deprecated';
  return null;
}

/** A candidate as MMR sees it: its score, its first stems and (embeddings on) its vector. */
type ScoredItem = ReturnType<typeof mmrItem>;

function mmrItem(s: Scored, score: number, vector: Float32Array | null) {
  return { id: s.id, score, tokens: firstOf(s.stems, RANKING_POLICY.text.similarityStemsMax), vector, scored: s };
}

/**
 * The first `n` hits recall returns with no embedder: the lexical arms' scores (successors
 * kept above what they supersede), MMR by words only.
 */
function keywordOnlyHead(scored: readonly Scored[], statuses: readonly EntryStatus[], n: number): string[] {
  const lexical = scored.filter((s) => s.lexical > 0).map((s) => ({ ...s, final: s.lexical }));
  keepBelowSuccessors(lexical);
  const items = lexical
    .filter((s) => ineligible(s, statuses) === null)
    .sort((a, b) => b.final - a.final)
    .map((s) => mmrItem(s, s.final, null));
  const { lambda, cosineFloor } = RANKING_POLICY.mmr;
  return successorsFirst(mmrSelect(items, n, lambda, cosineFloor).map((i) => i.scored)).map((s) => s.id);
}

/** Hydration drops, MMR, snippets, omissions: the part both kinds of query share. */
function finish(input: FinishInput): RecallOutput {
  const policy = RANKING_POLICY;
  const { scored, topK, full, statuses } = input;
  const omitted: { entryId: string; reason: string; score: number }[] = [];
  const eligible: Scored[] = [];
  for (const s of scored) {
    const reason = ineligible(s, statuses);
    if (reason) omitted.push({ entryId: s.id, reason, score: s.final });
    else eligible.push(s);
  }

  let picked: Scored[];
  if (input.fixedOrder) {
    picked = eligible.slice(0, topK);
  } else {
    eligible.sort(byFinal);
    const vectorOf = input.vectorOf;
    // Small items that point at their candidate: copying every candidate's score parts into
    // them cost more than the selection itself.
    const items: ScoredItem[] = [];
    const byId = new Map<string, ScoredItem>();
    for (const s of eligible) {
      const item = mmrItem(s, s.final, vectorOf ? vectorOf(s.id) : null);
      items.push(item);
      byId.set(item.id, item);
    }
    const head: ScoredItem[] = [];
    for (const id of input.head ?? []) {
      const item = byId.get(id);
      if (item) head.push(item);
    }
    const floor = input.mmrFloor ?? policy.mmr.cosineFloor;
    picked = successorsFirst(scoredOf(mmrSelect(items, topK, policy.mmr.lambda, floor, head)));
  }
  const pickedIds = new Set<string>();
  let lowestPicked = Number.POSITIVE_INFINITY;
  const texts: string[] = [];
  const lengths: number[] = [];
  for (const s of picked) {
    pickedIds.add(s.id);
    lowestPicked = Math.min(lowestPicked, s.final);
    texts.push(s.hydrated.entry.content);
    // A cut text goes on past its window: its snippet ends with a mark.
    lengths.push(s.hydrated.cut ? Number.POSITIVE_INFINITY : s.hydrated.entry.content.length);
  }
  for (const s of eligible) {
    if (pickedIds.has(s.id)) continue;
    const reason = !input.fixedOrder && s.final > lowestPicked ? 'mmr-diversity' : 'below topK';
    omitted.push({ entryId: s.id, reason, score: s.final });
  }
  omitted.sort(byScore);

  const plan = planSnippets(texts, new Set(input.queryStems), full, policy, lengths);
  const hits: RecallHitResult[] = [];
  for (const s of picked) hits.push(toHit(s, hits.length + 1, plan.snippets[hits.length]!));
  return {
    query: input.query,
    queryUsed: input.queryUsed,
    timeRange: input.timeRange,
    hits,
    candidates: scored.length,
    usedChars: plan.usedChars,
    budgetChars: plan.budgetChars,
    omitted: omitted.slice(0, policy.omittedMax).map(({ entryId, reason }) => ({ entryId, reason })),
    policyVersion: policy.version,
    vectorArm: null,
  };
}

const byFinal = (a: Scored, b: Scored): number => b.final - a.final;
const byScore = (a: { score: number }, b: { score: number }): number => b.score - a.score;

function scoredOf(items: readonly ScoredItem[]): Scored[] {
  const out: Scored[] = [];
  for (const item of items) out.push(item.scored);
  return out;
}

/** A picked candidate as recall returns it, with its score parts. */
function toHit(s: Scored, rank: number, snippet: { text: string; truncated: boolean }): RecallHitResult {
  return {
    entry: s.hydrated.entry,
    contentCut: s.hydrated.cut,
    tags: s.hydrated.tags,
    superseded: s.hydrated.supersededBy !== null,
    rank,
    score: s.final,
    snippet: snippet.text,
    truncated: snippet.truncated,
    arms: (['KEYWORD', 'GRAPH', 'VECTOR'] as const).filter((a) => s.ranks[a] !== undefined),
    hop: s.node?.hop ?? null,
    via: s.node?.viaEdge ?? null,
    explain: {
      keywordRank: s.ranks.KEYWORD ?? null,
      bm25: s.bm25,
      graphScore: s.graphScore,
      vectorRank: s.ranks.VECTOR ?? null,
      cosine: s.cosine,
      rrf: s.rrf,
      match: s.match,
      coverage: s.coverage,
      decay: s.decay,
      recallBoost: s.recallBoost,
      importance: s.importance,
      tagOverlap: s.tagOverlap,
      final: s.final,
    },
  };
}

/** The first `max` members of a set (in the order they were added: text order, for stems). */
function firstOf<T>(set: Set<T>, max: number): Set<T> {
  if (set.size <= max) return set;
  const out = new Set<T>();
  for (const x of set) {
    if (out.size >= max) break;
    out.add(x);
  }
  return out;
}

/**
 * MMR may still pick an old version before its successor: each picked entry goes just after
 * its successor when both are picked, older versions of one entry newest first. Linear in
 * the picks and safe on any data: a successor pointer that would close a cycle (data older
 * than the rule that refuses such edges) is ignored where the walk finds it, so every entry
 * is placed exactly once.
 *
 * @example
 * // b supersedes a, c supersedes b; MMR picked [a, x, c, b]
 * successorsFirst([a, x, c, b]) // [x, c, b, a]
 */
function successorsFirst(picked: Scored[]): Scored[] {
  const position = new Map<string, number>();
  for (const [i, s] of picked.entries()) position.set(s.id, i);
  // Each pick's successor among the picks, as an index (-1: none picked).
  const successor: number[] = [];
  for (const s of picked) {
    const next = s.hydrated.supersededBy;
    successor.push(next == null ? -1 : (position.get(next) ?? -1));
  }
  // Cut each cycle where a walk along successors first comes back to itself.
  const state = new Uint8Array(picked.length); // 0 unseen, 1 on the current walk, 2 settled
  for (let start = 0; start < picked.length; start++) {
    const walk: number[] = [];
    let i = start;
    while (i !== -1 && state[i] === 0) {
      state[i] = 1;
      walk.push(i);
      const next = successor[i]!;
      if (next !== -1 && state[next] === 1) successor[i] = -1;
      i = successor[i]!;
    }
    for (const w of walk) state[w] = 2;
  }
  const olderOf = new Map<number, number[]>();
  for (const [i, next] of successor.entries()) {
    if (next === -1) continue;
    const list = olderOf.get(next);
    if (list) list.push(i);
    else olderOf.set(next, [i]);
  }
  const out: Scored[] = [];
  for (let root = 0; root < picked.length; root++) {
    if (successor[root] !== -1) continue;
    const todo = [root];
    while (todo.length > 0) {
      const i = todo.pop()!;
      out.push(picked[i]!);
      const older = olderOf.get(i);
      if (older) for (let k = older.length - 1; k >= 0; k--) todo.push(older[k]!);
    }
  }
  return out;
}

interface TimeListInput {
  query: string;
  queryUsed: string;
  timeRange: NonNullable<RecallOutput['timeRange']>;
  prefilter: SQL;
  topK: number;
  full: boolean;
  statuses: readonly EntryStatus[];
  asOf: Date;
}

/** A query that is only a time phrase: the range's entries, newest first (by when they happened). */
async function listTimeRange(db: Db, input: TimeListInput): Promise<RecallOutput> {
  const policy = RANKING_POLICY;
  const newest = await db.all<{ id: string }>(sql`
    SELECT e.id AS id FROM entries e
    WHERE ${input.prefilter}
    ORDER BY coalesce(e.observed_at, e.created_at) DESC, e.n DESC
    LIMIT ${policy.keyword.candidateLimit}`);
  const rows = await hydrate(
    db,
    newest.map((r) => r.id),
    input.prefilter,
  );
  const asOfMs = input.asOf.getTime();
  const scored: Scored[] = newest
    .filter((r) => rows.has(r.id))
    .map((r, i) => {
      // No arm ranked these; the recency position stands in for a rank so scores stay comparable.
      const parts = { rrf: 1 / (policy.rrfK + i + 1), match: 1, coverage: 1, tagOverlap: 1 };
      const stems = new Set<string>();
      return {
        id: r.id,
        ranks: {},
        bm25: null,
        node: null,
        graphScore: null,
        cosine: null,
        stems,
        lexical: 0,
        ...score(rows.get(r.id)!, parts, asOfMs),
      };
    });
  return finish({ ...input, scored, queryStems: [], fixedOrder: true });
}
