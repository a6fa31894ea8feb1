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

  /**
   * Takes `count` from the workspace's bucket, all or none; false (and nothing taken) when it
   * holds fewer. `perMinute` 0 means unlimited.
   */
  take(workspace: string, perMinute: number, count = 1): boolean {
    if (perMinute <= 0) return true;
    const b = this.#refill(workspace, perMinute);
    if (b.tokens < count) return false;
    b.tokens -= count;
    return true;
  }

  /** Puts back `count` taken but not used, never past the bucket's size. */
  giveBack(workspace: string, perMinute: number, count: number): void {
    if (perMinute <= 0 || count <= 0) return;
    const b = this.#refill(workspace, perMinute);
    b.tokens = Math.min(perMinute, b.tokens + count);
  }

  /** One operation's share of a workspace's bucket (see WriteQuota). */
  quota(workspace: string, perMinute: number): WriteQuota {
    return new WriteQuota(this, workspace, perMinute);
  }

  #refill(workspace: string, perMinute: number): { tokens: number; at: number } {
    const now = this.#clock();
    const b = this.#buckets.get(workspace) ?? { tokens: perMinute, at: now };
    b.tokens = Math.min(perMinute, b.tokens + ((now - b.at) * perMinute) / 60_000);
    b.at = now;
    this.#buckets.set(workspace, b);
    return b;
  }
}

/**
 * The writes one operation may make. A mutation document reserves one per root field before
 * any runs, so it is refused whole rather than cut off after some of its writes; each write
 * then spends a reserved one, and what is left when the document ends goes back.
 */
export class WriteQuota {
  readonly #limiter: RateLimiter;
  readonly #workspace: string;
  readonly #perMinute: number;
  #reserved = 0;

  constructor(limiter: RateLimiter, workspace: string, perMinute: number) {
    this.#limiter = limiter;
    this.#workspace = workspace;
    this.#perMinute = perMinute;
  }

  /** Reserves `count` writes at once; false, with nothing reserved, when the bucket is short. */
  reserve(count: number): boolean {
    if (!this.#limiter.take(this.#workspace, this.#perMinute, count)) return false;
    this.#reserved += count;
    return true;
  }

  /** Spends one write: a reserved one if any is left, else one from the bucket. */
  take(): boolean {
    if (this.#reserved > 0) {
      this.#reserved--;
      return true;
    }
    return this.#limiter.take(this.#workspace, this.#perMinute);
  }

  /** Returns the reserved writes that were not made. */
  release(): void {
    this.#limiter.giveBack(this.#workspace, this.#perMinute, this.#reserved);
    this.#reserved = 0;
  }
}
