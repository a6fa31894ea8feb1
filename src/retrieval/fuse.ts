import { RANKING_POLICY } from './policy.ts';

export type RecallArm = 'KEYWORD' | 'GRAPH' | 'VECTOR';

/** One arm's ranking: ids best first. */
export type ArmRankings = Partial<Record<RecallArm, readonly string[]>>;

export interface FusedCandidate {
  id: string;
  /** Σ weight(arm) / (k + rank in arm) over the arms that ranked the entry. */
  rrf: number;
  /** 1-based rank per arm that found the entry. */
  ranks: Partial<Record<RecallArm, number>>;
}

const ARM_ORDER: readonly RecallArm[] = ['KEYWORD', 'GRAPH', 'VECTOR'];

/**
 * Reciprocal rank fusion (CONTRACT §6.5). Ranks, not raw scores, are fused, so arms with
 * incomparable scales (bm25, graph decay) combine without calibration. Ties keep the order
 * in which the arms (keyword first) first listed the entries.
 *
 * @example
 * fuseRankings({ KEYWORD: ['a', 'b'], GRAPH: ['b', 'c'] });
 * // [{ id: 'b', rrf: 1/62 + 1/61, ... }, { id: 'a', rrf: 1/61, ... }, { id: 'c', rrf: 1/62, ... }]
 */
export function fuseRankings(
  arms: ArmRankings,
  k: number = RANKING_POLICY.rrfK,
  weights: Readonly<Record<RecallArm, number>> = RANKING_POLICY.armWeights,
): FusedCandidate[] {
  const byId = new Map<string, Ordered>();
  for (const arm of ARM_ORDER) {
    const ids = arms[arm];
    if (!ids) continue;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      let c = byId.get(id);
      if (!c) {
        c = { id, rrf: 0, ranks: {}, order: byId.size };
        byId.set(id, c);
      }
      if (c.ranks[arm] !== undefined) continue; // an arm lists an entry once; keep its best rank
      c.ranks[arm] = i + 1;
      c.rrf += weights[arm] / (k + i + 1);
    }
  }
  const fused = [...byId.values()].sort(byFusion);
  const out: FusedCandidate[] = new Array(fused.length);
  for (let i = 0; i < fused.length; i++) {
    const { id, rrf, ranks } = fused[i]!;
    out[i] = { id, rrf, ranks };
  }
  return out;
}

type Ordered = FusedCandidate & { order: number };

// Callbacks of recall's hot paths live at module level, not in the function that uses them:
// V8 holds a closure's optimized code only while a closure of it lives, so one made per call
// is compiled again after every major garbage collection (see docs/architecture.md#recall).
const byFusion = (a: Ordered, b: Ordered): number => b.rrf - a.rrf || a.order - b.order;
