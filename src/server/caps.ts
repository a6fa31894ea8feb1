/**
 * Counts what each key holds open (sockets per client, subscriptions per workspace) and
 * refuses past a cap. `acquire` hands back the release function, which is safe to call
 * more than once, so every path that ends a socket or a stream can simply call it.
 */
export class Cap {
  readonly #held = new Map<string, number>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** Takes one place for `key`, or null when `key` already holds the maximum. */
  acquire(key: string): (() => void) | null {
    const held = this.#held.get(key) ?? 0;
    if (held >= this.#max) return null;
    this.#held.set(key, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.#held.get(key) ?? 1) - 1;
      if (now > 0) this.#held.set(key, now);
      else this.#held.delete(key);
    };
  }

  held(key: string): number {
    return this.#held.get(key) ?? 0;
  }

  get max(): number {
    return this.#max;
  }
}

/**
 * Wraps a subscription's iterator so that `onEnd` runs once however it ends: completed,
 * failed, or returned by a client that left. `onEnd` must not throw.
 */
export function onIteratorEnd<T>(source: AsyncIterable<T>, onEnd: () => void): AsyncIterableIterator<T> {
  const inner = source[Symbol.asyncIterator]();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  const finish = <R>(result: R): R => {
    end();
    return result;
  };
  const iterator: AsyncIterableIterator<T> = {
    next: () =>
      inner.next().then(
        (r) => (r.done ? finish(r) : r),
        (error: unknown) => {
          end();
          throw error;
        },
      ),
    return: async () => {
      end();
      return (await inner.return?.()) ?? { done: true, value: undefined };
    },
    throw: async (error?: unknown) => {
      end();
      if (inner.throw) return inner.throw(error);
      throw error;
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
