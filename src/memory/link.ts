import type { ResultSet, Row } from '@libsql/client';
import type { EdgeType, Provenance } from '../contract/enums.ts';
import { badInput, DomainError, notFound } from '../contract/errors.ts';
import { kindGateProblem } from '../contract/kind-gates.ts';
import { LIMITS } from '../contract/limits.ts';
import { edgeSnapshot, edgeToRow, entryFromRow } from '../db/mappers.ts';
import type { PlannedWrite } from '../db/planned-write.ts';
import type { EdgeRow, EntryRow } from '../db/schema.ts';
import { SUPERSEDES_WALK_MAX, supersedesWalk } from './supersession.ts';

export interface LinkInput {
  src: string;
  dst: string;
  type: EdgeType;
  weight?: number | null;
  provenance?: Provenance | null;
  metadata?: unknown;
}

const PROVENANCE_STRENGTH: Record<Provenance, number> = { EXPLICIT: 3, INFERRED: 2, SYSTEM: 1 };

/** The kind gates live in the contract, shared with the dashboard. */
export { kindGateProblem };

/** RELATES_TO is symmetric and stored once, with src < dst in string order. */
export function canonicalEnds(src: string, dst: string, type: EdgeType): [string, string] {
  return type === 'RELATES_TO' && dst < src ? [dst, src] : [src, dst];
}

/** Validates what needs no database: weight range, self-links, metadata size. */
export function checkLinkInput(input: LinkInput): void {
  const weight = input.weight ?? 1;
  if (!Number.isFinite(weight) || weight <= 0 || weight > 1) throw badInput('weight must be in (0, 1]', 'weight');
  if (input.src === input.dst) throw badInput('an entry cannot be linked to itself', 'dst');
  if (input.metadata != null && JSON.stringify(input.metadata).length > LIMITS.metadataMax) {
    throw badInput(`metadata is larger than ${LIMITS.metadataMax} characters of JSON`, 'metadata');
  }
}

/** A link's edge and both of its entries as the write left them. */
export interface Linked {
  edge: EdgeRow;
  source: EntryRow;
  target: EntryRow;
}

const ENTRY_BY_ID = 'SELECT * FROM entries WHERE id = ? LIMIT 1';
const EDGE_AT = 'SELECT * FROM edges WHERE src = ? AND dst = ? AND type = ? LIMIT 1';
export const INSERT_EDGE =
  'INSERT INTO edges (src, dst, type, weight, provenance, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';
const UPDATE_EDGE =
  'UPDATE edges SET weight = ?, provenance = ?, metadata = ?, updated_at = ? WHERE src = ? AND dst = ? AND type = ?';

/** The keys of a write that reads both ends and one edge (see PlannedWrite.keys). */
const edgeKeys = (src: string, dst: string, [a, b]: [string, string], type: EdgeType) => [
  `entry:${src}`,
  `entry:${dst}`,
  `edge:${a}|${b}|${type}`,
];

/** Both ends of an edge from a planned write's first two answers; NOT_FOUND names the first missing one. */
function endsFrom(input: { src: string; dst: string }, answers: readonly ResultSet[]): [EntryRow, EntryRow] {
  const [src, dst] = [answers[0]?.rows[0], answers[1]?.rows[0]];
  if (!src) throw notFound(input.src);
  if (!dst) throw notFound(input.dst);
  return [entryFromRow(src), entryFromRow(dst)];
}

/**
 * Links two entries of the workspace, enforcing the kind gates. Re-linking an existing
 * (src, dst, type) keeps the heavier weight and the stronger provenance and merges
 * metadata keys. SUPERSEDES also marks its target SUPERSEDED, and is refused with
 * SUPERSEDES_CYCLE when the target already supersedes the source, directly or through a
 * chain (supersession stays a forest, so every walk along it ends). A planned write: it
 * reads both ends, the edge and, for SUPERSEDES, the chain below the target, and decides
 * from them, so a hosted database answers it in the writer's two round trips.
 */
export function linkWrite(input: LinkInput): PlannedWrite<Linked> {
  checkLinkInput(input);
  const ends = canonicalEnds(input.src, input.dst, input.type);
  const supersedes = input.type === 'SUPERSEDES';
  return {
    // Two SUPERSEDES links never share a group: each one's walk must see the edge the other adds.
    keys: [...edgeKeys(input.src, input.dst, ends, input.type), ...(supersedes ? [SUPERSEDES_KEY] : [])],
    reads: [
      { sql: ENTRY_BY_ID, args: [input.src] },
      { sql: ENTRY_BY_ID, args: [input.dst] },
      { sql: EDGE_AT, args: [ends[0], ends[1], input.type] },
      ...(supersedes ? [supersedesWalk(input.src, input.dst)] : []),
    ],
    decide(plan, answers) {
      const [src, dst] = endsFrom(input, answers);
      const mismatch = kindGateProblem(input.type, src.kind, dst.kind);
      if (mismatch) throw new DomainError('EDGE_KIND_MISMATCH', mismatch);
      if (supersedes) refuseCycle(src.id, dst.id, answers[3]?.rows[0]);
      const oldRow = answers[2]?.rows[0];
      const old = oldRow ? edgeFromSql(oldRow) : null;
      const edge = mergedEdge(old, plan.now, {
        src: ends[0],
        dst: ends[1],
        type: input.type,
        weight: input.weight ?? 1,
        provenance: input.provenance ?? 'EXPLICIT',
        metadata: input.metadata,
      });
      if (old) {
        plan.run(UPDATE_EDGE, [edge.weight, edge.provenance, edge.metadata, edge.updatedAt, ...ends, input.type]);
      } else {
        plan.run(INSERT_EDGE, [...ends, input.type, edge.weight, edge.provenance, edge.metadata, plan.now, plan.now]);
      }
      let target = dst;
      if (supersedes && dst.status !== 'SUPERSEDED') {
        plan.run('UPDATE entries SET status = ?, updated_at = ? WHERE id = ?', ['SUPERSEDED', plan.now, dst.id]);
        target = { ...dst, status: 'SUPERSEDED', updatedAt: plan.now };
      }
      plan.emit({ type: 'LINKED', entryId: edge.src, edge: edgeSnapshot(edge) });
      // The edge's own ends: RELATES_TO is stored with its ends in order, whichever way it was asked.
      const byId = new Map([
        [src.id, src],
        [target.id, target],
      ]);
      return { edge, source: byId.get(edge.src)!, target: byId.get(edge.dst)! };
    },
  };
}

const SUPERSEDES_KEY = 'supersedes';

/** Throws SUPERSEDES_CYCLE when the walk below `dst` reached `src` (or could not finish). */
function refuseCycle(src: string, dst: string, walk: Row | undefined): void {
  if (Number(walk?.closes ?? 0) === 1) {
    throw new DomainError(
      'SUPERSEDES_CYCLE',
      `${dst} already supersedes ${src}, directly or through a chain; ${src} SUPERSEDES ${dst} would make a cycle ` +
        '(unlink an edge of that chain first)',
      { field: 'dst' },
    );
  }
  if (Number(walk?.reached ?? 0) > SUPERSEDES_WALK_MAX) {
    throw new DomainError(
      'SUPERSEDES_CYCLE',
      `${dst} supersedes more than ${SUPERSEDES_WALK_MAX} entries through its chain; a cycle through ${src} cannot be ruled out`,
      { field: 'dst' },
    );
  }
}

/**
 * The edge a link leaves: new, or the existing one with the heavier weight, the stronger
 * provenance and the merged metadata (which may not outgrow the bound a single link is held to).
 */
function mergedEdge(
  old: EdgeRow | null,
  now: number,
  e: { src: string; dst: string; type: EdgeType; weight: number; provenance: Provenance; metadata?: unknown },
): EdgeRow {
  if (!old) return edgeToRow({ ...e, createdAt: now, updatedAt: now });
  const metadata = mergeMetadata(old.metadata, e.metadata);
  if (metadata !== null && metadata.length > LIMITS.metadataMax) {
    throw badInput(`merged metadata would be larger than ${LIMITS.metadataMax} characters of JSON`, 'metadata');
  }
  return {
    ...old,
    weight: Math.max(old.weight, e.weight),
    provenance: PROVENANCE_STRENGTH[e.provenance] > PROVENANCE_STRENGTH[old.provenance] ? e.provenance : old.provenance,
    metadata,
    updatedAt: now,
  };
}

/** An edge row as SQL answers it (snake_case columns) in drizzle's shape. */
function edgeFromSql(r: Row): EdgeRow {
  return {
    src: String(r.src),
    dst: String(r.dst),
    type: r.type as EdgeType,
    weight: Number(r.weight),
    provenance: r.provenance as Provenance,
    metadata: r.metadata == null ? null : String(r.metadata),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Object metadata merges key by key (new keys win); anything else replaces, and null keeps the old. */
function mergeMetadata(old: string | null, next: unknown): string | null {
  if (next == null) return old;
  const prev: unknown = old ? JSON.parse(old) : null;
  if (isObject(prev) && isObject(next)) return JSON.stringify({ ...prev, ...next });
  return JSON.stringify(next);
}

/** What unlink did: the removed edge (null when there was none) and both entries as asked. */
export interface Unlinked {
  removed: EdgeRow | null;
  source: EntryRow;
  target: EntryRow;
}

/**
 * Removes the edge (either order for RELATES_TO); unknown endpoints are NOT_FOUND, a missing
 * edge between known entries removes nothing. Planned like linkWrite.
 */
export function unlinkWrite(input: { src: string; dst: string; type: EdgeType }): PlannedWrite<Unlinked> {
  const ends = canonicalEnds(input.src, input.dst, input.type);
  return {
    keys: edgeKeys(input.src, input.dst, ends, input.type),
    reads: [
      { sql: ENTRY_BY_ID, args: [input.src] },
      { sql: ENTRY_BY_ID, args: [input.dst] },
      { sql: EDGE_AT, args: [ends[0], ends[1], input.type] },
    ],
    decide(plan, answers) {
      const [source, target] = endsFrom(input, answers);
      const row = answers[2]?.rows[0];
      if (!row) return { removed: null, source, target };
      const removed = edgeFromSql(row);
      plan.run('DELETE FROM edges WHERE src = ? AND dst = ? AND type = ?', [...ends, input.type]);
      plan.emit({ type: 'UNLINKED', entryId: removed.src, edge: edgeSnapshot(removed) });
      return { removed, source, target };
    },
  };
}
