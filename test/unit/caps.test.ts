import { describe, expect, it } from 'vitest';
import { Cap, onIteratorEnd } from '../../src/server/caps.ts';

describe('Cap', () => {
  it('refuses past its maximum per key and frees a place on release', () => {
    const cap = new Cap(2);
    const a = cap.acquire('k');
    const b = cap.acquire('k');
    expect(a).toBeTypeOf('function');
    expect(b).toBeTypeOf('function');
    expect(cap.acquire('k')).toBeNull();
    expect(cap.acquire('other')).toBeTypeOf('function');
    expect(cap.held('k')).toBe(2);
    a?.();
    expect(cap.held('k')).toBe(1);
    expect(cap.acquire('k')).toBeTypeOf('function');
    expect(cap.max).toBe(2);
  });

  it('releases once, however often the release is called', () => {
    const cap = new Cap(3);
    const a = cap.acquire('k');
    cap.acquire('k');
    a?.();
    a?.();
    a?.();
    expect(cap.held('k')).toBe(1);
  });

  it('forgets a key that holds nothing', () => {
    const cap = new Cap(1);
    const a = cap.acquire('k');
    a?.();
    a?.();
    expect(cap.held('k')).toBe(0);
    expect(cap.acquire('k')).toBeTypeOf('function');
    expect(cap.acquire('k')).toBeNull();
  });
});

/** A source whose iterator records what was asked of it. */
function source(items: number[], failAt?: number) {
  const calls: string[] = [];
  let i = 0;
  const iterable: AsyncIterable<number> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        calls.push('next');
        if (i === failAt) throw new Error('source failed');
        return i < items.length ? { done: false, value: items[i++] as number } : { done: true, value: undefined };
      },
      return: async () => {
        calls.push('return');
        return { done: true, value: undefined };
      },
    }),
  };
  return { iterable, calls };
}

/** `onIteratorEnd` over a Cap place: `held()` shows whether the end released it exactly once. */
function capped(iterable: AsyncIterable<number>) {
  const cap = new Cap(5);
  cap.acquire('ws'); // someone else's place, which must survive every ending
  const release = cap.acquire('ws');
  let ends = 0;
  const it = onIteratorEnd(iterable, () => {
    ends += 1;
    release?.();
  });
  return { it, held: () => cap.held('ws'), ends: () => ends };
}

describe('onIteratorEnd', () => {
  it('releases once when the source completes', async () => {
    const { iterable } = source([1, 2]);
    const c = capped(iterable);
    const seen: number[] = [];
    for await (const v of c.it) seen.push(v);
    expect(seen).toEqual([1, 2]);
    expect(c.ends()).toBe(1);
    expect(c.held()).toBe(1);
  });

  it('does not release while items still flow', async () => {
    const { iterable } = source([1, 2, 3]);
    const c = capped(iterable);
    await c.it.next();
    await c.it.next();
    expect(c.ends()).toBe(0);
    expect(c.held()).toBe(2);
  });

  it('releases once when the source throws, and passes the error on', async () => {
    const { iterable } = source([1, 2], 1);
    const c = capped(iterable);
    await expect(c.it.next()).resolves.toEqual({ done: false, value: 1 });
    await expect(c.it.next()).rejects.toThrow('source failed');
    expect(c.ends()).toBe(1);
    expect(c.held()).toBe(1);
  });

  it('releases once when the consumer leaves early, and closes the source', async () => {
    const { iterable, calls } = source([1, 2, 3]);
    const c = capped(iterable);
    for await (const v of c.it) if (v === 1) break;
    expect(calls).toEqual(['next', 'return']);
    expect(c.ends()).toBe(1);
    expect(c.held()).toBe(1);
  });

  it('releases the place once when return is called twice', async () => {
    const { iterable } = source([1, 2, 3]);
    const c = capped(iterable);
    await c.it.next();
    await expect(c.it.return?.()).resolves.toEqual({ done: true, value: undefined });
    await expect(c.it.return?.()).resolves.toEqual({ done: true, value: undefined });
    expect(c.held()).toBe(1);
    expect(c.ends()).toBe(1);
  });

  it('releases once when the consumer throws into it', async () => {
    const { iterable } = source([1, 2, 3]);
    const c = capped(iterable);
    await c.it.next();
    await expect(c.it.throw?.(new Error('client left'))).rejects.toThrow('client left');
    expect(c.ends()).toBe(1);
    expect(c.held()).toBe(1);
  });

  it('releases once when it completes and is then returned', async () => {
    const { iterable } = source([]);
    const c = capped(iterable);
    await expect(c.it.next()).resolves.toMatchObject({ done: true });
    await c.it.return?.();
    expect(c.held()).toBe(1);
    expect(c.ends()).toBe(1);
  });
});
