import type { Volatility } from './enums.ts';

const DAY = 86_400_000;

/** How long an entry stays fresh, by volatility; null = never stale. */
export const VOLATILITY_MAX_AGE_MS: Record<Volatility, number | null> = {
  DURABLE: null,
  EVOLVING: 90 * DAY,
  EPHEMERAL: 7 * DAY,
};

/**
 * The graph walk of recall's graph arm and of graphView: both directions from the seeds,
 * at most `fanout` heaviest edges per node, at most `nodeCap` nodes in all, and a node's
 * score is its seed's × decayPerHop^hop × the edge weights on the way.
 */
export const GRAPH_WALK = { fanout: 8, nodeCap: 50, decayPerHop: 0.6 } as const;

/** Argument defaults of the reads. */
export const READ_DEFAULTS = {
  recall: { topK: 8, hops: 1 },
  graphView: { hops: 1 },
  recent: { n: 20 },
  eventLog: { sinceSeq: 0, limit: 100 },
} as const;

/**
 * Semantic capture (with an embedder configured): cosines between a new entry's vector and
 * the workspace's. At `duplicate` or above, an ACTIVE entry is the same memory (BLOCKED, or
 * MERGED when the capture brings new tags); from `similar` up it is reported as a near
 * duplicate; from `link` up the two are linked RELATES_TO (INFERRED, weight = cosine), at
 * most `linksMax` links per capture.
 */
export const SEMANTIC_CAPTURE = { duplicate: 0.95, similar: 0.85, link: 0.78, linksMax: 3, similarMax: 5 } as const;
