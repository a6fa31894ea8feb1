/**
 * The bound test of principal-bound.ts as a WebAssembly SIMD function, run for up to
 * KERNEL_QUERIES queries in one pass over the rows. In JavaScript the test cost ~5 ms a
 * query at 100k rows, half of it waiting on memory (each row's coordinates are read once per
 * query) and half on one multiply-add at a time; here four lanes work at once and a row read
 * once serves every query of the pass (1.1 ms a query with 8 together). It only chooses
 * candidates: the caller computes each candidate's cosine exactly, so what is kept does not
 * depend on the kernel's float32 rounding (far below BOUND_SLACK, see principal-bound.ts).
 *
 * The module is a few hundred bytes written here opcode by opcode (no toolchain, nothing to
 * build); `kernelModule()` compiles it once per process.
 */
import { BOUND_DIMS, BOUND_STAGES } from './principal-bound.ts';

/** Queries tested in one pass. */
export const KERNEL_QUERIES = 8;

/** Rows per call at most: the candidate buffer holds a pair for each row and query. */
export const KERNEL_ROWS = 16_384;

/** Bytes of a row's coordinates, and of its residual norms (one after each stage, padded to 16). */
const PROJ_BYTES = BOUND_DIMS * 4;
const REST_BYTES = 16;
/** A query's block: its coordinates, its residual norm after each stage, then the cosine it needs. */
const QUERY_BYTES = PROJ_BYTES + 32;
const NEED_AT = PROJ_BYTES + 16;
const PAGE = 65_536;

type KernelScan = (
  proj: number,
  rest: number,
  queries: number,
  count: number,
  start: number,
  end: number,
  out: number,
) => number;

/**
 * Per bound: one linear memory of [coordinates | residual norms | queries | candidates], and
 * the kernel bound to it. A bigger matrix gets a new one (copied), never a grown one, so a
 * scan under way keeps reading the views it started with.
 */
export class BoundMemory {
  readonly capacity: number;
  /** capacity × BOUND_DIMS coordinates. */
  readonly proj: Float32Array;
  /** capacity × 4: each row's norm outside the first 8, 16, 32 and 64 directions. */
  readonly rest: Float32Array;
  readonly #queries: Float32Array;
  readonly #pairs: Int32Array;
  readonly #offsets: { proj: number; rest: number; queries: number; pairs: number };
  readonly #scan: KernelScan;

  constructor(capacity: number) {
    this.capacity = capacity;
    const proj = 0;
    const rest = proj + capacity * PROJ_BYTES;
    const queries = rest + capacity * REST_BYTES;
    const pairs = queries + KERNEL_QUERIES * QUERY_BYTES;
    const bytes = pairs + KERNEL_ROWS * KERNEL_QUERIES * 8;
    const memory = new WebAssembly.Memory({ initial: Math.ceil(bytes / PAGE) });
    const instance = new WebAssembly.Instance(kernelModule(), { env: { memory } });
    this.#scan = instance.exports.scan as KernelScan;
    this.#offsets = { proj, rest, queries, pairs };
    this.proj = new Float32Array(memory.buffer, proj, capacity * BOUND_DIMS);
    this.rest = new Float32Array(memory.buffer, rest, capacity * 4);
    this.#queries = new Float32Array(memory.buffer, queries, (KERNEL_QUERIES * QUERY_BYTES) / 4);
    this.#pairs = new Int32Array(memory.buffer, pairs, KERNEL_ROWS * KERNEL_QUERIES * 2);
  }

  /** Sets query `j` of the pass: its coordinates and residual norms (see projectQuery). */
  setQuery(j: number, coords: Float64Array, rest: readonly number[]): void {
    const at = (j * QUERY_BYTES) / 4;
    this.#queries.set(coords, at);
    this.#queries.set(rest, at + BOUND_DIMS);
  }

  /** The bound query `j` needs a row to reach to be a candidate. */
  setNeed(j: number, need: number): void {
    this.#queries[(j * QUERY_BYTES + NEED_AT) / 4] = need;
  }

  /**
   * Tests rows [start, end) against the first `count` queries; returns how many
   * (row, query) pairs passed every stage, in row order, read with `pair`.
   */
  scan(count: number, start: number, end: number): number {
    const o = this.#offsets;
    return this.#scan(o.proj, o.rest, o.queries, count, start, end, o.pairs);
  }

  /** The slot and the query of the i-th candidate of the last scan. */
  pair(i: number): [slot: number, query: number] {
    return [this.#pairs[2 * i]!, this.#pairs[2 * i + 1]!];
  }
}

let compiled: WebAssembly.Module | null = null;

/** The kernel's module, compiled on first use. */
export function kernelModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(kernelBytes());
  return compiled;
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
  f32x4Add: [0xfd, ...uleb(0xe4)],
  f32x4Mul: [0xfd, ...uleb(0xe6)],
  f32x4Lane: (lane: number) => [0xfd, 0x1f, lane],
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
};

/** Parameters, then locals, by index. */
const L = {
  proj: 0,
  rest: 1,
  queries: 2,
  count: 3,
  start: 4,
  end: 5,
  out: 6,
  row: 7,
  p: 8,
  r: 9,
  j: 10,
  q: 11,
  n: 12,
  acc: 13,
};

/**
 * scan(proj, rest, queries, count, start, end, out) → pairs, as this loop would:
 *
 *   for row in [start, end): for j in [0, count):
 *     acc = 0
 *     for each stage [a, b) of BOUND_STAGES, k its index:
 *       acc += q_j[a..b) · proj_row[a..b)             (four lanes at a time)
 *       if sum(acc) + qRest_j[k] * rest_row[k] < need_j: next j
 *     out[n++] = (row, j)
 */
function kernelBytes(): Uint8Array<ArrayBuffer> {
  const sum = [
    ...op.get(L.acc),
    ...op.f32x4Lane(0),
    ...op.get(L.acc),
    ...op.f32x4Lane(1),
    ...op.f32Add,
    ...op.get(L.acc),
    ...op.f32x4Lane(2),
    ...op.get(L.acc),
    ...op.f32x4Lane(3),
    ...op.f32Add,
    ...op.f32Add,
  ];
  const stages: number[] = [];
  let from = 0;
  for (const [k, to] of BOUND_STAGES.entries()) {
    if (from > 0) stages.push(...op.get(L.acc));
    for (let e = from; e < to; e += 4) {
      stages.push(...op.get(L.q), ...op.v128Load(e * 4), ...op.get(L.p), ...op.v128Load(e * 4), ...op.f32x4Mul);
      if (e > 0) stages.push(...op.f32x4Add);
    }
    stages.push(...op.set(L.acc));
    // The bound so far; below the need, the next query (br 0 leaves the block around the stages).
    stages.push(
      ...sum,
      ...op.get(L.q),
      ...op.f32Load(PROJ_BYTES + 4 * k),
      ...op.get(L.r),
      ...op.f32Load(4 * k),
      ...op.f32Mul,
      ...op.f32Add,
      ...op.get(L.q),
      ...op.f32Load(NEED_AT),
      ...op.f32Lt,
      ...op.brIf(0),
    );
    from = to;
  }
  const next = (local: number, by: number) => [...op.get(local), ...op.i32(by), ...op.i32Add, ...op.set(local)];
  const body = [
    ...op.get(L.start),
    ...op.set(L.row),
    ...op.block,
    ...op.loop,
    ...op.get(L.row),
    ...op.get(L.end),
    ...op.i32GeU,
    ...op.brIf(1),
    ...op.get(L.proj),
    ...op.get(L.row),
    ...op.i32(PROJ_BYTES),
    ...op.i32Mul,
    ...op.i32Add,
    ...op.set(L.p),
    ...op.get(L.rest),
    ...op.get(L.row),
    ...op.i32(REST_BYTES),
    ...op.i32Mul,
    ...op.i32Add,
    ...op.set(L.r),
    ...op.i32(0),
    ...op.set(L.j),
    ...op.get(L.queries),
    ...op.set(L.q),
    ...op.block,
    ...op.loop,
    ...op.get(L.j),
    ...op.get(L.count),
    ...op.i32GeU,
    ...op.brIf(1),
    ...op.block,
    ...stages,
    // Every stage passed: the pair is a candidate.
    ...op.get(L.out),
    ...op.get(L.n),
    ...op.i32(8),
    ...op.i32Mul,
    ...op.i32Add,
    ...op.get(L.row),
    ...op.i32Store(0),
    ...op.get(L.out),
    ...op.get(L.n),
    ...op.i32(8),
    ...op.i32Mul,
    ...op.i32Add,
    ...op.get(L.j),
    ...op.i32Store(4),
    ...next(L.n, 1),
    ...op.end,
    ...next(L.j, 1),
    ...next(L.q, QUERY_BYTES),
    ...op.br(0),
    ...op.end,
    ...op.end,
    ...next(L.row, 1),
    ...op.br(0),
    ...op.end,
    ...op.end,
    ...op.get(L.n),
    ...op.end,
  ];
  const locals = list([
    [6, I32],
    [1, V128],
  ]);
  const code = [...locals, ...body];
  const params = Array.from({ length: 7 }, () => [I32]);
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, list([[0x60, ...list(params), ...list([[I32]])]])),
    ...section(2, list([[...name('env'), ...name('memory'), 0x02, 0x00, ...uleb(1)]])),
    ...section(3, list([[0]])),
    ...section(7, list([[...name('scan'), 0x00, 0]])),
    ...section(10, list([[...uleb(code.length), ...code]])),
  ]);
}
