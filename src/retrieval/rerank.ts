import type { EntryRow } from '../db/schema.ts';
import { dot } from '../memory/embeddings/embedder.ts';
import { RANKING_POLICY, type RankingPolicy } from './policy.ts';
import { lightStem, tokenize } from './query.ts';

/**
 * Time decay by volatility (CONTRACT §6.6): floor + (1 − floor) · 0.5^(age / halfLife), where
 * age = asOf − (observed_at, or updated_at when unknown), never below zero, so an entry
 * observed "after" asOf is simply fresh.
 *
 * @example decayFactor({ volatility: 'EPHEMERAL', observedAt: null, updatedAt: 0 }, 7 * 86_400_000) // 0.575
 */
export function decayFactor(
  entry: Pick<EntryRow, 'volatility' | 'observedAt' | 'updatedAt'>,
  asOfMs: number,
  policy: RankingPolicy = RANKING_POLICY,
): number {
  const rule = policy.decay[entry.volatility] ?? policy.decay.EVOLVING;
  const age = Math.max(0, asOfMs - (entry.observedAt ?? entry.updatedAt));
  return rule.floor + (1 - rule.floor) * 0.5 ** (age / rule.halfLifeMs);
}

/**
 * A mild, capped boost for entries that were recalled before.
 *
 * @example recallBoostFactor(0) // 1
 */
export function recallBoostFactor(recallCount: number, policy: RankingPolicy = RANKING_POLICY): number {
  const { perLog1p, max } = policy.recallBoost;
  return Math.min(max, 1 + perLog1p * Math.log1p(Math.max(0, recallCount)));
}

/**
 * 0.5 + importance: the default importance 0.5 leaves the score as it is.
 *
 * @example importanceFactor(0.9) // 1.4
 */
export function importanceFactor(importance: number, policy: RankingPolicy = RANKING_POLICY): number {
  return policy.importanceBase + Math.min(1, Math.max(0, importance));
}

/**
 * How many of an entry's tags the query names: a tag counts when all its words appear among
 * the query's words (so `release-plan` matches "release plans"). Returns the factor.
 *
 * @example tagOverlapFactor(['infra', 'release-plan'], ['release', 'plans']) // 1.1
 */
export function tagOverlapFactor(
  entryTags: readonly string[],
  queryWords: readonly string[],
  policy: RankingPolicy = RANKING_POLICY,
): number {
  if (entryTags.length === 0 || queryWords.length === 0) return 1;
  const words = new Set(queryWords.map(lightStem));
  let named = 0;
  for (const tag of entryTags) {
    const parts = tokenize(tag).map(lightStem);
    if (parts.length > 0 && allIn(parts, words)) named++;
  }
  return Math.min(policy.tagOverlap.max, 1 + policy.tagOverlap.perTag * named);
}

// Loops, not callbacks made per call: V8 holds a closure's optimized code only while a
// closure of it lives (see docs/architecture.md#recall).
function allIn(parts: readonly string[], words: ReadonlySet<string>): boolean {
  for (const p of parts) if (!words.has(p)) return false;
  return true;
}

function anyHas(sets: readonly ReadonlySet<string>[], s: string): boolean {
  for (const set of sets) if (set.has(s)) return true;
  return false;
}

/**
 * Query-term coverage as a factor: 1 + weight · (share of the query's terms the entry has +
 * neighbourShare · share of the rest that its linked neighbours have).
 *
 * @example coverageFactor(new Set(['deploy']), [new Set(['friday'])], ['deploy', 'friday']) // 1 + 2 · (1/2 + 0.5 · 1/2)
 */
export function coverageFactor(
  entryStems: ReadonlySet<string>,
  neighbourStems: readonly ReadonlySet<string>[],
  queryStems: readonly string[],
  policy: RankingPolicy = RANKING_POLICY,
): number {
  if (queryStems.length === 0) return 1;
  let own = 0;
  let linked = 0;
  for (const s of queryStems) {
    if (entryStems.has(s)) own++;
    else if (anyHas(neighbourStems, s)) linked++;
  }
  const { weight, neighbourShare } = policy.coverage;
  return 1 + weight * ((own + neighbourShare * linked) / queryStems.length);
}

/**
 * Jaccard similarity of two token sets (0 .. 1).
 *
 * @example jaccard(new Set(['a', 'b']), new Set(['b', 'c'])) // 1/3
 */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const x of small) if (large.has(x)) shared++;
  return shared / (a.size + b.size - shared);
}

export interface MmrItem {
  id: string;
  /** Relevance (any positive scale; normalized by the best). */
  score: number;
  tokens: ReadonlySet<string>;
  /** The entry's unit vector, when embeddings are on and it has one yet. */
  vector?: Float32Array | null;
}

/**
 * How alike two candidates are, for MMR: the Jaccard of their stems, or, when both carry a
 * vector, the larger of that and their cosine above `mmr.cosineFloor` (rescaled to 0..1).
 * Unrelated texts still have cosines well above 0 (a LoCoMo conversation's turns: median
 * 0.39), so only what lies beyond the floor counts as likeness; a paraphrase in other words
 * then counts as the near duplicate it is, which stems alone cannot see.
 *
 * @example mmrSimilarity({ tokens: new Set(['deploy']), vector: a }, { tokens: new Set(['rollout']), vector: b }) // ≈ 0.8 for a cosine of 0.9
 */
export function mmrSimilarity(
  a: Pick<MmrItem, 'tokens' | 'vector'>,
  b: Pick<MmrItem, 'tokens' | 'vector'>,
  policy: { mmr: { cosineFloor: number } } = RANKING_POLICY,
): number {
  const words = jaccard(a.tokens, b.tokens);
  if (!a.vector || !b.vector) return words;
  const { cosineFloor } = policy.mmr;
  const meaning = (dot(a.vector, b.vector) - cosineFloor) / (1 - cosineFloor);
  return Math.max(words, Math.min(1, meaning));
}

/**
 * Maximal marginal relevance (CONTRACT §6.6): picks `k` items one at a time, each maximizing
 * λ · relevance − (1 − λ) · its highest similarity (mmrSimilarity) to the items already
 * picked, so that near-duplicates do not fill the top (ties: the earlier item). Returns the
 * picked items in order.
 *
 * An item's value is at most λ · relevance, since similarities are never negative. So each
 * round visits the items by relevance, best first, and stops at the first whose bound is
 * below the best value found: the rest cannot win, and their similarities to the picked
 * items are worked out only when they are visited (most never are). The picks are those of
 * comparing every item with every pick. Items of `head` are picked first, in their order.
 *
 * @example mmrSelect([{ id: 'a', score: 1, tokens }, { id: 'a2', score: 0.99, tokens }, { id: 'b', score: 0.8, tokens: other }], 2)
 * // ['a', 'b']
 */
export function mmrSelect<T extends MmrItem>(
  items: readonly T[],
  k: number,
  lambda: number = RANKING_POLICY.mmr.lambda,
  cosineFloor: number = RANKING_POLICY.mmr.cosineFloor,
  head: readonly T[] = [],
): T[] {
  const policy = { mmr: { cosineFloor } };
  let best = 0;
  for (const it of items) best = Math.max(best, it.score);
  const fixed = new Set<T>(head.slice(0, k));
  // With λ above 1 similarity would add to the value: no bound then.
  const bounded = lambda <= 1;
  const pool: MmrSlot<T>[] = [];
  const taken = new Set<number>();
  for (const item of items) {
    const at = pool.length;
    const rel = best > 0 ? item.score / best : 0;
    // A NaN relevance never wins a round; sorted last, it is never visited before an item that could.
    const bound = !bounded ? Number.POSITIVE_INFINITY : Number.isNaN(rel) ? Number.NEGATIVE_INFINITY : lambda * rel;
    pool.push({ item, at, rel, bound, maxSim: 0, seen: 0 });
    if (fixed.has(item)) taken.add(at);
  }
  const byBound = [...pool].sort(byBoundThenAt);
  const picked: T[] = [...fixed];
  while (picked.length < k && taken.size < pool.length) {
    // As comparing every item in order with `>`: the first remaining item unless one beats it.
    let chosen = pool[0]!;
    for (const p of pool) {
      if (taken.has(p.at)) continue;
      chosen = p;
      break;
    }
    let chosenValue = Number.NEGATIVE_INFINITY;
    for (const p of byBound) {
      if (taken.has(p.at)) continue;
      if (p.bound < chosenValue) break;
      for (; p.seen < picked.length; p.seen++)
        p.maxSim = Math.max(p.maxSim, mmrSimilarity(p.item, picked[p.seen]!, policy));
      const value = lambda * p.rel - (1 - lambda) * p.maxSim;
      if (value > chosenValue || (value === chosenValue && p.at < chosen.at)) {
        chosen = p;
        chosenValue = value;
      }
    }
    taken.add(chosen.at);
    picked.push(chosen.item);
  }
  return picked;
}

interface MmrSlot<T> {
  item: T;
  at: number;
  rel: number;
  bound: number;
  maxSim: number;
  seen: number;
}

const byBoundThenAt = (a: MmrSlot<unknown>, b: MmrSlot<unknown>): number => b.bound - a.bound || a.at - b.at;
