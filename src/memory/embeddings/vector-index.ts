import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { BoundMemory, KERNEL_QUERIES } from './bound-kernel.ts';
import { BOUND_DIMS, type PrincipalBound, principalBasis, projectQuery, projectRow } from './principal-bound.ts';
import { type ScanThread, scanThread, type ThreadArrays } from './scan-thread.ts';
import type { VectorModel } from './vector-store.ts';

/** One scored vector. */
export interface VectorMatch {
  id: string;
  cosine: number;
}

/** Rows scanned between two yields to the event loop by a plain scan (~2 ms at 100 dimensions). */
const SCAN_CHUNK = 16_384;

/** Rows projected between two yields when a bound is built (64 products of 100 dimensions each). */
const PROJECT_CHUNK = 1_024;

/** Rows read per statement when loading: memory stays one page, and other requests run between pages. */
const LOAD_PAGE = 2_048;

/** Removed rows are left as holes until they are this share of the matrix (then it is compacted). */
const HOLES_MAX = 0.25;

/**
 * Passes sent to the scan thread at once: one runs while the next waits there, so the
 * thread goes from one to the next without waiting for this thread to send it.
 */
const PASSES_IN_FLIGHT = 2;

/** Below this many vectors a plain scan is cheap: no bound is kept. */
const BOUND_MIN_ROWS = 4_096;

/**
 * The basis comes from a sample of 4,096 rows (principal-bound.ts), so once it was chosen
 * from a matrix this large a new one changes little, while choosing it projects every row
 * again (0.6 s at 100k rows): from here on it is chosen again only after fourfold growth.
 * A basis that fits the rows less well only skips fewer of them; the results stay exact.
 */
const BASIS_SETTLED_ROWS = 65_536;

/** A search waiting for, or in, a pass. */
interface Search {
  query: Float32Array;
  k: number;
  allowed: ReadonlySet<string> | null;
  floor: number;
  top: TopK;
  resolve: (matches: VectorMatch[]) => void;
  reject: (error: unknown) => void;
}

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
  /** The vectors, on shared memory: the scan thread reads them (see scan-thread.ts). */
  #data = sharedFloats(0);
  /** 1 at each slot that holds a vector, 0 at a hole; shared with the scan thread too. */
  #live = sharedBytes(0);
  #lastSeq = 0;
  #lastDrop = 0;
  /** Lets a scan skip rows that cannot reach the cosine it needs (see principal-bound.ts); null while small. */
  #bound: PrincipalBound | null = null;
  /** A new basis being chosen, and every row projected on it. */
  #choosing: Promise<void> | null = null;
  #refreshing: Promise<void> | null = null;
  /** Searches for the next pass, and the pass under way. */
  #waiting: Search[] = [];
  #inFlight = 0;
  #scheduled = false;
  /** The arrays the scan thread was last given, and their id there. */
  #shared: (ThreadArrays & { thread: ScanThread; id: number }) | null = null;

  constructor(model: VectorModel) {
    this.model = model;
  }

  /** How many vectors it holds. */
  get size(): number {
    return this.#slot.size;
  }

  /** Bytes held: the floats' capacity, the bound and, roughly, the ids, their seqs and their map. */
  get bytes(): number {
    return this.#data.byteLength + (this.#bound?.memory.bytes ?? 0) + this.ids.length * 105;
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

  /**
   * Chooses the bound's basis once the matrix is large, and again each time it has doubled
   * since; from BASIS_SETTLED_ROWS on, each time it has grown fourfold. The first bound is
   * waited for (without one a scan reads every row); a new basis for a matrix that has a
   * bound is chosen beside the requests, which keep the old one until every row is in the
   * new (projecting 100k rows took 0.6 s, and every capture's refresh waited for it).
   */
  async #keepBound(): Promise<void> {
    const d = this.model.dim;
    const rows = this.#slot.size;
    const chosenAt = this.#bound?.rows ?? 0;
    const growth = chosenAt >= BASIS_SETTLED_ROWS ? 4 : 2;
    if (this.#choosing || d < BOUND_DIMS || rows < BOUND_MIN_ROWS || rows < growth * chosenAt) return;
    const choosing = this.#chooseBound(rows).finally(() => {
      this.#choosing = null;
    });
    this.#choosing = choosing;
    if (!this.#bound) await choosing;
    // A basis that could not be chosen leaves the old bound, which is as exact.
    else choosing.catch(() => {});
  }

  async #chooseBound(rows: number): Promise<void> {
    const d = this.model.dim;
    const ids = this.ids;
    const basis = await principalBasis(this.#data, d, [...this.#slot.values()]);
    let memory = new BoundMemory(this.#data.length / d);
    for (let slot = 0; slot < this.ids.length; slot++) {
      if (slot > 0 && slot % PROJECT_CHUNK === 0) {
        await nextTurn();
        // Compacted or cleared meanwhile: these are not its slots; a later refresh chooses again.
        if (this.ids !== ids) return;
        if (this.#data.length / d > memory.capacity) memory = grownMemory(memory, this.#data.length / d);
      }
      projectRow(basis, this.#data, slot * d, d, memory, slot);
    }
    if (this.ids !== ids) return;
    this.#bound = { basis, memory, rows };
  }

  #clear(): void {
    this.ids = [];
    this.#slot = new Map();
    this.#seqs = [];
    this.#data = sharedFloats(0);
    this.#live = sharedBytes(0);
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
    const grown = sharedFloats(need);
    grown.set(this.#data);
    this.#data = grown;
    const live = sharedBytes(rows);
    live.set(this.#live);
    this.#live = live;
    const bound = this.#bound;
    if (bound) this.#bound = { ...bound, memory: grownMemory(bound.memory, rows) };
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
      this.#hole(slot);
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
    const data = sharedFloats(capacity * d);
    const live = sharedBytes(capacity);
    const old = this.#bound;
    const bound = old && { ...old, memory: new BoundMemory(capacity) };
    const slots = new Map<string, number>();
    for (const [slot, id] of this.ids.entries()) {
      if (id === '') continue;
      const to = ids.length;
      data.set(this.#data.subarray(slot * d, slot * d + d), to * d);
      if (old && bound) bound.memory.copyRow(old.memory, slot, to);
      slots.set(id, to);
      live[to] = 1;
      ids.push(id);
      seqs.push(this.#seqs[slot]!);
    }
    this.ids = ids;
    this.#seqs = seqs;
    this.#slot = slots;
    this.#data = data;
    this.#live = live;
    this.#bound = bound;
  }

  /**
   * Stores a row's bytes in a new slot at the end, copied straight into the matrix; the
   * entry's old row, if any, becomes a hole. A written slot never changes: the scan thread
   * may be reading it.
   */
  #put(id: string, bytes: ArrayBuffer | Uint8Array, seq: number): void {
    const d = this.model.dim;
    const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    if (u8.byteLength !== d * 4) return;
    const old = this.#slot.get(id);
    if (old !== undefined) this.#hole(old);
    const slot = this.ids.length;
    if ((slot + 1) * d > this.#data.length) this.#grow(Math.max(1024, slot * 2));
    this.ids.push(id);
    this.#seqs.push(seq);
    this.#slot.set(id, slot);
    new Uint8Array(this.#data.buffer, slot * d * 4, d * 4).set(u8);
    this.#live[slot] = 1;
    if (this.#bound) projectRow(this.#bound.basis, this.#data, slot * d, d, this.#bound.memory, slot);
  }

  /** A hole, not a move: a scan under way keeps the slots it started with. */
  #hole(slot: number): void {
    const id = this.ids[slot]!;
    this.ids[slot] = '';
    this.#live[slot] = 0;
    if (this.#slot.get(id) === slot) this.#slot.delete(id);
  }

  /**
   * The `k` vectors most similar to `query` with a cosine of at least `floor`, best first,
   * among `allowed` when given: exactly what a full scan keeps, but rows whose bound cannot
   * reach the floor, or the k-th best so far, are skipped. Searches that arrive while a pass
   * is under way share the next one (up to KERNEL_QUERIES): each row's bound is read once
   * for all of them. A pass runs on the scan thread (see scan-thread.ts), so the event loop
   * only sends the searches and names the slots that come back; a matrix too small for a
   * bound is scanned here, yielding every SCAN_CHUNK rows.
   *
   * @example await matrix.search(q, 50) // [{ id: '0193…', cosine: 0.82 }, ...]
   */
  search(
    query: Float32Array,
    k: number,
    allowed: ReadonlySet<string> | null = null,
    floor = Number.NEGATIVE_INFINITY,
  ): Promise<VectorMatch[]> {
    if (k <= 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ query, k, allowed, floor, top: new TopK(k), resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Searches asked in the same turn share a pass.
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#start();
    });
  }

  /** Starts passes for the waiting searches while fewer than PASSES_IN_FLIGHT are out. */
  #start(): void {
    while (this.#waiting.length > 0 && this.#inFlight < PASSES_IN_FLIGHT) {
      const pass = this.#waiting.splice(0, KERNEL_QUERIES);
      this.#inFlight++;
      this.#pass(pass)
        .catch((error: unknown) => {
          for (const s of pass) s.reject(error);
        })
        .finally(() => {
          this.#inFlight--;
          this.#start();
        });
    }
  }

  async #pass(searches: Search[]): Promise<void> {
    // A refresh meanwhile appends rows or swaps in new arrays; the ones read here stay valid
    // for the slots they held, so the pass sees one consistent state.
    const ids = this.ids;
    const bound = this.#bound;
    if (bound) await this.#threadPass(ids, bound, searches);
    else await this.#plainPass(ids, searches);
    for (const s of searches) {
      // A row removed during the pass leaves a hole: it is gone, so it is not returned.
      s.resolve(
        s.top
          .sorted()
          .filter(({ slot }) => ids[slot] !== '')
          .map(({ slot, score }) => ({ id: ids[slot]!, cosine: score })),
      );
    }
  }

  /** The pass on the scan thread: the kernel's candidates, each with its exact cosine. */
  async #threadPass(ids: readonly string[], bound: PrincipalBound, searches: Search[]): Promise<void> {
    const count = ids.length;
    const found = await scanThread().run({
      arrays: this.#shareWith(scanThread(), bound.memory),
      dim: this.model.dim,
      count,
      searches: searches.map((s) => ({
        query: s.query,
        ...projectQuery(bound.basis, s.query),
        k: s.k,
        floor: s.floor,
        allowed: s.allowed && this.#slotsOf(s.allowed, count),
      })),
    });
    for (const [j, s] of searches.entries()) {
      const { slots, scores } = found[j]!;
      for (const [i, slot] of slots.entries()) s.top.offer(slot, scores[i]!);
    }
  }

  /** The id the scan thread knows the current arrays by, giving them to it when they changed. */
  #shareWith(thread: ScanThread, bound: BoundMemory): number {
    const was = this.#shared;
    if (was?.thread === thread && was.bound === bound && was.data === this.#data && was.live === this.#live)
      return was.id;
    if (was?.thread === thread) thread.unshare(was.id);
    const arrays = { bound, data: this.#data, live: this.#live };
    this.#shared = { ...arrays, thread, id: thread.share(arrays) };
    forgotten.unregister(this);
    forgotten.register(this, { thread, id: this.#shared.id }, this);
    return this.#shared.id;
  }

  /** 1 at the slot of each of `allowed` below `count`. */
  #slotsOf(allowed: ReadonlySet<string>, count: number): Uint8Array {
    const marks = new Uint8Array(count);
    for (const id of allowed) {
      const slot = this.#slot.get(id);
      if (slot !== undefined && slot < count) marks[slot] = 1;
    }
    return marks;
  }

  /** Every row scored here, yielding every SCAN_CHUNK rows: for a matrix too small to keep a bound. */
  async #plainPass(ids: readonly string[], searches: Search[]): Promise<void> {
    let data = this.#data;
    for (let start = 0; start < ids.length; start += SCAN_CHUNK) {
      if (start > 0) {
        await nextTurn();
        if (this.ids === ids) data = this.#data;
      }
      const end = Math.min(ids.length, start + SCAN_CHUNK);
      for (const s of searches) this.#plainRows(ids, data, s, start, end);
    }
  }

  #plainRows(ids: readonly string[], data: Float32Array, s: Search, start: number, end: number): void {
    const d = this.model.dim;
    for (let slot = start; slot < end; slot++) {
      const id = ids[slot]!;
      if (id === '' || (s.allowed && !s.allowed.has(id))) continue;
      const score = dotAt(data, slot * d, s.query, d);
      if (score < s.floor) continue;
      s.top.offer(slot, score);
    }
  }
}

/** The same coordinates and norms in a memory for `rows` rows. */
function grownMemory(memory: BoundMemory, rows: number): BoundMemory {
  const grown = new BoundMemory(rows);
  grown.copyAll(memory);
  return grown;
}

/** A matrix dropped (its workspace left the cache): the scan thread lets go of its arrays. */
const forgotten = new FinalizationRegistry<{ thread: ScanThread; id: number }>(({ thread, id }) => thread.unshare(id));

const sharedFloats = (length: number) => new Float32Array(new SharedArrayBuffer(length * 4));
const sharedBytes = (length: number) => new Uint8Array(new SharedArrayBuffer(length));

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
