import { describe, expect, it } from 'vitest';
import { fuseRankings } from '../../src/retrieval/fuse.ts';

describe('fuseRankings', () => {
  it('sums weight / (k + rank) over the arms that ranked an entry', () => {
    const fused = fuseRankings({ KEYWORD: ['a', 'b'], GRAPH: ['b', 'c'] }, 60, { KEYWORD: 1, GRAPH: 1, VECTOR: 1 });
    expect(fused.map((c) => c.id)).toEqual(['b', 'a', 'c']);
    expect(fused[0]!.rrf).toBeCloseTo(1 / 62 + 1 / 61);
    expect(fused[0]!.ranks).toEqual({ KEYWORD: 2, GRAPH: 1 });
    expect(fused[1]!.rrf).toBeCloseTo(1 / 61);
    expect(fused[2]!.rrf).toBeCloseTo(1 / 62);
  });

  it('applies arm weights', () => {
    const fused = fuseRankings({ KEYWORD: ['a'], GRAPH: ['b'] }, 60, { KEYWORD: 1, GRAPH: 2, VECTOR: 1 });
    expect(fused.map((c) => c.id)).toEqual(['b', 'a']);
  });

  it('breaks ties by first appearance, keyword arm first', () => {
    const fused = fuseRankings({ KEYWORD: ['a'], GRAPH: ['b'] }, 60, { KEYWORD: 1, GRAPH: 1, VECTOR: 1 });
    expect(fused.map((c) => c.id)).toEqual(['a', 'b']);
  });

  it('counts an entry once per arm', () => {
    const fused = fuseRankings({ KEYWORD: ['a', 'a'] });
    expect(fused).toHaveLength(1);
    expect(fused[0]!.ranks).toEqual({ KEYWORD: 1 });
  });

  it('handles no arms', () => {
    expect(fuseRankings({})).toEqual([]);
  });
});
