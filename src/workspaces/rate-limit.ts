/**
 * A token bucket per workspace: `perMinute` mutations per minute, with bursts up to the
 * same number. Limits are per workspace, not per token, so several agents sharing a
 * workspace share its budget.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #clock: () => number;

  constructor(clock: () => number = Date.now) {
    this.#clock = clock;
  }

  /** Takes one from the workspace's bucket; false when it is empty. `perMinute` 0 means unlimited. */
  take(workspace: string, perMinute: number): boolean {
    if (perMinute <= 0) return true;
    const now = this.#clock();
    const b = this.#buckets.get(workspace) ?? { tokens: perMinute, at: now };
    b.tokens = Math.min(perMinute, b.tokens + ((now - b.at) * perMinute) / 60_000);
    b.at = now;
    this.#buckets.set(workspace, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}
