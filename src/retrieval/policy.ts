import type { Volatility } from '../contract/enums.ts';
import { GRAPH_WALK, SEMANTIC_CAPTURE } from '../contract/policy.ts';

const DAY_MS = 86_400_000;

/**
 * English stop words dropped from recall queries before they reach FTS5. A general list
 * (function words, auxiliaries, question words, contraction fragments), not one tuned to
 * any data set: these words match nearly every entry and only add noise to bm25.
 */
const STOP_WORDS = [
  'a about above after again against all also am an and any are as at be because been before being',
  'below between both but by can could d did do does doing don down during each either else ever every',
  'few for from further had has have having he her here hers herself him himself his how i if in into',
  'is it its itself just ll m may me might more most must my myself no nor not now of off on once only',
  'or other ought our ours ourselves out over own re s same shall she should so some such t than that',
  'the their theirs them themselves then there these they this those through to too under until up',
  'upon ve very was we were what whats when where which while who whom whose why will with would yes',
  'yet you your yours yourself yourselves',
].flatMap((line) => line.split(' '));

/**
 * The one ranking policy of recall (CONTRACT §6). Every constant the pipeline uses lives
 * here, and `version` is reported as `policyVersion`, so a change in ranking behaviour is
 * a change of this object and of its version.
 */
export const RANKING_POLICY = {
  version: 'rp-2026.12-4',

  /**
   * Reciprocal rank fusion: score = Σ weight / (k + rank) over the arms that found an entry.
   * The graph arm weighs more: it ranks the best keyword hits' linked neighbourhood (the
   * seeds by bm25, then what they link to), so an entry both arms agree on, or a close
   * neighbour of a strong match, beats a lone weak keyword match. Measured on LoCoMo, it
   * lifts recall@5 and @10 at no cost to @1. The vector arm weighs as much as the keyword
   * arm: it no longer reorders the best lexical matches (vector.head), so its weight only
   * decides what it brings in below them.
   */
  rrfK: 60,
  armWeights: { KEYWORD: 1, GRAPH: 3, VECTOR: 1 },

  keyword: {
    /** The FTS5 arm reads at most this many matches (bounded so recall stays near raw-FTS5 speed). */
    candidateLimit: 100,
  },

  graph: {
    /** How many of the best keyword hits seed the walk (it still returns at most nodeCap nodes). */
    seedCount: 15,
    ...GRAPH_WALK,
  },

  /**
   * Time decay by volatility: factor = floor + (1 − floor) · 0.5^(age / halfLife). The floors
   * are the contract's; the half-lives say how fast each kind of memory loses its edge.
   */
  decay: {
    DURABLE: { floor: 0.9, halfLifeMs: 365 * DAY_MS },
    EVOLVING: { floor: 0.6, halfLifeMs: 180 * DAY_MS },
    EPHEMERAL: { floor: 0.15, halfLifeMs: 7 * DAY_MS },
  } satisfies Record<Volatility, { floor: number; halfLifeMs: number }>,

  /**
   * Recall boost = min(max, 1 + perLog1p · log1p(recall_count)). Mild and capped: every
   * recall increments the count of its hits, so a strong boost would let whatever was
   * recalled once crowd out better matches for good.
   */
  recallBoost: { perLog1p: 0.03, max: 1.1 },

  /** Importance factor = base + importance (0.5 .. 1.5; the default importance 0.5 is neutral). */
  importanceBase: 0.5,

  /** Tag overlap factor = min(max, 1 + perTag · tags of the entry named by the query). */
  tagOverlap: { perTag: 0.25, max: 1.5 },

  /**
   * Query-term coverage: factor = 1 + weight · (share of the query's distinct terms the entry
   * contains + neighbourShare · share of the others its linked neighbours contain). OR-joined
   * bm25 lets one rare term outweigh an entry that has them all; neighbours count because a
   * memory often answers what the one before it asked.
   */
  coverage: { weight: 2, neighbourShare: 0.5 },

  /**
   * Match strength: factor = bm25 relative to the best hit + neighbourSupport · the best
   * (edge weight × relative bm25) among its linked neighbours (neighbour smoothing), or its
   * graph score when that is higher. RRF keeps only ranks, and with k = 60 rank 1 and rank 20
   * differ by a quarter; this puts back how much better the best matches really are.
   */
  neighbourSupport: 1,

  /**
   * The vector arm (only with an embedder configured): it ranks the `candidateLimit`
   * entries nearest the query. Its match strength is matchWeight · (cosine / best
   * cosine)^sharpness, so only entries nearly as close as the closest one compete with
   * strong keyword matches; RRF weighs its ranks by armWeights.VECTOR, and every
   * candidate's match is multiplied by 1 + cosineRerank · max(0, cosine).
   *
   * The `head` best candidates by the keyword and graph arms alone keep their order and
   * places: a shared word is stronger evidence than a cosine of averaged word vectors, and
   * letting the cosine reorder the top cost recall@1. Below them the arm reorders and adds.
   * MMR, too, compares the head by words only, as it does with no embedder (a cosine above
   * the model's MMR floor between two of them demoted one: LoCoMo recall@1 and @5 fell a
   * hair below keyword-only in some categories).
   *
   * With the arm on, neighbour smoothing, neighbour coverage and the graph walk leave out
   * INFERRED links: those were made from the same cosine the arm already counts, and
   * counting it twice lifted a look-alike's neighbours over better matches (single-hop
   * recall@10 on LoCoMo 0.826, and 0.831 without them). So the lexical arms rank exactly
   * as with no embedder, and the head is keyword-only's head.
   */
  vector: {
    candidateLimit: 30,
    matchWeight: 1,
    sharpness: 4,
    head: 5,
    cosineRerank: 1,
    ignoreInferredNeighbours: true,
  },

  /** Cosine thresholds of semantic capture (dedup, near duplicates, auto-links). */
  semantic: SEMANTIC_CAPTURE,

  /** Score factor of an entry that is SUPERSEDED (status, or a SUPERSEDES edge points at it). */
  supersededPenalty: 0.5,

  /**
   * Maximal marginal relevance: λ · relevance − (1 − λ) · max similarity to what is already
   * picked. Similarity is the stems' Jaccard, or, where both entries have a vector, the larger
   * of that and (cosine − cosineFloor) / (1 − cosineFloor). The floor is the near-duplicate
   * threshold, so only what capture would report as `similar` counts as the same memory: at
   * 0.5 (above the median cosine of unrelated turns, 0.39) the averaged word vectors of the
   * built-in embedder also held back distinct turns on one topic, and LoCoMo single-hop
   * recall@10 fell from .831 to .822.
   */
  mmr: { lambda: 0.7, cosineFloor: 0.85 },

  /**
   * How much of an entry recall reads in JavaScript (coverage, similarity, snippet anchors).
   * FTS5 still searches the whole text; these bounds keep a recall's own work per candidate
   * small whatever the content holds (a character such as U+FDFA normalizes to eighteen).
   * Text up to `windowChars`, before and after normalization, is read; a longer word counts
   * as its first `wordMaxChars` characters; an entry keeps its first `stemsMax` distinct
   * stems for coverage, and MMR compares the first `similarityStemsMax` of them (pairwise, so
   * their number is its cost); snippets look for matched words in the first
   * `snippetWindowChars` characters.
   */
  text: {
    windowChars: 8_000,
    wordMaxChars: 64,
    stemsMax: 1_000,
    similarityStemsMax: 256,
    snippetWindowChars: 20_000,
  },

  snippet: {
    topCount: 2,
    topChars: 4_000,
    otherChars: 400,
    totalChars: 12_000,
    ellipsis: '…',
  },

  /** At most this many dropped candidates are reported in `omitted`. */
  omittedMax: 50,

  stopWords: new Set<string>(STOP_WORDS),
} as const;

export type RankingPolicy = typeof RANKING_POLICY;
