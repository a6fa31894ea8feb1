import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/workspaces/rate-limit.ts';

// The mutation guard reserves one write per root field before any runs and releases what was
// not spent when the document ends. No resolver path leaves a reservation unspent today (every
// counted field spends before it writes), so the refund is held here, on the real limiter with
// a frozen clock, rather than through a document that cannot be written.
describe('a document’s write quota', () => {
  const frozen = () => 1_000;

  it('gives back the reserved writes a document did not make', () => {
    const limiter = new RateLimiter(frozen);
    const quota = limiter.quota('ws', 5);
    expect(quota.reserve(3)).toBe(true);
    expect(quota.take()).toBe(true);
    quota.release();
    // 5 − 3 reserved + 2 unspent = 4 left for the next document, and no more.
    expect(limiter.take('ws', 5, 4)).toBe(true);
    expect(limiter.take('ws', 5, 1)).toBe(false);
  });

  it('reserves all or nothing, and spends from the bucket once the reservation is used', () => {
    const limiter = new RateLimiter(frozen);
    const quota = limiter.quota('ws', 3);
    expect(quota.reserve(4)).toBe(false);
    expect(quota.reserve(2)).toBe(true);
    expect([quota.take(), quota.take(), quota.take(), quota.take()]).toEqual([true, true, true, false]);
    quota.release();
    expect(limiter.take('ws', 3, 1)).toBe(false);
  });

  it('never gives back past the bucket’s size, and per workspace', () => {
    const limiter = new RateLimiter(frozen);
    const a = limiter.quota('a', 2);
    expect(a.reserve(2)).toBe(true);
    limiter.giveBack('a', 2, 5);
    a.release();
    expect(limiter.take('a', 2, 2)).toBe(true);
    expect(limiter.take('a', 2, 1)).toBe(false);
    expect(limiter.take('b', 2, 2)).toBe(true);
  });
});
