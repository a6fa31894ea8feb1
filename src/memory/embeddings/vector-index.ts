import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import {
  BOUND_DIMS,
  BOUND_HALF,
  BOUND_SLACK,
  type PrincipalBound,
  principalBasis,
  projectQuery,
  projectRow,
} from './principal-bound.ts';
import type { VectorModel } from './vector-store.ts';

/** One scored vector. */
export interface VectorMatch {
  id: string;
  cosine: number;
}

/** Rows scanned between two yields to the event loop (~2 ms of work at 100 dimensions). */
const SCAN_CHUNK = 16_384;

/** Rows read per statement when loading: memory stays one page, and other requests run between pages. */
const LOAD_PAGE = 2_048;

/** Removed rows are left as holes until they are this share of the matrix (then it is compacted). */
const HOLES_MAX = 0.25;

/** Below this many vectors a plain scan is cheap: no bound is kept. */
const BOUND_MIN_ROWS = 4_096;

/**
 * A workspace's vectors for one model, in one Float32Array: an exact scan of 100k × 100
 * takes ~15 ms in JavaScript, where libSQL's vector_distance_cos took ~80 ms and its
 * approximate index returned a third of the exact top 20. The matrix follows the table by
 * `seq` (which only grows) and by the drop log (`entry_vector_drops`, written by trigger
 * whoever deletes): a refresh is one statement of two high-water marks while nothing
 * changed, then reads only the rows and drops newer than the last it saw, so every
 * capture sees the vectors written before it, by this process or any other, without
 * counting the table.
 */
export class VectorMatrix {
  readonly model: VectorModel;
  /** The entry of each slot; '' where a removed row left a hole (until the next compaction). */
  ids: string[] = [];
  #slot = new Map<string, number>();
  /** The entry_vectors seq of each slot's row. */
  #seqs: number[] = [];
  #data = new Float32Array(0);
  #lastSeq = 0;
  #lastDrop = 0;
  /** Lets a scan skip rows that cannot reach the cosine it needs (see principal-bound.ts); null while small. */
  #bound: PrincipalBound | null = null;
  #refreshing: Promise<void> | null = null;

  constructor(model: VectorModel) {
    this.model = model;
  }

  /** How many vectors it holds. */
  get size(): number {
    return this.#slot.size;
  }

  /** Bytes held: the floats' capacity and, roughly, the ids, their seqs and their map. */
  get bytes(): number {
    return this.#data.byteLength + this.ids.length * 104;
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
    // The AUTOINCREMENT high-water marks: unlike max(seq) they never go down, not even
    // when the newest row is deleted.
    const [head] = await db.all<{ seq: number | null; dropped: number | null }>(sql`
      SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'entry_vectors') AS seq,
        (SELECT seq FROM sqlite_sequence WHERE name = 'entry_vector_drops') AS dropped`);
    const seq = Number(head?.seq ?? 0);
    const dropped = Number(head?.dropped ?? 0);
    if (seq === this.#lastSeq && dropped === this.#lastDrop) return;
    // The database went back (a restored copy): start over.
    if (seq < this.#lastSeq || dropped < this.#lastDrop) this.#clear();
    if (this.#lastSeq > 0) {
      await this.#load(db, this.#lastSeq);
      if (await this.#applyDrops(db)) return this.#keepBound();
      // Drops this matrix never read were pruned from the log: start over.
      this.#clear();
    }
    // A full load reads the table as it is now: the drops up to here are in it already.
    await this.#reserve(db);
    this.#lastDrop = dropped;
    await this.#load(db, 0);
    this.#lastSeq = Math.max(this.#lastSeq, seq);
    await this.#keepBound();
  }

  /** Chooses the bound's basis once the matrix is large, and again each time it has doubled since. */
  async #keepBound(): Promise<void> {
    const d = this.model.dim;
    const rows = this.#slot.size;
    if (d < 2 * BOUND_DIMS || rows < BOUND_MIN_ROWS || rows < 2 * (this.#bound?.rows ?? 0)) return;
    const basis = principalBasis(this.#data, d, [...this.#slot.values()]);
    const capacity = this.#data.length / d;
    const bound = { basis, proj: new Float32Array(capacity * BOUND_DIMS), rest: new Float32Array(2 * capacity), rows };
    // Scans meanwhile keep the old bound (or none): this one is used once every row is in it.
    for (let slot = 0; slot < this.ids.length; slot++) {
      if (slot > 0 && slot % SCAN_CHUNK === 0) await nextTurn();
      projectRow(basis, this.#data, slot * d, d, bound, slot);
    }
    this.#bound = bound;
  }

  #clear(): void {
    this.ids = [];
    this.#slot = new Map();
    this.#seqs = [];
    this.#data = new Float32Array(0);
    this.#lastSeq = 0;
    this.#lastDrop = 0;
    this.#bound = null;
  }

  /** Room for every row before a full load, so the matrix is not copied as it grows. */
  async #reserve(db: Db): Promise<void> {
    const [row] = await db.all<{ n: number }>(sql`SELECT count(*) AS n FROM entry_vectors`);
    const rows = Number(row?.n ?? 0);
    this.#grow(rows + (rows >> 4));
  }

  #grow(rows: number): void {
    const need = rows * this.model.dim;
    if (need <= this.#data.length) return;
    const grown = new Float32Array(need);
    grown.set(this.#data);
    this.#data = grown;
    const bound = this.#bound;
    if (bound) {
      const proj = new Float32Array(rows * BOUND_DIMS);
      const rest = new Float32Array(2 * rows);
      proj.set(bound.proj);
      rest.set(bound.rest);
      this.#bound = { ...bound, proj, rest };
    }
  }

  /** Rows newer than `afterSeq`, a page per statement, yielding between pages. */
  async #load(db: Db, afterSeq: number): Promise<void> {
    const { model, dim } = this.model;
    for (let after = afterSeq; ; ) {
      const rows = await db.all<{ seq: number; entry_id: string; vector: ArrayBuffer | Uint8Array }>(sql`
        SELECT seq, entry_id, vector FROM entry_vectors
        WHERE model = ${model} AND dim = ${dim} AND seq > ${after} ORDER BY seq LIMIT ${LOAD_PAGE}`);
      for (const row of rows) {
        after = Number(row.seq);
        this.#put(row.entry_id, row.vector, after);
      }
      this.#lastSeq = Math.max(this.#lastSeq, after);
      if (rows.length < LOAD_PAGE) return;
      await nextTurn();
    }
  }

  /**
   * Removes the rows deleted since the last refresh, each only while the matrix still
   * holds that very row. False when the log no longer reaches back to the last drop read.
   */
  async #applyDrops(db: Db): Promise<boolean> {
    const drops = await db.all<{ seq: number; vector_seq: number; entry_id: string }>(sql`
      SELECT seq, vector_seq, entry_id FROM entry_vector_drops WHERE seq > ${this.#lastDrop} ORDER BY seq`);
    if (drops.length > 0 && Number(drops[0]!.seq) > this.#lastDrop + 1) return false;
    for (const d of drops) {
      this.#lastDrop = Number(d.seq);
      const slot = this.#slot.get(d.entry_id);
      if (slot === undefined || this.#seqs[slot] !== Number(d.vector_seq)) continue;
      // A hole, not a move: a scan under way keeps the slots it started with.
      this.ids[slot] = '';
      this.#slot.delete(d.entry_id);
    }
    if (this.ids.length - this.#slot.size > Math.max(1024, this.ids.length * HOLES_MAX)) this.#compact();
    return true;
  }

  /** New arrays without the holes, in the same order (a scan under way keeps the old ones). */
  #compact(): void {
    const d = this.model.dim;
    const ids: string[] = [];
    const seqs: number[] = [];
    const capacity = Math.max(1024, this.#slot.size + (this.#slot.size >> 4));
    const data = new Float32Array(capacity * d);
    const old = this.#bound;
    const bound = old && {
      ...old,
      proj: new Float32Array(capacity * BOUND_DIMS),
      rest: new Float32Array(2 * capacity),
    };
    const slots = new Map<string, number>();
    for (const [slot, id] of this.ids.entries()) {
      if (id === '') continue;
      const to = ids.length;
      data.set(this.#data.subarray(slot * d, slot * d + d), to * d);
      if (old && bound) {
        bound.proj.set(old.proj.subarray(slot * BOUND_DIMS, (slot + 1) * BOUND_DIMS), to * BOUND_DIMS);
        bound.rest.set(old.rest.subarray(2 * slot, 2 * slot + 2), 2 * to);
      }
      slots.set(id, to);
      ids.push(id);
      seqs.push(this.#seqs[slot]!);
    }
    this.ids = ids;
    this.#seqs = seqs;
    this.#slot = slots;
    this.#data = data;
    this.#bound = bound;
  }

  /** Stores a row's bytes in the entry's slot (a new one at the end), copied straight into the matrix. */
  #put(id: string, bytes: ArrayBuffer | Uint8Array, seq: number): void {
    const d = this.model.dim;
    const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    if (u8.byteLength !== d * 4) return;
    let slot = this.#slot.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      if ((slot + 1) * d > this.#data.length) this.#grow(Math.max(1024, slot * 2));
      this.ids.push(id);
      this.#seqs.push(seq);
      this.#slot.set(id, slot);
    }
    this.#seqs[slot] = seq;
    new Uint8Array(this.#data.buffer, slot * d * 4, d * 4).set(u8);
    if (this.#bound) projectRow(this.#bound.basis, this.#data, slot * d, d, this.#bound, slot);
  }

  /**
   * The `k` vectors most similar to `query` with a cosine of at least `floor`, best first,
   * among `allowed` when given: exactly what a full scan keeps, but rows whose bound cannot
   * reach the floor, or the k-th best so far, are skipped. The scan yields to the event
   * loop every SCAN_CHUNK rows, so a large workspace never holds up other requests for long.
   *
   * @example await matrix.search(q, 50) // [{ id: '0193…', cosine: 0.82 }, ...]
   */
  async search(
    query: Float32Array,
    k: number,
    allowed: ReadonlySet<string> | null = null,
    floor = Number.NEGATIVE_INFINITY,
  ): Promise<VectorMatch[]> {
    if (k <= 0) return [];
    const top = new TopK(k);
    // A refresh during a yield appends rows or swaps in new arrays; the ones read here stay
    // valid for the slots they held, so the scan sees one consistent state.
    const ids = this.ids;
    const count = ids.length;
    let data = this.#data;
    let bound = this.#bound;
    const scan = { query, allowed, floor, q: bound ? projectQuery(bound.basis, query) : null };
    for (let start = 0; start < count; start += SCAN_CHUNK) {
      if (start > 0) {
        await nextTurn();
        if (this.ids === ids) {
          data = this.#data;
          if (this.#bound?.basis !== bound?.basis) scan.q = this.#bound ? projectQuery(this.#bound.basis, query) : null;
          bound = this.#bound;
        }
      }
      this.#scanChunk(ids, data, bound, scan, start, Math.min(count, start + SCAN_CHUNK), top);
    }
    // A row removed during the scan leaves a hole: it is gone, so it is not returned.
    return top
      .sorted()
      .filter(({ slot }) => ids[slot] !== '')
      .map(({ slot, score }) => ({ id: ids[slot]!, cosine: score }));
  }

  #scanChunk(
    ids: readonly string[],
    data: Float32Array,
    bound: PrincipalBound | null,
    scan: {
      query: Float32Array;
      allowed: ReadonlySet<string> | null;
      floor: number;
      q: { qp: Float64Array; qRest: [number, number] } | null;
    },
    start: number,
    end: number,
    top: TopK,
  ): void {
    const d = this.model.dim;
    const { query, allowed, floor, q } = scan;
    const proj = bound && q ? bound.proj : null;
    const rest = bound?.rest ?? new Float32Array(0);
    const qp = q?.qp ?? new Float64Array(0);
    const [qHalf, qRest] = q?.qRest ?? [0, 0];
    let need = Math.max(floor, top.least) - BOUND_SLACK;
    for (let slot = start; slot < end; slot++) {
      const id = ids[slot]!;
      if (id === '' || (allowed && !allowed.has(id))) continue;
      if (proj) {
        const b = slot * BOUND_DIMS;
        let partial = 0;
        for (let e = 0; e < BOUND_HALF; e += 4) {
          partial +=
            qp[e]! * proj[b + e]! +
            qp[e + 1]! * proj[b + e + 1]! +
            qp[e + 2]! * proj[b + e + 2]! +
            qp[e + 3]! * proj[b + e + 3]!;
        }
        if (partial + qHalf * rest[2 * slot]! < need) continue;
        for (let e = BOUND_HALF; e < BOUND_DIMS; e += 4) {
          partial +=
            qp[e]! * proj[b + e]! +
            qp[e + 1]! * proj[b + e + 1]! +
            qp[e + 2]! * proj[b + e + 2]! +
            qp[e + 3]! * proj[b + e + 3]!;
        }
        if (partial + qRest * rest[2 * slot + 1]! < need) continue;
      }
      const score = dotAt(data, slot * d, query, d);
      if (score < floor) continue;
      top.offer(slot, score);
      need = Math.max(floor, top.least) - BOUND_SLACK;
    }
  }
}

/**
 * The dot product of `q` and the row at `base`, summed in the same order as a plain loop
 * (so every cosine, and every decision on it, is the same to the last bit), four terms per
 * turn of the loop.
 */
function dotAt(data: Float32Array, base: number, q: Float32Array, d: number): number {
  let s = 0;
  let i = 0;
  for (let b = base; i + 4 <= d; i += 4, b += 4) {
    s += data[b]! * q[i]!;
    s += data[b + 1]! * q[i + 1]!;
    s += data[b + 2]! * q[i + 2]!;
    s += data[b + 3]! * q[i + 3]!;
  }
  for (; i < d; i++) s += data[base + i]! * q[i]!;
  return s;
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
  /** The score a row must beat to get in: the k-th best once there are k, else none. */
  get least(): number {
    const items = this.#items;
    return items.length === this.#k ? items[items.length - 1]!.score : Number.NEGATIVE_INFINITY;
  }
  sorted(): { slot: number; score: number }[] {
    return this.#items;
  }
}
