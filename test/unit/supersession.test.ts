import { describe, expect, it } from 'vitest';
import { components, cycleBreaks, edgesOnCycles } from '../../src/memory/supersession.ts';

const e = (src: string, dst: string, createdAt = 0) => ({ src, dst, createdAt });

describe('supersession cycles', () => {
  it('finds exactly the edges on cycles, chains and shortcuts excluded', () => {
    const edges = [e('a', 'b'), e('b', 'c'), e('c', 'a'), e('c', 'd'), e('x', 'a'), e('a', 'c')];
    expect(edgesOnCycles(edges)).toEqual([e('a', 'b'), e('b', 'c'), e('c', 'a'), e('a', 'c')]);
    expect(edgesOnCycles([e('a', 'b'), e('b', 'c'), e('a', 'c')])).toEqual([]);
  });

  it('runs over a chain of 100,000 without recursion, and finds the one edge that closes it', () => {
    const n = 100_000;
    const chain = Array.from({ length: n }, (_, i) => e(`n${i}`, `n${i + 1}`, i));
    expect(edgesOnCycles(chain)).toEqual([]);
    expect(new Set(components(chain).values()).size).toBe(n + 1);
    const closed = [...chain, e(`n${n}`, 'n0', n)];
    expect(edgesOnCycles(closed)).toHaveLength(n + 1);
    expect(cycleBreaks(closed).map((b) => b.drop)).toEqual([[e(`n${n}`, 'n0', n)]]);
  });

  it('breaks each tangle by dropping the newest edges that close its cycles, and nothing else', () => {
    // Two cycles sharing a -> b: dropping the newest edge of each is enough.
    const tangle = [e('a', 'b', 1), e('b', 'c', 2), e('c', 'a', 5), e('b', 'd', 3), e('d', 'a', 4)];
    const separate = [e('p', 'q', 1), e('q', 'p', 2)];
    const breaks = cycleBreaks([...tangle, ...separate, e('z', 'a', 9)]);
    expect(breaks).toEqual(
      expect.arrayContaining([
        { entries: ['a', 'b', 'c', 'd'], drop: [e('c', 'a', 5), e('d', 'a', 4)] },
        { entries: ['p', 'q'], drop: [e('q', 'p', 2)] },
      ]),
    );
    expect(breaks).toHaveLength(2);
    const kept = [...tangle, ...separate].filter((x) => !breaks.some((b) => b.drop.includes(x)));
    expect(edgesOnCycles(kept)).toEqual([]);
  });
});
