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
  readonly #map = new Map<K, V>();
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

  /** The value, marked as just used. */
  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      // A Map iterates in insertion order: re-inserting moves the key to the young end.
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }

  /** Whether the key is held, without marking it used. */
  has(key: K): boolean {
    return this.#map.has(key);
  }

  set(key: K, value: V): void {
    this.#remove(key);
    this.#map.set(key, value);
    this.#weight += this.weigh(value);
    while (this.#weight > this.max && this.#map.size > 0) this.#remove(this.#map.keys().next().value as K);
  }

  #remove(key: K): void {
    const old = this.#map.get(key);
    if (old === undefined) return;
    this.#map.delete(key);
    this.#weight -= this.weigh(old);
  }
}
