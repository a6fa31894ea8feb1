/**
 * A bounded map that forgets the least recently used keys first. Caches shared by every
 * workspace use it so that one workspace streaming new keys through pushes out only what
 * nobody used lately, never everything at once. Each value weighs 1 unless `weigh` says
 * otherwise; the weights held never exceed `max`.
 *
 * @example
 * const c = new LruCache<string, number>(2);
 * c.set('a', 1); c.set('b', 2); c.get('a'); c.set('c', 3);
 * c.has('a'); // true ('b' was the least recently used)
 */
export class LruCache<K, V> {
  /** Oldest first; `used` is the second chance a read gives (CLOCK: reads never reorder the map). */
  readonly #map = new Map<K, { value: V; used: boolean }>();
  #weight = 0;

  constructor(
    readonly max: number,
    readonly weigh: (value: V) => number = () => 1,
  ) {}

  /** Keys held. */
  get size(): number {
    return this.#map.size;
  }

  /** The sum of the weights held (never above `max`). */
  get weight(): number {
    return this.#weight;
  }

  /**
   * The value, marked as used. Hot caches read far more often than they write, so a read
   * only sets a flag; eviction gives a used key a second chance instead (an approximation
   * of least-recently-used that costs a read nothing).
   */
  get(key: K): V | undefined {
    const entry = this.#map.get(key);
    if (entry === undefined) return undefined;
    entry.used = true;
    return entry.value;
  }

  /** Whether the key is held, without marking it used. */
  has(key: K): boolean {
    return this.#map.has(key);
  }

  set(key: K, value: V): void {
    this.#remove(key);
    this.#map.set(key, { value, used: false });
    this.#weight += this.weigh(value);
    while (this.#weight > this.max && this.#map.size > 0) {
      const [oldest, entry] = this.#map.entries().next().value as [K, { value: V; used: boolean }];
      this.#map.delete(oldest);
      if (entry.used && oldest !== key) {
        // Used since it was last moved: it goes to the young end instead of out.
        entry.used = false;
        this.#map.set(oldest, entry);
      } else {
        this.#weight -= this.weigh(entry.value);
      }
    }
  }

  #remove(key: K): void {
    const old = this.#map.get(key);
    if (old === undefined) return;
    this.#map.delete(key);
    this.#weight -= this.weigh(old.value);
  }
}
