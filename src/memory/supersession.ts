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
  const out = new Map<string, string[]>();
  for (const e of edges) {
    const list = out.get(e.src);
    if (list) list.push(e.dst);
    else out.set(e.src, [e.dst]);
    if (!out.has(e.dst)) out.set(e.dst, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const component = new Map<string, number>();
  let counter = 0;
  let next = 0;
  for (const root of out.keys()) {
    if (index.has(root)) continue;
    // Each frame: a node and how many of its successors it has looked at.
    const frames: { node: string; at: number }[] = [{ node: root, at: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const succ = out.get(frame.node)!;
      if (frame.at < succ.length) {
        const w = succ[frame.at++]!;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          frames.push({ node: w, at: 0 });
        } else if (onStack.has(w)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(w)!));
        }
        continue;
      }
      frames.pop();
      const v = frame.node;
      if (low.get(v) === index.get(v)) {
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.set(w, next);
        } while (w !== v);
        next++;
      }
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(v)!));
    }
  }
  return component;
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
