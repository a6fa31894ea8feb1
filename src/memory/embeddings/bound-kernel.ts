/**
 * The bound test of principal-bound.ts as a WebAssembly SIMD function, run for up to
 * KERNEL_QUERIES queries in one pass over the rows. In JavaScript the test cost ~5 ms a
 * search at 100k rows (float32 coordinates, a multiply-add at a time, the rows read once
 * per search); here eight int16 products go in one instruction, a row read once serves every
 * search of the pass, and few branches are taken (0.55 ms a search, three in a pass). It
 * only chooses candidates: the scan thread computes each candidate's cosine exactly, so what
 * is kept does not depend on the kernel's rounding (covered by BOUND_SLACK).
 *
 * The module is a few hundred bytes written here opcode by opcode (no toolchain, nothing to
 * build). It runs on the scan thread (scan-thread.ts), over memory shared with the thread
 * that keeps the matrix.
 */
import { BOUND_DIMS, BOUND_STAGES, COORD_SCALE, quantize } from './principal-bound.ts';

/** Queries tested in one pass. */
export const KERNEL_QUERIES = 8;

/** Rows per call at most: the candidate buffer holds a pair for each row and query. */
export const KERNEL_ROWS = 16_384;

/** Each stage's coordinates: a row's in the stage (int16), and where they start in a query's. */
const STAGES = BOUND_STAGES.map((to, k) => {
  const from = k === 0 ? 0 : BOUND_STAGES[k - 1]!;
  return { from, width: to - from, bytes: (to - from) * 2 };
});
/** Floats of a row's norms outside each stage. */
const REST_STRIDE = BOUND_STAGES.length;
const REST_BYTES = REST_STRIDE * 4;
/** A query's block: its int16 coordinates, its residual norm after each stage, then the cosine it needs. */
export const QUERY_BYTES = BOUND_DIMS * 2 + 32;
export const REST_AT = BOUND_DIMS * 2;
export const NEED_AT = REST_AT + 16;
const PAGE = 65_536;
/** The most pages a shared memory may declare (4 GiB): the kernel takes any memory up to it. */
const MAX_PAGES = 65_536;

/** Where each region of a bound's memory starts, in bytes. */
export interface KernelOffsets {
  stages: number[];
  rest: number;
  queries: number;
  pairs: number;
}

/**
 * Per bound: one shared linear memory of [each stage's coordinates | residual norms |
 * queries | candidates]. Each stage has its own array, so a pass over the rows reads the
 * first stage's 80 bytes a row and only the rows that pass it read the next (~3%): about
 * half of what one array of 128-byte rows made it read. A bigger matrix gets a new memory
 * (copied), never a grown one, so a pass under way keeps reading the rows it started with.
 */
export class BoundMemory {
  readonly capacity: number;
  readonly memory: WebAssembly.Memory;
  readonly offsets: KernelOffsets;
  /** Per stage, capacity × its width coordinates, × COORD_SCALE. */
  readonly #stages: Int16Array[];
  /** capacity × the stages: each row's norm outside the directions up to each stage's end. */
  readonly #rest: Float32Array;

  constructor(capacity: number) {
    this.capacity = capacity;
    const stages: number[] = [];
    let at = 0;
    for (const stage of STAGES) {
      stages.push(at);
      at += capacity * stage.bytes;
    }
    const rest = at;
    const queries = rest + capacity * REST_BYTES;
    const pairs = queries + KERNEL_QUERIES * QUERY_BYTES;
    const pages = Math.ceil((pairs + KERNEL_ROWS * KERNEL_QUERIES * 8) / PAGE);
    this.memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
    this.offsets = { stages, rest, queries, pairs };
    this.#stages = STAGES.map((stage, k) => new Int16Array(this.memory.buffer, stages[k]!, capacity * stage.width));
    this.#rest = new Float32Array(this.memory.buffer, rest, capacity * REST_STRIDE);
  }

  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Stores a row: its coordinates (quantized) and its norm outside each stage. */
  setRow(slot: number, coords: Float64Array, rest: readonly number[]): void {
    for (const [k, stage] of STAGES.entries()) {
      const into = this.#stages[k]!;
      const at = slot * stage.width;
      for (let e = 0; e < stage.width; e++) into[at + e] = quantize(coords[stage.from + e]!);
    }
    this.#rest.set(rest, slot * REST_STRIDE);
  }

  /** Copies the row at `from` in `source` to `slot`. */
  copyRow(source: BoundMemory, from: number, slot: number): void {
    for (const [k, stage] of STAGES.entries()) {
      this.#stages[k]!.set(
        source.#stages[k]!.subarray(from * stage.width, (from + 1) * stage.width),
        slot * stage.width,
      );
    }
    this.#rest.set(source.#rest.subarray(from * REST_STRIDE, (from + 1) * REST_STRIDE), slot * REST_STRIDE);
  }

  /** Copies every row of a smaller memory. */
  copyAll(source: BoundMemory): void {
    for (const [k] of STAGES.entries()) this.#stages[k]!.set(source.#stages[k]!);
    this.#rest.set(source.#rest);
  }
}

// --- The module, in WebAssembly's binary format ------------------------------------------

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
};
const list = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const name = (s: string): number[] => [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];

const I32 = 0x7f;
const V128 = 0x7b;
/** The instructions used, each as its bytes (SIMD ones after the 0xfd prefix). */
const op = {
  get: (i: number) => [0x20, ...uleb(i)],
  set: (i: number) => [0x21, ...uleb(i)],
  i32: (n: number) => [0x41, ...sleb(n)],
  i32Add: [0x6a],
  i32Mul: [0x6c],
  i32GeU: [0x4f],
  f32Add: [0x92],
  f32Mul: [0x94],
  f32Lt: [0x5d],
  f32Load: (offset: number) => [0x2a, 2, ...uleb(offset)],
  i32Store: (offset: number) => [0x36, 2, ...uleb(offset)],
  v128Load: (offset: number) => [0xfd, 0x00, 4, ...uleb(offset)],
  f32ConvertI32: [0xb2],
  f32Const: (x: number) => [0x43, ...new Uint8Array(new Float32Array([x]).buffer)],
  i32x4Add: [0xfd, ...uleb(0xae)],
  i32x4DotI16x8: [0xfd, ...uleb(0xba)],
  i32x4Lane: (lane: number) => [0xfd, 0x1b, lane],
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
};

/** Parameters (the stages' arrays last), then locals, by index. */
const L = { rest: 0, queries: 1, count: 2, start: 3, end: 4, out: 5 } as const;
const PARAMS = 6 + STAGES.length;
const stageArray = (k: number) => 6 + k;
const V = { row: PARAMS, r: PARAMS + 1, j: PARAMS + 2, q: PARAMS + 3, n: PARAMS + 4, acc: PARAMS + 5 };
/** Each stage's row pointer, in locals after those. */
const stageRow = (k: number) => PARAMS + 6 + k;

/**
 * scan(rest, queries, count, start, end, out, ...stages) → pairs, as this loop would:
 *
 *   for row in [start, end): for j in [0, count):
 *     acc = 0                                          (int32, exact)
 *     for each stage k, its directions [a, b):
 *       acc += q_j[a..b) · stage_k[row]                (eight int16 products at a time)
 *       if sum(acc) / COORD_SCALE² + qRest_j[k] * rest_row[k] < need_j: next j
 *     out[n++] = (row, j)
 *
 * The sums cannot overflow: |q|, |v| ≤ 1, so each lane's sum is at most COORD_SCALE² = 2^28.
 */
export function kernelBytes(): Uint8Array<ArrayBuffer> {
  // The four lanes added, as the bound's float: sum / COORD_SCALE² (a power of two: exact).
  const sum = [
    ...op.get(V.acc),
    ...op.i32x4Lane(0),
    ...op.get(V.acc),
    ...op.i32x4Lane(1),
    ...op.i32Add,
    ...op.get(V.acc),
    ...op.i32x4Lane(2),
    ...op.get(V.acc),
    ...op.i32x4Lane(3),
    ...op.i32Add,
    ...op.i32Add,
    ...op.f32ConvertI32,
    ...op.f32Const(1 / (COORD_SCALE * COORD_SCALE)),
    ...op.f32Mul,
  ];
  const stages: number[] = [];
  for (const [k, stage] of STAGES.entries()) {
    if (k > 0) stages.push(...op.get(V.acc));
    for (let e = 0; e < stage.width; e += 8) {
      stages.push(
        ...op.get(V.q),
        ...op.v128Load((stage.from + e) * 2),
        ...op.get(stageRow(k)),
        ...op.v128Load(e * 2),
        ...op.i32x4DotI16x8,
      );
      if (k > 0 || e > 0) stages.push(...op.i32x4Add);
    }
    stages.push(...op.set(V.acc));
    // The bound so far; below the need, the next query (br 0 leaves the block around the stages).
    stages.push(
      ...sum,
      ...op.get(V.q),
      ...op.f32Load(REST_AT + 4 * k),
      ...op.get(V.r),
      ...op.f32Load(4 * k),
      ...op.f32Mul,
      ...op.f32Add,
      ...op.get(V.q),
      ...op.f32Load(NEED_AT),
      ...op.f32Lt,
      ...op.brIf(0),
    );
  }
  const next = (local: number, by: number) => [...op.get(local), ...op.i32(by), ...op.i32Add, ...op.set(local)];
  const at = (base: number, bytes: number, into: number) => [
    ...op.get(base),
    ...op.get(V.row),
    ...op.i32(bytes),
    ...op.i32Mul,
    ...op.i32Add,
    ...op.set(into),
  ];
  const body = [
    ...op.get(L.start),
    ...op.set(V.row),
    ...op.block,
    ...op.loop,
    ...op.get(V.row),
    ...op.get(L.end),
    ...op.i32GeU,
    ...op.brIf(1),
    ...STAGES.flatMap((stage, k) => at(stageArray(k), stage.bytes, stageRow(k))),
    ...at(L.rest, REST_BYTES, V.r),
    ...op.i32(0),
    ...op.set(V.j),
    ...op.get(L.queries),
    ...op.set(V.q),
    ...op.block,
    ...op.loop,
    ...op.get(V.j),
    ...op.get(L.count),
    ...op.i32GeU,
    ...op.brIf(1),
    ...op.block,
    ...stages,
    // Every stage passed: the pair is a candidate.
    ...op.get(L.out),
    ...op.get(V.n),
    ...op.i32(8),
    ...op.i32Mul,
    ...op.i32Add,
    ...op.get(V.row),
    ...op.i32Store(0),
    ...op.get(L.out),
    ...op.get(V.n),
    ...op.i32(8),
    ...op.i32Mul,
    ...op.i32Add,
    ...op.get(V.j),
    ...op.i32Store(4),
    ...next(V.n, 1),
    ...op.end,
    ...next(V.j, 1),
    ...next(V.q, QUERY_BYTES),
    ...op.br(0),
    ...op.end,
    ...op.end,
    ...next(V.row, 1),
    ...op.br(0),
    ...op.end,
    ...op.end,
    ...op.get(V.n),
    ...op.end,
  ];
  const locals = list([
    [5, I32],
    [1, V128],
    [STAGES.length, I32],
  ]);
  const code = [...locals, ...body];
  const params = Array.from({ length: PARAMS }, () => [I32]);
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, list([[0x60, ...list(params), ...list([[I32]])]])),
    // A shared memory (limits 0x03: shared, with a maximum) of 1 to MAX_PAGES pages.
    ...section(2, list([[...name('env'), ...name('memory'), 0x02, 0x03, ...uleb(1), ...uleb(MAX_PAGES)]])),
    ...section(3, list([[0]])),
    ...section(7, list([[...name('scan'), 0x00, 0]])),
    ...section(10, list([[...uleb(code.length), ...code]])),
  ]);
}
