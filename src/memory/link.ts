import { and, eq } from 'drizzle-orm';
import type { EdgeType, EntryKind, Provenance } from '../contract/enums.ts';
import { badInput, DomainError } from '../contract/errors.ts';
import { LIMITS } from '../contract/limits.ts';
import type { Db } from '../db/client.ts';
import { edgeSnapshot, edgeToRow } from '../db/mappers.ts';
import { type EdgeRow, edges, entries } from '../db/schema.ts';
import type { WriteScope } from '../db/writer.ts';
import { requireEntry } from './queries.ts';

export interface LinkInput {
  src: string;
  dst: string;
  type: EdgeType;
  weight?: number | null;
  provenance?: Provenance | null;
  metadata?: unknown;
}

const PROVENANCE_STRENGTH: Record<Provenance, number> = { EXPLICIT: 3, INFERRED: 2, SYSTEM: 1 };

/** Which kinds each edge type accepts at its ends (CONTRACT §5); absent means any kind. */
const KIND_GATES: Partial<Record<EdgeType, { src?: EntryKind; dst?: EntryKind }>> = {
  DECIDED: { src: 'EPISODIC' },
  FOLLOWS: { src: 'EPISODIC', dst: 'EPISODIC' },
  ABOUT_PERSON: { dst: 'PERSON' },
  PART_OF_PROJECT: { dst: 'PROJECT' },
  DOCUMENT_OF: { src: 'DOCUMENT' },
};

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

/**
 * Links two entries of the workspace, enforcing the kind gates. Re-linking an existing
 * (src, dst, type) keeps the heavier weight and the stronger provenance and merges
 * metadata keys. SUPERSEDES also marks its target SUPERSEDED.
 */
export async function linkEntries(scope: WriteScope, input: LinkInput): Promise<EdgeRow> {
  checkLinkInput(input);
  const { db, now } = scope;
  const src = await requireEntry(db, input.src);
  const dst = await requireEntry(db, input.dst);
  const gate = KIND_GATES[input.type];
  if (gate?.src && src.kind !== gate.src) {
    throw new DomainError('EDGE_KIND_MISMATCH', `${input.type} needs a ${gate.src} source, got ${src.kind}`);
  }
  if (gate?.dst && dst.kind !== gate.dst) {
    throw new DomainError('EDGE_KIND_MISMATCH', `${input.type} needs a ${gate.dst} target, got ${dst.kind}`);
  }
  if (input.type === 'SUPERSEDES') await refuseMutualSupersedes(db, src.id, dst.id);
  const [a, b] = canonicalEnds(src.id, dst.id, input.type);
  const edge = await upsertEdge(db, now, {
    src: a,
    dst: b,
    type: input.type,
    weight: input.weight ?? 1,
    provenance: input.provenance ?? 'EXPLICIT',
    metadata: input.metadata,
  });
  if (input.type === 'SUPERSEDES' && dst.status !== 'SUPERSEDED') {
    await db.update(entries).set({ status: 'SUPERSEDED', updatedAt: now }).where(eq(entries.id, dst.id));
  }
  await scope.emit({ type: 'LINKED', entryId: edge.src, edge: edgeSnapshot(edge) });
  return edge;
}

/**
 * Two entries that supersede each other leave neither current: each would mark the other
 * SUPERSEDED, and "the newest version" would have no answer.
 */
async function refuseMutualSupersedes(db: Db, src: string, dst: string): Promise<void> {
  const [reverse] = await db
    .select({ src: edges.src })
    .from(edges)
    .where(and(eq(edges.src, dst), eq(edges.dst, src), eq(edges.type, 'SUPERSEDES')))
    .limit(1);
  if (reverse) {
    throw badInput(
      `${dst} already supersedes ${src}; two entries cannot supersede each other (unlink that edge first)`,
      'dst',
    );
  }
}

/** Inserts an edge or strengthens the existing one; endpoints must already be canonical. */
export async function upsertEdge(
  db: Db,
  now: number,
  e: { src: string; dst: string; type: EdgeType; weight: number; provenance: Provenance; metadata?: unknown },
): Promise<EdgeRow> {
  const [old] = await db
    .select()
    .from(edges)
    .where(and(eq(edges.src, e.src), eq(edges.dst, e.dst), eq(edges.type, e.type)))
    .limit(1);
  if (!old) {
    const [row] = await db
      .insert(edges)
      .values(edgeToRow({ ...e, createdAt: now, updatedAt: now }))
      .returning();
    if (!row) throw new Error('edge insert returned no row');
    return row;
  }
  const oldProv = old.provenance;
  const metadata = mergeMetadata(old.metadata, e.metadata);
  // Merging keys could grow an edge's metadata past the bound that a single link is held to.
  if (metadata !== null && metadata.length > LIMITS.metadataMax) {
    throw badInput(`merged metadata would be larger than ${LIMITS.metadataMax} characters of JSON`, 'metadata');
  }
  const [row] = await db
    .update(edges)
    .set({
      weight: Math.max(old.weight, e.weight),
      provenance: PROVENANCE_STRENGTH[e.provenance] > PROVENANCE_STRENGTH[oldProv] ? e.provenance : oldProv,
      metadata,
      updatedAt: now,
    })
    .where(and(eq(edges.src, e.src), eq(edges.dst, e.dst), eq(edges.type, e.type)))
    .returning();
  if (!row) throw new Error('edge update returned no row');
  return row;
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

/**
 * Removes the edge (either order for RELATES_TO). True when an edge was removed;
 * unknown endpoints are NOT_FOUND, a missing edge between known entries is false.
 */
export async function unlinkEntries(
  scope: WriteScope,
  input: { src: string; dst: string; type: EdgeType },
): Promise<EdgeRow | null> {
  const { db } = scope;
  await requireEntry(db, input.src);
  await requireEntry(db, input.dst);
  const [a, b] = canonicalEnds(input.src, input.dst, input.type);
  const [removed] = await db
    .delete(edges)
    .where(and(eq(edges.src, a), eq(edges.dst, b), eq(edges.type, input.type)))
    .returning();
  if (!removed) return null;
  await scope.emit({ type: 'UNLINKED', entryId: removed.src, edge: edgeSnapshot(removed) });
  return removed;
}
