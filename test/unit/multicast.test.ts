import { describe, expect, it } from 'vitest';
import type { StreamStats } from '../../src/events/bus.ts';
import { Multicast } from '../../src/server/multicast.ts';

/** A source whose values the test pushes, recording whether it was closed. */
function pushSource() {
  const waiting: ((v: IteratorResult<number>) => void)[] = [];
  const queued: number[] = [];
  const state = { starts: 0, closed: false };
  const iterable: AsyncIterable<number> = {
    [Symbol.asyncIterator]: () => ({
      next: () =>
        queued.length > 0
          ? Promise.resolve({ done: false, value: queued.shift()! })
          : state.closed
            ? Promise.resolve({ done: true, value: undefined })
            : new Promise((resolve) => waiting.push(resolve)),
      return: async () => {
        state.closed = true;
        for (const w of waiting.splice(0)) w({ done: true, value: undefined });
        return { done: true, value: undefined };
      },
    }),
  };
  return {
    state,
    start: () => {
      state.starts++;
      state.closed = false;
      return iterable;
    },
    push: (v: number) => {
      const w = waiting.shift();
      if (w) w({ done: false, value: v });
      else queued.push(v);
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 5));
const stats = (): StreamStats => ({ open: 0, buffered: 0, overflows: 0 });
type It = AsyncIterableIterator<number>;

describe('Multicast', () => {
  it('runs one upstream for identical subscriptions and delivers every result to each', async () => {
    const m = new Multicast(stats());
    const src = pushSource();
    const a = (await m.subscribe('k', 'w', src.start)) as It;
    const b = (await m.subscribe('k', 'w', src.start)) as It;
    expect(src.state.starts).toBe(1);
    src.push(1);
    src.push(2);
    expect([(await a.next()).value, (await a.next()).value]).toEqual([1, 2]);
    expect([(await b.next()).value, (await b.next()).value]).toEqual([1, 2]);
  });

  it('keeps others going when one leaves, and closes the upstream when the last leaves', async () => {
    const m = new Multicast(stats());
    const src = pushSource();
    const a = (await m.subscribe('k', 'w', src.start)) as It;
    const b = (await m.subscribe('k', 'w', src.start)) as It;
    await a.return?.();
    src.push(7);
    expect((await b.next()).value).toBe(7);
    expect(src.state.closed).toBe(false);
    await b.return?.();
    expect(src.state.closed).toBe(true);
    // A new subscriber after that starts a fresh upstream.
    const c = (await m.subscribe('k', 'w', src.start)) as It;
    expect(src.state.starts).toBe(2);
    await c.return?.();
  });

  it('ends a subscriber that falls too far behind with RATE_LIMITED, without holding back the others', async () => {
    const s = stats();
    const m = new Multicast(s, 3);
    const src = pushSource();
    const slow = (await m.subscribe('k', 'w', src.start)) as It;
    const fast = (await m.subscribe('k', 'w', src.start)) as It;
    const seen: number[] = [];
    const reading = (async () => {
      for (let i = 0; i < 6; i++) seen.push((await fast.next()).value as number);
    })();
    for (let v = 1; v <= 6; v++) {
      src.push(v);
      await tick();
    }
    await reading;
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    expect(s.overflows).toBe(1);
    await expect(slow.next()).rejects.toMatchObject({ extensions: { code: 'RATE_LIMITED' } });
  });

  it('completes a subscriber whose upstream ends by itself at once, instead of restarting it forever', async () => {
    const m = new Multicast(stats());
    let starts = 0;
    const empty = async function* () {};
    const a = (await m.subscribe('k', 'w', () => {
      starts++;
      return empty();
    })) as It;
    expect((await a.next()).done).toBe(true);
    expect(starts).toBeLessThanOrEqual(2);
  });

  it('does not share error results', async () => {
    const m = new Multicast(stats());
    const error = { errors: [{ message: 'no' }] };
    expect(await m.subscribe('k', 'w', () => error)).toBe(error);
    const src = pushSource();
    const a = (await m.subscribe('k', 'w', src.start)) as It;
    expect(src.state.starts).toBe(1);
    await a.return?.();
  });
});
