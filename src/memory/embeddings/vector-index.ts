import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { vectorFromBytes } from './embedder.ts';
import type { VectorModel } from './vector-store.ts';

/** One scored vector. */
export interface VectorMatch {
  id: string;
  cosine: number;
}

/** Rows scanned between two yields to the event loop (~2 ms of work at 100 dimensions). */
const SCAN_CHUNK = 16_384;

/**
 * A workspace's vectors for one model, in one Float32Array: an exact scan of 100k × 100
 * takes ~15 ms in JavaScript, where libSQL's vector_distance_cos took ~80 ms and its
 * approximate index returned a third of the exact top 20. The matrix follows the table by
 * `seq` (which only grows): a refresh loads only rows newer than the last one seen, and
 * reloads in full when rows were deleted.
 */
export class VectorMatrix {
  readonly model: VectorModel;
  ids: string[] = [];
  #slot = new Map<string, number>();
  #data = new Float32Array(0);
  #lastSeq = 0;
  #refreshing: Promise<void> | null = null;

  constructor(model: VectorModel) {
    this.model = model;
  }

  get size(): number {
    return this.ids.length;
  }

  /** Bytes held: the floats' capacity and, roughly, the ids and their map. */
  get bytes(): number {
    return this.#data.byteLength + this.ids.length * 96;
  }

  has(id: string): boolean {
    return this.#slot.has(id);
  }

  /** The stored vector of an entry (a view into the matrix), or null. */
  vectorOf(id: string): Float32Array | null {
    const slot = this.#slot.get(id);
    if (slot === undefined) return null;
    const d = this.model.dim;
    return this.#data.subarray(slot * d, slot * d + d);
  }

  /** Brings the matrix up to the table (one statement when nothing changed). */
  refresh(db: Db): Promise<void> {
    this.#refreshing ??= this.#refresh(db).finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #refresh(db: Db): Promise<void> {
    const { model, dim } = this.model;
    const [head] = await db.all<{ n: number; seq: number | null }>(
      sql`SELECT count(*) AS n, max(seq) AS seq FROM entry_vectors WHERE model = ${model} AND dim = ${dim}`,
    );
    const count = Number(head?.n ?? 0);
    const maxSeq = Number(head?.seq ?? 0);
    if (count === this.size && maxSeq === this.#lastSeq) return;
    if (maxSeq < this.#lastSeq) this.#clear();
    await this.#load(db, this.#lastSeq);
    // Rows newer than the last seen cannot account for deletions: start over.
    if (this.size !== count) {
      this.#clear();
      await this.#load(db, 0);
    }
  }

  #clear(): void {
    this.ids = [];
    this.#slot = new Map();
    this.#data = new Float32Array(0);
    this.#lastSeq = 0;
  }

  async #load(db: Db, afterSeq: number): Promise<void> {
    const { model, dim } = this.model;
    const rows = await db.all<{ seq: number; entry_id: string; vector: ArrayBuffer }>(sql`
      SELECT seq, entry_id, vector FROM entry_vectors
      WHERE model = ${model} AND dim = ${dim} AND seq > ${afterSeq} ORDER BY seq`);
    for (const row of rows) {
      const v = vectorFromBytes(row.vector);
      if (v.length !== dim) continue;
      this.#put(row.entry_id, v);
      this.#lastSeq = Math.max(this.#lastSeq, Number(row.seq));
    }
  }

  #put(id: string, v: Float32Array): void {
    const d = this.model.dim;
    let slot = this.#slot.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      if ((slot + 1) * d > this.#data.length) {
        const grown = new Float32Array(Math.max(1024 * d, this.#data.length * 2));
        grown.set(this.#data);
        this.#data = grown;
      }
      this.ids.push(id);
      this.#slot.set(id, slot);
    }
    this.#data.set(v, slot * d);
  }

  /**
   * The `k` vectors most similar to `query`, best first, among `allowed` when given. The
   * scan yields to the event loop every SCAN_CHUNK rows, so a large workspace never holds
   * up other requests for long.
   *
   * @example await matrix.search(q, 50) // [{ id: '0193…', cosine: 0.82 }, ...]
   */
  async search(query: Float32Array, k: number, allowed: ReadonlySet<string> | null = null): Promise<VectorMatch[]> {
    const d = this.model.dim;
    const top = new TopK(k);
    // A refresh during a yield appends rows or swaps in new arrays; the ones read here stay
    // valid for the slots they held, so the scan sees one consistent state.
    const ids = this.ids;
    const count = ids.length;
    let data = this.#data;
    for (let start = 0; start < count; start += SCAN_CHUNK) {
      if (start > 0) await new Promise((r) => setImmediate(r));
      if (this.ids === ids) data = this.#data;
      const end = Math.min(count, start + SCAN_CHUNK);
      for (let slot = start; slot < end; slot++) {
        if (allowed && !allowed.has(ids[slot]!)) continue;
        let s = 0;
        const base = slot * d;
        for (let i = 0; i < d; i++) s += data[base + i]! * query[i]!;
        top.offer(slot, s);
      }
    }
    return top.sorted().map(({ slot, score }) => ({ id: ids[slot]!, cosine: score }));
  }
}

/** The best k (slot, score) pairs seen, kept in a small sorted array (k is at most a few hundred). */
class TopK {
  readonly #k: number;
  readonly #items: { slot: number; score: number }[] = [];
  constructor(k: number) {
    this.#k = k;
  }
  offer(slot: number, score: number): void {
    const items = this.#items;
    if (items.length === this.#k && score <= items[items.length - 1]!.score) return;
    let i = items.length;
    while (i > 0 && items[i - 1]!.score < score) i--;
    items.splice(i, 0, { slot, score });
    if (items.length > this.#k) items.pop();
  }
  sorted(): { slot: number; score: number }[] {
    return this.#items;
  }
}
