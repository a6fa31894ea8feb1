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
