import { Worker } from 'node:worker_threads';
import {
  type BoundMemory,
  KERNEL_QUERIES,
  KERNEL_ROWS,
  kernelBytes,
  NEED_AT,
  QUERY_BYTES,
  REST_AT,
} from './bound-kernel.ts';
import { BOUND_DIMS, BOUND_SLACK, COORD_SCALE } from './principal-bound.ts';

/**
 * Rows of a pass's first kernel call: while a search has fewer than its k, every row is a
 * candidate, so the calls start small and double, and the k-th best soon prunes.
 */
const FIRST_STEP = 256;

/** One search of a pass, as the scan thread gets it. */
export interface ThreadSearch {
  query: Float32Array;
  /** The query in the bound's basis (see projectQuery). */
  coords: Float64Array;
  rest: number[];
  k: number;
  floor: number;
  /** 1 at each slot the search may return, when it is restricted. */
  allowed: Uint8Array | null;
}

/** A matrix's shared memory, as the scan thread reads it: registered once, then named by id. */
export interface ThreadArrays {
  bound: BoundMemory;
  /** The vectors, `dim` floats a slot, on a SharedArrayBuffer. */
  data: Float32Array;
  /** 1 at each slot that holds a vector, 0 at a hole, on a SharedArrayBuffer. */
  live: Uint8Array;
}

/** A pass over rows [0, count) of arrays the thread was given (`share`). */
export interface ThreadPass {
  arrays: number;
  dim: number;
  count: number;
  searches: ThreadSearch[];
}

/** A search's best slots and their cosines, best first. */
export interface ThreadFound {
  slots: number[];
  scores: number[];
}

/**
 * The scan thread: it runs each pass (the kernel's candidates, then their exact cosines and
 * the top k of each search) beside the event loop, which only sends the searches and maps
 * the slots it gets back to entries. One per process, shared by every workspace's matrix,
 * running one pass at a time; referenced only while a pass is out.
 */
export class ScanThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (found: ThreadFound[]) => void; reject: (error: Error) => void }>();
  #ids = 0;
  #stopped: Error | null = null;

  constructor() {
    const constants = {
      BOUND_DIMS,
      BOUND_SLACK,
      COORD_SCALE,
      KERNEL_QUERIES,
      KERNEL_ROWS,
      NEED_AT,
      QUERY_BYTES,
      REST_AT,
      FIRST_STEP,
    };
    this.#worker = new Worker(SCAN_THREAD_SOURCE, { eval: true, workerData: { bytes: kernelBytes(), constants } });
    this.#worker.unref();
    this.#worker.on('message', (reply: { id: number; found?: ThreadFound[]; error?: string }) => this.#answer(reply));
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', () => {
      if (thread === this) thread = null;
      this.#fail(new Error('the scan thread has stopped'));
    });
  }

  /**
   * Gives the thread a matrix's arrays, once (sending shared memory costs far more than a
   * pass's searches); passes then name them by the id returned.
   */
  share(arrays: ThreadArrays): number {
    const id = ++this.#ids;
    const { bound, data, live } = arrays;
    this.#worker.postMessage({ share: id, memory: bound.memory, offsets: bound.offsets, data, live });
    return id;
  }

  /** The thread lets go of arrays: after the passes sent before, which may still use them. */
  unshare(id: number): void {
    if (!this.#stopped) this.#worker.postMessage({ unshare: id });
  }

  /** Runs a pass; resolves with each search's best, in the order of the searches. */
  run(pass: ThreadPass): Promise<ThreadFound[]> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = ++this.#ids;
    return new Promise((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, ...pass });
    });
  }

  #answer(reply: { id: number; found?: ThreadFound[]; error?: string }): void {
    const pass = this.#pending.get(reply.id);
    if (!pass) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker.unref();
    if (reply.error !== undefined) pass.reject(new Error(`scan thread: ${reply.error}`));
    else pass.resolve(reply.found!);
  }

  #fail(error: Error): void {
    this.#stopped ??= error;
    for (const pass of this.#pending.values()) pass.reject(error);
    this.#pending.clear();
  }
}

let thread: ScanThread | null = null;

/** The process's scan thread, started on first use (and again if it ever stopped). */
export function scanThread(): ScanThread {
  thread ??= new ScanThread();
  return thread;
}

/**
 * The thread's code. Its cosine sums the products in the order a plain loop does (as
 * vector-index.ts's dotAt), so a score is the same to the last bit on either thread, and
 * its top k orders ties by slot as a scan in slot order does.
 */
const SCAN_THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { BOUND_DIMS, BOUND_SLACK, COORD_SCALE, KERNEL_QUERIES, KERNEL_ROWS, NEED_AT, QUERY_BYTES, REST_AT, FIRST_STEP } = workerData.constants;
const kernel = new WebAssembly.Module(workerData.bytes);

const shared = new Map();

parentPort.on('message', (m) => {
  if (m.share !== undefined) return share(m);
  if (m.unshare !== undefined) return shared.delete(m.unshare);
  let reply;
  try {
    reply = { id: m.id, found: pass(shared.get(m.arrays), m) };
  } catch (e) {
    reply = { id: m.id, error: String((e && e.stack) || e) };
  }
  parentPort.postMessage(reply);
});

function share({ share: id, memory, offsets, data, live }) {
  const { buffer } = memory;
  shared.set(id, {
    scan: new WebAssembly.Instance(kernel, { env: { memory } }).exports.scan,
    offsets,
    data,
    live,
    coords: new Int16Array(buffer, offsets.queries, (KERNEL_QUERIES * QUERY_BYTES) / 2),
    floats: new Float32Array(buffer, offsets.queries, (KERNEL_QUERIES * QUERY_BYTES) / 4),
    pairs: new Int32Array(buffer, offsets.pairs, KERNEL_ROWS * KERNEL_QUERIES * 2),
  });
}

function pass({ scan, offsets, data, live, coords, floats, pairs }, { dim, count, searches }) {
  const tops = searches.map((s, j) => {
    // Quantized as the rows are (principal-bound.ts's quantize).
    for (let e = 0; e < BOUND_DIMS; e++) {
      coords[(j * QUERY_BYTES) / 2 + e] = Math.max(-32767, Math.min(32767, Math.round(s.coords[e] * COORD_SCALE)));
    }
    floats.set(s.rest, (j * QUERY_BYTES + REST_AT) / 4);
    return new TopK(s.k);
  });
  for (let start = 0, step = FIRST_STEP; start < count; start += step, step = Math.min(2 * step, KERNEL_ROWS)) {
    const end = Math.min(count, start + step);
    for (let j = 0; j < searches.length; j++) {
      floats[(j * QUERY_BYTES + NEED_AT) / 4] = Math.max(searches[j].floor, tops[j].least) - BOUND_SLACK;
    }
    const n = scan(offsets.rest, offsets.queries, searches.length, start, end, offsets.pairs, ...offsets.stages);
    for (let i = 0; i < n; i++) {
      const slot = pairs[2 * i];
      const j = pairs[2 * i + 1];
      const s = searches[j];
      if (live[slot] === 0 || (s.allowed && s.allowed[slot] === 0)) continue;
      const score = dotAt(data, slot * dim, s.query, dim);
      if (score < s.floor) continue;
      tops[j].offer(slot, score);
    }
  }
  return tops.map((t) => t.found());
}

function dotAt(data, base, q, d) {
  let s = 0;
  let i = 0;
  for (let b = base; i + 4 <= d; i += 4, b += 4) {
    s += data[b] * q[i];
    s += data[b + 1] * q[i + 1];
    s += data[b + 2] * q[i + 2];
    s += data[b + 3] * q[i + 3];
  }
  for (; i < d; i++) s += data[base + i] * q[i];
  return s;
}

class TopK {
  constructor(k) {
    this.k = k;
    this.slots = [];
    this.scores = [];
  }
  get least() {
    return this.scores.length === this.k ? this.scores[this.k - 1] : -Infinity;
  }
  offer(slot, score) {
    const { slots, scores } = this;
    if (scores.length === this.k && score <= scores[scores.length - 1]) return;
    let i = scores.length;
    while (i > 0 && scores[i - 1] < score) i--;
    slots.splice(i, 0, slot);
    scores.splice(i, 0, score);
    if (scores.length > this.k) {
      slots.pop();
      scores.pop();
    }
  }
  found() {
    return { slots: this.slots, scores: this.scores };
  }
}
`;
