import { setImmediate as nextTurn } from 'node:timers/promises';
import type { BoundMemory } from './bound-kernel.ts';

/**
 * An upper bound on dot products that lets an exact scan skip most rows. With B an
 * orthonormal basis of a few directions, q·v = (Bq)·(Bv) + q⊥·v⊥ and |q⊥·v⊥| ≤ |q⊥||v⊥|
 * (Cauchy–Schwarz), so (Bq)·(Bv) + |q⊥||v⊥| bounds q·v from above whatever the basis. Taken
 * along the principal directions of a workspace's vectors, the bound of glove vectors at
 * 100k entries falls below the link cosine for a third of the rows after 8 directions, 65%
 * after 16, 93% after 32, 96.6% after 40 and 99.5% after 64 (0.13% reach it); only the
 * rest get the full product.
 *
 * The coordinates are kept as int16 (× COORD_SCALE), which halves what a scan reads: each
 * is off by at most 0.5 / COORD_SCALE, so over k directions (Bq)·(Bv) is off by at most
 * 2 · √k · 0.5 / COORD_SCALE (4.9e-4 at 64) plus float32 rounding (~1e-6). A row is skipped
 * only when its bound is below what it would need by more than SLACK, which covers both, so
 * no decision changes.
 */

/** Directions of the bound's subspace. */
export const BOUND_DIMS = 64;

/**
 * Where the bound is checked: after this many directions (multiples of 8, the last
 * BOUND_DIMS). Each check is a branch the processor mispredicts for the rows it cannot
 * foresee, which cost more than the products it saves: checked after 8, 16, 32 and 64
 * directions a search took 1.2 ms at 100k rows, after 16, 32 and 64 0.9 ms, after 40 and
 * 64 0.55 ms, after 64 alone 0.63 ms (three searches in a pass). Each stage's coordinates
 * are kept apart (see BoundMemory), so the second stage is read only for the rows that
 * pass the first (a single search at a cosine of 0.9: 0.42 ms instead of 0.55).
 */
export const BOUND_STAGES = [40, 64] as const;

/** Coordinates (at most 1 for unit vectors) are stored as round(c × this) in an int16. */
export const COORD_SCALE = 16_384;

/** How far below the cosine it needs a row's bound must be for the row to be skipped. */
export const BOUND_SLACK = 1e-3;

/** A coordinate as the bound keeps it. */
export const quantize = (c: number): number => Math.max(-32_767, Math.min(32_767, Math.round(c * COORD_SCALE)));

/** Rows sampled to find the principal directions. */
const SAMPLE_ROWS = 4_096;

/** Power-iteration steps per direction: the basis only has to be orthonormal to be right; this makes it good. */
const ITERATIONS = 40;

/**
 * The basis (BOUND_DIMS × dim, rows orthonormal) and, per slot, the row's coordinates in it
 * and its norm outside the first BOUND_STAGES[k] directions, in the kernel's memory.
 */
export interface PrincipalBound {
  basis: Float64Array;
  memory: BoundMemory;
  /** How many vectors the matrix held when the basis was chosen. */
  rows: number;
}

/**
 * The top principal directions of the rows `live` picks (uncentred: dot products, not
 * distances, are bounded), orthonormalized.
 */
export async function principalBasis(data: Float32Array, dim: number, slots: readonly number[]): Promise<Float64Array> {
  const step = Math.max(1, Math.floor(slots.length / SAMPLE_ROWS));
  const m = new Float64Array(dim * dim);
  for (let s = 0; s < slots.length; s += step) {
    const base = slots[s]! * dim;
    for (let i = 0; i < dim; i++) {
      const a = data[base + i]!;
      for (let j = i; j < dim; j++) m[i * dim + j]! += a * data[base + j]!;
    }
  }
  for (let i = 0; i < dim; i++) for (let j = 0; j < i; j++) m[i * dim + j] = m[j * dim + i]!;
  const basis = new Float64Array(BOUND_DIMS * dim);
  const u = new Float64Array(dim);
  const next = new Float64Array(dim);
  for (let e = 0; e < BOUND_DIMS; e++) {
    // ~1 ms a direction at 100 dimensions: other requests run in between.
    if (e % 8 === 7) await nextTurn();
    for (let i = 0; i < dim; i++) u[i] = 1 + ((i * 7919 + e * 104729) % 13) / 13;
    for (let iter = 0; iter < ITERATIONS; iter++) {
      for (let i = 0; i < dim; i++) {
        let s = 0;
        for (let j = 0; j < dim; j++) s += m[i * dim + j]! * u[j]!;
        next[i] = s;
      }
      u.set(next);
      orthonormalize(u, basis, e, dim);
    }
    basis.set(u, e * dim);
  }
  return basis;
}

/** Makes `u` orthogonal to the first `count` rows of `basis` (twice, for rounding) and unit length. */
function orthonormalize(u: Float64Array, basis: Float64Array, count: number, dim: number): void {
  for (let pass = 0; pass < 2; pass++) {
    for (let e = 0; e < count; e++) {
      let d = 0;
      for (let i = 0; i < dim; i++) d += u[i]! * basis[e * dim + i]!;
      for (let i = 0; i < dim; i++) u[i]! -= d * basis[e * dim + i]!;
    }
  }
  let n = 0;
  for (let i = 0; i < dim; i++) n += u[i]! * u[i]!;
  // A degenerate direction (the rows span fewer): any unit vector orthogonal to the rest will do.
  if (n < 1e-20) {
    u.fill(0);
    u[count % dim] = 1;
    if (count > 0) orthonormalize(u, basis, count, dim);
    return;
  }
  const inv = 1 / Math.sqrt(n);
  for (let i = 0; i < dim; i++) u[i]! *= inv;
}

/**
 * Writes the coordinates of `v` (at `base` in `data`) in the basis (quantized), and its
 * norms outside each stage, to the bound's memory at `slot`.
 */
export function projectRow(
  basis: Float64Array,
  data: Float32Array,
  base: number,
  dim: number,
  memory: BoundMemory,
  slot: number,
): void {
  const { coords, rest } = project(basis, data, base, dim);
  memory.setRow(slot, coords, rest);
}

/** The query's coordinates in the basis, and its norm outside each stage. */
export function projectQuery(basis: Float64Array, q: Float32Array): { coords: Float64Array; rest: number[] } {
  return project(basis, q, 0, q.length);
}

function project(basis: Float64Array, v: Float32Array, base: number, dim: number) {
  const coords = new Float64Array(BOUND_DIMS);
  let norm = 0;
  for (let i = 0; i < dim; i++) norm += v[base + i]! * v[base + i]!;
  // Four directions at a time: four sums that do not wait on each other (a rebuild projects every row).
  for (let e = 0; e < BOUND_DIMS; e += 4) {
    const [b0, b1, b2, b3] = [e * dim, (e + 1) * dim, (e + 2) * dim, (e + 3) * dim];
    let [p0, p1, p2, p3] = [0, 0, 0, 0];
    for (let i = 0; i < dim; i++) {
      const x = v[base + i]!;
      p0 += basis[b0 + i]! * x;
      p1 += basis[b1 + i]! * x;
      p2 += basis[b2 + i]! * x;
      p3 += basis[b3 + i]! * x;
    }
    coords[e] = p0;
    coords[e + 1] = p1;
    coords[e + 2] = p2;
    coords[e + 3] = p3;
  }
  let inside = 0;
  const rest: number[] = [];
  for (let e = 0, stage = 0; e < BOUND_DIMS; e++) {
    inside += coords[e]! * coords[e]!;
    if (e + 1 === BOUND_STAGES[stage]) {
      rest.push(Math.sqrt(Math.max(0, norm - inside)));
      stage++;
    }
  }
  return { coords, rest };
}
