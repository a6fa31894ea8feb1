/**
 * Turns per key (a client: a token, or a workspace in open mode): at most `perKey` holders
 * at once; up to `waiting` more wait in order, and beyond that `acquire` answers null. What
 * one client starts in bulk then queues behind itself instead of crowding out the others.
 */
export class KeyedTurns {
  readonly #running = new Map<string, number>();
  readonly #queues = new Map<string, (() => void)[]>();
  readonly perKey: number;
  readonly waiting: number;

  constructor(perKey: number, waiting: number = Number.POSITIVE_INFINITY) {
    this.perKey = perKey;
    this.waiting = waiting;
  }

  /** Resolves with the release of a turn once `key` has one, or null when its queue is full. */
  async acquire(key: string): Promise<(() => void) | null> {
    const running = this.#running.get(key) ?? 0;
    if (running >= this.perKey) {
      const queue = this.#queues.get(key) ?? [];
      if (queue.length >= this.waiting) return null;
      this.#queues.set(key, queue);
      // The turn is handed over by the release, running count and all.
      await new Promise<void>((resolve) => queue.push(resolve));
    } else {
      this.#running.set(key, running + 1);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#release(key);
    };
  }

  /** Turns of `key` held now. */
  running(key: string): number {
    return this.#running.get(key) ?? 0;
  }

  #release(key: string): void {
    const queue = this.#queues.get(key);
    const next = queue?.shift();
    if (queue?.length === 0) this.#queues.delete(key);
    if (next) {
      next();
      return;
    }
    const left = (this.#running.get(key) ?? 1) - 1;
    if (left > 0) this.#running.set(key, left);
    else this.#running.delete(key);
  }
}
