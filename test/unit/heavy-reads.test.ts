import { describe, expect, it } from 'vitest';
import { HeavyReads, isHeavy } from '../../src/server/heavy-reads.ts';

describe('heavy reads per client', () => {
  it('runs two at once per client, queues the next ones in order, refuses past the queue', async () => {
    const heavy = new HeavyReads(2, 2);
    const first = await heavy.acquire('a');
    const second = await heavy.acquire('a');
    expect(heavy.running('a')).toBe(2);
    const order: string[] = [];
    const third = heavy.acquire('a').then((r) => {
      order.push('third');
      return r;
    });
    const fourth = heavy.acquire('a').then((r) => {
      order.push('fourth');
      return r;
    });
    expect(await heavy.acquire('a')).toBeNull();
    // Another client is not held up by this one.
    const other = await heavy.acquire('b');
    expect(other).not.toBeNull();
    first?.();
    const t3 = await third;
    expect(order).toEqual(['third']);
    second?.();
    second?.(); // a second release gives nothing back twice
    const t4 = await fourth;
    expect(order).toEqual(['third', 'fourth']);
    expect(heavy.running('a')).toBe(2);
    t3?.();
    t4?.();
    other?.();
    expect(heavy.running('a')).toBe(0);
    expect(heavy.running('b')).toBe(0);
  });

  it('calls heavy what could return 4 MB of entry text or cost 100,000 fields', () => {
    expect(isHeavy({ cost: 41, bytes: 40 * 100_000 + 640 })).toBe(true);
    expect(isHeavy({ cost: 100_000, bytes: 0 })).toBe(true);
    expect(isHeavy({ cost: 2_000, bytes: 1_000_000 })).toBe(false);
  });
});
