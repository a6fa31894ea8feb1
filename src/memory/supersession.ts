import type { InStatement } from '@libsql/client';

/**
 * Supersession is a forest: following SUPERSEDES edges (newer → older) from any entry must
 * end. `link` refuses the edge that would close a cycle, import refuses a file holding one,
 * and `check --fix` breaks those that older data holds. Everything here is bounded and
 * terminates whatever the edges are.
 */

/**
 * How many entries the walk from a new edge's target may visit. A chain longer than this
 * cannot be told apart from a cycle within one write; the link is refused with a message
 * that says so (no write the API offers builds such a chain from one entry's older versions).
 */
export const SUPERSEDES_WALK_MAX = 100_000;

/**
 * The read that tells whether `src` SUPERSEDES `dst` would close a cycle: the entries
 * `dst` supersedes, directly or through a chain, up to SUPERSEDES_WALK_MAX of them (UNION
 * drops ids already reached, so a cycle already stored ends the walk too). Answers one row:
 * `reached` (how many, capped at the bound + 1) and `closes` (1 when `src` is among them).
 */
export function supersedesWalk(src: string, dst: string): InStatement {
  return {
    sql: `WITH RECURSIVE older(id) AS (
        SELECT ? UNION
        SELECT e.dst FROM edges e JOIN older o ON e.src = o.id WHERE e.type = 'SUPERSEDES'
        LIMIT ${SUPERSEDES_WALK_MAX + 1})
      SELECT count(*) AS reached, coalesce(max(id = ?), 0) AS closes FROM older`,
    args: [dst, src],
  };
}

export interface SupersedesEdge {
  src: string;
  dst: string;
}

/**
 * The strongly connected components of the graph the edges make: each node's component
 * number. An edge whose ends share a component lies on a cycle; a node alone in its
 * component without a self-edge lies on none. Tarjan's algorithm without recursion, so a
 * chain of any length runs in linear time and constant stack.
 *
 * @example
 * components([{ src: 'a', dst: 'b' }, { src: 'b', dst: 'a' }, { src: 'b', dst: 'c' }])
 * // Map { 'c' => 0, 'a' => 1, 'b' => 1 }
 */
export function components(edges: readonly SupersedesEdge[]): Map<string, number> {
  // Ids become numbers once; the walk then runs over typed arrays (adjacency in CSR form).
  const number = new Map<string, number>();
  const ids: string[] = [];
  const idOf = (id: string) => {
    let k = number.get(id);
    if (k === undefined) {
      k = ids.length;
      number.set(id, k);
      ids.push(id);
    }
    return k;
  };
  const from = new Int32Array(edges.length);
  const to = new Int32Array(edges.length);
  edges.forEach((e, i) => {
    from[i] = idOf(e.src);
    to[i] = idOf(e.dst);
  });
  const n = ids.length;
  const start = new Int32Array(n + 1);
  for (const f of from) start[f + 1]!++;
  for (let v = 0; v < n; v++) start[v + 1]! += start[v]!;
  const succ = new Int32Array(edges.length);
  const fill = start.slice(0, n);
  for (let i = 0; i < edges.length; i++) succ[fill[from[i]!]!++] = to[i]!;

  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const at = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack = new Int32Array(n);
  const frames = new Int32Array(n);
  const component = new Int32Array(n);
  let sp = 0;
  let counter = 0;
  let next = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    let depth = 0;
    const enter = (v: number) => {
      index[v] = low[v] = counter++;
      at[v] = start[v]!;
      stack[sp++] = v;
      onStack[v] = 1;
      frames[depth++] = v;
    };
    enter(root);
    while (depth > 0) {
      const v = frames[depth - 1]!;
      if (at[v]! < start[v + 1]!) {
        const w = succ[at[v]!++]!;
        if (index[w] === -1) enter(w);
        else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      depth--;
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack[--sp]!;
          onStack[w] = 0;
          component[w] = next;
        } while (w !== v);
        next++;
      }
      if (depth > 0) {
        const parent = frames[depth - 1]!;
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
    }
  }
  const out = new Map<string, number>();
  for (const [k, id] of ids.entries()) out.set(id, component[k]!);
  return out;
}

/**
 * The edges that lie on a cycle of the graph all of `edges` make, in their order.
 *
 * @example
 * edgesOnCycles([{ src: 'a', dst: 'b' }, { src: 'b', dst: 'a' }, { src: 'b', dst: 'c' }])
 * // [{ src: 'a', dst: 'b' }, { src: 'b', dst: 'a' }]
 */
export function edgesOnCycles<E extends SupersedesEdge>(edges: readonly E[]): E[] {
  const component = components(edges);
  return edges.filter((e) => component.get(e.src) === component.get(e.dst));
}

export interface DatedEdge extends SupersedesEdge {
  createdAt: number;
}

/** One tangle of supersession cycles and the edges whose removal breaks all of them. */
export interface CycleBreak<E extends DatedEdge> {
  /** The entries the cycles run through, sorted. */
  entries: string[];
  /** Its newest edges, the fewest taken newest first such that what is left has no cycle. */
  drop: E[];
}

/**
 * How to make the edges a forest again by dropping newest edges: within each tangle of
 * cycles (a strongly connected component), the edges are kept oldest first, and an edge is
 * dropped when the ones kept before it already lead from its target back to its source. A
 * single cycle loses exactly its newest edge. Edges on no cycle are never dropped.
 *
 * @example
 * cycleBreaks([{ src: 'a', dst: 'b', createdAt: 1 }, { src: 'b', dst: 'c', createdAt: 2 }, { src: 'c', dst: 'a', createdAt: 3 }])
 * // [{ entries: ['a', 'b', 'c'], drop: [{ src: 'c', dst: 'a', createdAt: 3 }] }]
 */
export function cycleBreaks<E extends DatedEdge>(edges: readonly E[]): CycleBreak<E>[] {
  const component = components(edges);
  const tangles = new Map<number, E[]>();
  for (const e of edges) {
    const c = component.get(e.src)!;
    if (c !== component.get(e.dst)) continue;
    const list = tangles.get(c);
    if (list) list.push(e);
    else tangles.set(c, [e]);
  }
  const breaks: CycleBreak<E>[] = [];
  for (const tangle of tangles.values()) {
    tangle.sort((a, b) => a.createdAt - b.createdAt || (a.src + a.dst < b.src + b.dst ? -1 : 1));
    const kept = new Map<string, string[]>();
    const drop: E[] = [];
    for (const e of tangle) {
      if (reaches(kept, e.dst, e.src)) {
        drop.push(e);
        continue;
      }
      const list = kept.get(e.src);
      if (list) list.push(e.dst);
      else kept.set(e.src, [e.dst]);
    }
    const entries = new Set<string>();
    for (const e of tangle) entries.add(e.src).add(e.dst);
    breaks.push({ entries: [...entries].sort(), drop: drop.reverse() });
  }
  return breaks;
}

/** Whether `to` can be reached from `from` along `out` (a visited set bounds the walk). */
function reaches(out: Map<string, string[]>, from: string, to: string): boolean {
  const seen = new Set([from]);
  const todo = [from];
  while (todo.length > 0) {
    const node = todo.pop()!;
    if (node === to) return true;
    for (const next of out.get(node) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        todo.push(next);
      }
    }
  }
  return false;
}
