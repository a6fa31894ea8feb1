import { describe, expect, it } from 'vitest';
import { RANKING_POLICY } from '../../src/retrieval/policy.ts';
import {
  coverageFactor,
  decayFactor,
  importanceFactor,
  jaccard,
  type MmrItem,
  mmrSelect,
  mmrSimilarity,
  recallBoostFactor,
  tagOverlapFactor,
} from '../../src/retrieval/rerank.ts';

const DAY = 86_400_000;
const asOf = Date.UTC(2026, 2, 11);

describe('decayFactor', () => {
  it('is 1 for an entry from asOf and falls to the volatility floor', () => {
    for (const volatility of ['DURABLE', 'EVOLVING', 'EPHEMERAL'] as const) {
      const fresh = decayFactor({ volatility, observedAt: asOf, updatedAt: asOf }, asOf);
      const ancient = decayFactor({ volatility, observedAt: asOf - 100_000 * DAY, updatedAt: asOf }, asOf);
      expect(fresh).toBeCloseTo(1);
      expect(ancient).toBeCloseTo(RANKING_POLICY.decay[volatility].floor, 3);
    }
  });

  it('orders volatilities: ephemeral fades fastest', () => {
    const at = (volatility: 'DURABLE' | 'EVOLVING' | 'EPHEMERAL') =>
      decayFactor({ volatility, observedAt: asOf - 30 * DAY, updatedAt: asOf }, asOf);
    expect(at('DURABLE')).toBeGreaterThan(at('EVOLVING'));
    expect(at('EVOLVING')).toBeGreaterThan(at('EPHEMERAL'));
  });

  it('uses observed_at, or updated_at when it is null', () => {
    const observed = decayFactor({ volatility: 'EPHEMERAL', observedAt: asOf - 7 * DAY, updatedAt: asOf }, asOf);
    const updated = decayFactor({ volatility: 'EPHEMERAL', observedAt: null, updatedAt: asOf - 7 * DAY }, asOf);
    expect(observed).toBeCloseTo(0.15 + 0.85 / 2);
    expect(updated).toBeCloseTo(observed);
  });

  it('never treats an age as negative', () => {
    expect(decayFactor({ volatility: 'EPHEMERAL', observedAt: asOf + 50 * DAY, updatedAt: asOf }, asOf)).toBe(1);
  });
});

describe('recallBoostFactor', () => {
  it('is neutral at zero, grows with log1p and is capped', () => {
    expect(recallBoostFactor(0)).toBe(1);
    expect(recallBoostFactor(3)).toBeGreaterThan(recallBoostFactor(1));
    expect(recallBoostFactor(1_000_000)).toBe(RANKING_POLICY.recallBoost.max);
    // Mild: even a much-recalled entry cannot outweigh a clearly better match.
    expect(RANKING_POLICY.recallBoost.max).toBeLessThanOrEqual(1.15);
  });
});

describe('importanceFactor', () => {
  it('is 0.5 + importance, with 0.5 neutral', () => {
    expect(importanceFactor(0.5)).toBe(1);
    expect(importanceFactor(0)).toBe(0.5);
    expect(importanceFactor(1)).toBe(1.5);
  });
});

describe('tagOverlapFactor', () => {
  it('counts tags whose words the query names', () => {
    expect(tagOverlapFactor(['infra', 'release-plan'], ['release', 'plans'])).toBeCloseTo(
      1 + RANKING_POLICY.tagOverlap.perTag,
    );
    expect(tagOverlapFactor(['infra'], ['deploy'])).toBe(1);
    expect(tagOverlapFactor([], ['deploy'])).toBe(1);
  });

  it('is capped', () => {
    const tags = ['a1', 'b2', 'c3', 'd4', 'e5', 'f6'];
    expect(tagOverlapFactor(tags, tags)).toBe(RANKING_POLICY.tagOverlap.max);
  });
});

describe('coverageFactor', () => {
  it('rewards entries that contain more of the query, and neighbours that contain the rest', () => {
    const { weight, neighbourShare } = RANKING_POLICY.coverage;
    const q = ['deploy', 'friday'];
    expect(coverageFactor(new Set(['deploy', 'friday']), [], q)).toBeCloseTo(1 + weight);
    expect(coverageFactor(new Set(['deploy']), [], q)).toBeCloseTo(1 + weight / 2);
    expect(coverageFactor(new Set(['deploy']), [new Set(['friday'])], q)).toBeCloseTo(
      1 + weight * (0.5 + neighbourShare * 0.5),
    );
    expect(coverageFactor(new Set(), [], [])).toBe(1);
  });
});

describe('mmrSelect', () => {
  const tokens = (s: string) => new Set(s.split(' '));

  it('keeps near-duplicates from filling the top', () => {
    const items = [
      { id: 'a', score: 1, tokens: tokens('deploy failed friday night rollback') },
      { id: 'a2', score: 0.98, tokens: tokens('deploy failed friday night rollback again') },
      { id: 'a3', score: 0.97, tokens: tokens('deploy failed friday night rollback') },
      { id: 'b', score: 0.8, tokens: tokens('postmortem owners action items') },
    ];
    expect(mmrSelect(items, 2, 0.7).map((i) => i.id)).toEqual(['a', 'b']);
  });

  it('is plain relevance order at λ = 1', () => {
    const items = [
      { id: 'a', score: 1, tokens: tokens('x y') },
      { id: 'b', score: 0.9, tokens: tokens('x y') },
      { id: 'c', score: 0.5, tokens: tokens('z') },
    ];
    expect(mmrSelect(items, 3, 1).map((i) => i.id)).toEqual(['a', 'b', 'c']);
  });

  it('returns at most k items', () => {
    expect(mmrSelect([{ id: 'a', score: 1, tokens: tokens('x') }], 5)).toHaveLength(1);
  });

  it('picks what comparing every item with every pick picks, ties included', () => {
    // The selection as first written: every remaining item's similarity to each new pick.
    const reference = <T extends MmrItem>(items: readonly T[], k: number, lambda: number): T[] => {
      const best = items.reduce((m, it) => Math.max(m, it.score), 0);
      const pool = items.map((item) => ({ item, rel: best > 0 ? item.score / best : 0, maxSim: 0 }));
      const picked: T[] = [];
      while (picked.length < k && pool.length > 0) {
        let at = 0;
        let atValue = Number.NEGATIVE_INFINITY;
        pool.forEach((p, i) => {
          const value = lambda * p.rel - (1 - lambda) * p.maxSim;
          if (value > atValue) {
            at = i;
            atValue = value;
          }
        });
        const [chosen] = pool.splice(at, 1);
        picked.push(chosen!.item);
        for (const p of pool) p.maxSim = Math.max(p.maxSim, mmrSimilarity(p.item, chosen!.item));
      }
      return picked;
    };
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const words = 'a b c d e f g h i j k l'.split(' ');
    for (let run = 0; run < 500; run++) {
      const n = 1 + Math.floor(random() * 40);
      // Few distinct scores and small vocabularies: ties in relevance and in value are common.
      // Some items carry a unit vector (embeddings on): meaning then counts as likeness too.
      const vector = () => {
        const v = Float32Array.from([random() - 0.5, random() - 0.5, random() - 0.5]);
        const norm = Math.hypot(...v);
        return v.map((x) => x / norm);
      };
      const items = Array.from({ length: n }, (_, i) => ({
        id: `i${i}`,
        score: run % 7 === 0 ? 0 : Math.ceil(random() * 6) / 6,
        tokens: new Set(words.filter(() => random() < 0.3)),
        vector: run % 3 === 0 && random() < 0.7 ? vector() : null,
      }));
      const shuffled = run % 2 === 0 ? items : [...items].sort((x, y) => y.score - x.score);
      for (const lambda of [0, 0.3, 0.5, 0.7, 1]) {
        const k = 1 + Math.floor(random() * 10);
        expect(mmrSelect(shuffled, k, lambda).map((i) => i.id)).toEqual(
          reference(shuffled, k, lambda).map((i) => i.id),
        );
      }
    }
  });
});

describe('mmrSimilarity', () => {
  const tokens = (s: string) => new Set(s.split(' '));
  const unit = (...xs: number[]) => {
    const v = Float32Array.from(xs);
    const n = Math.hypot(...xs);
    return v.map((x) => x / n);
  };

  it('is the words’ Jaccard unless both have a vector', () => {
    const a = { tokens: tokens('deploy failed friday'), vector: unit(1, 0) };
    const b = { tokens: tokens('rollout broke friday'), vector: null };
    expect(mmrSimilarity(a, b)).toBeCloseTo(0.2);
    expect(mmrSimilarity({ ...a, vector: undefined }, { ...b, vector: unit(1, 0) })).toBeCloseTo(0.2);
  });

  it('counts a cosine only above the floor, and keeps the larger of words and meaning', () => {
    const words = { tokens: tokens('deploy failed friday'), vector: unit(1, 0) };
    const same = { tokens: tokens('rollout broke friday'), vector: unit(1, 0.05) };
    const unrelated = { tokens: tokens('rollout broke friday'), vector: unit(1, 2) };
    expect(mmrSimilarity(words, same)).toBeGreaterThan(0.99);
    // A cosine of 0.45 is ordinary between unrelated texts: the shared word decides.
    expect(mmrSimilarity(words, unrelated)).toBeCloseTo(0.2);
  });

  it('lets MMR pass over a paraphrase that shares no word with the first pick', () => {
    const items = [
      { id: 'a', score: 1, tokens: tokens('deploy failed friday'), vector: unit(1, 0, 0) },
      { id: 'a2', score: 0.95, tokens: tokens('rollout broke end of week'), vector: unit(1, 0.1, 0) },
      { id: 'b', score: 0.85, tokens: tokens('postmortem owners'), vector: unit(0, 0, 1) },
    ];
    expect(mmrSelect(items, 2, 0.7).map((i) => i.id)).toEqual(['a', 'b']);
    const withoutVectors = items.map((i) => ({ ...i, vector: null }));
    expect(mmrSelect(withoutVectors, 2, 0.7).map((i) => i.id)).toEqual(['a', 'a2']);
  });
});

describe('jaccard', () => {
  it('is shared / union', () => {
    expect(jaccard(new Set(['a', 'b']), new Set(['b', 'c']))).toBeCloseTo(1 / 3);
    expect(jaccard(new Set(), new Set())).toBe(0);
  });
});
