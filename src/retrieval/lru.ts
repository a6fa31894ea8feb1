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

/**
 * Whether a key was offered before, lately: a table of 32-bit fingerprints, one per slot
 * (the key's hash picks the slot), with no objects to allocate or collect. A key whose slot
 * another key took since is reported new again; two keys of one fingerprint and slot (about
 * one pair in four billion) look alike. A cache admits a key on its second offer with it,
 * so that keys asked for only once never push out the ones asked for again.
 *
 * @example
 * const seen = new SeenBefore(1024);
 * seen.again('a'); // false
 * seen.again('a'); // true
 */
export class SeenBefore {
  readonly #slots: Uint32Array;
  readonly #mask: number;

  /** `slots`: rounded up to a power of two. */
  constructor(slots: number) {
    const size = 2 ** Math.ceil(Math.log2(Math.max(2, slots)));
    this.#slots = new Uint32Array(size);
    this.#mask = size - 1;
  }

  /** Whether `key` was offered before (and still holds its slot); records it either way. */
  again(key: string): boolean {
    // FNV-1a over the UTF-16 code units; 0 marks an empty slot, so a fingerprint is never 0.
    let h = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    const fingerprint = h >>> 0 || 1;
    const slot = (fingerprint ^ (fingerprint >>> 16)) & this.#mask;
    if (this.#slots[slot] === fingerprint) return true;
    this.#slots[slot] = fingerprint;
    return false;
  }
}
