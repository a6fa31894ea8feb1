/**
 * A bounded map that forgets the least recently used key first. Caches shared by every
 * workspace use it so that one workspace streaming new keys through pushes out only what
 * nobody used lately, never everything at once.
 *
 * @example
 * const c = new LruCache<string, number>(2);
 * c.set('a', 1); c.set('b', 2); c.get('a'); c.set('c', 3);
 * c.has('a'); // true ('b' was the least recently used)
 */
export class LruCache<K, V> {
  readonly #map = new Map<K, V>();

  constructor(readonly max: number) {}

  get size(): number {
    return this.#map.size;
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
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.max) this.#map.delete(this.#map.keys().next().value as K);
  }
}
