import { sql } from 'drizzle-orm';
import { SEMANTIC_CAPTURE } from '../../contract/policy.ts';
import type { Db } from '../../db/client.ts';
import { jsonList } from '../../db/rows.ts';
import type { EdgeRow } from '../../db/schema.ts';
import type { Writer } from '../../db/writer.ts';
import { canonicalEnds, linkWrite, upsertEdge } from '../link.ts';
import type { VectorMatch } from './vector-index.ts';

/** A cosine as an edge weight: within (0, 1] whatever float rounding gave. */
const weightOf = (cosine: number) => Math.min(1, Math.max(Number.EPSILON, cosine));

/** Which of `ids` still exist, with their status (a look-alike may have been forgotten since the scan). */
export async function existingStatuses(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.all<{ id: string; status: string }>(
    sql`SELECT id, status FROM entries WHERE id IN ${jsonList(ids)}`,
  );
  return new Map(rows.map((r) => [r.id, r.status]));
}

/**
 * Links a new entry to its closest look-alikes inside the capture's own write: RELATES_TO,
 * INFERRED, weight = cosine, at most SEMANTIC_CAPTURE.linksMax. An existing edge keeps its
 * stronger provenance and heavier weight (the link rules). Returns the edges.
 */
export async function linkInCapture(
  db: Db,
  now: number,
  entryId: string,
  near: readonly VectorMatch[],
): Promise<EdgeRow[]> {
  const candidates = near.filter((m) => m.id !== entryId && m.cosine >= SEMANTIC_CAPTURE.link);
  const alive = await existingStatuses(
    db,
    candidates.map((m) => m.id),
  );
  const out: EdgeRow[] = [];
  for (const m of candidates.filter((c) => alive.has(c.id)).slice(0, SEMANTIC_CAPTURE.linksMax)) {
    const [src, dst] = canonicalEnds(entryId, m.id, 'RELATES_TO');
    out.push(
      await upsertEdge(db, now, {
        src,
        dst,
        type: 'RELATES_TO',
        weight: weightOf(m.cosine),
        provenance: 'INFERRED',
      }),
    );
  }
  return out;
}

/**
 * The same links made after the fact (a network model's vectors come after commit): each
 * link its own write with its own LINKED event. An end forgotten meanwhile is skipped.
 */
export async function autoLink(
  writer: Pick<Writer, 'run'>,
  entryId: string,
  near: readonly VectorMatch[],
): Promise<void> {
  for (const m of near.slice(0, SEMANTIC_CAPTURE.linksMax)) {
    try {
      await writer.run(
        linkWrite({ src: entryId, dst: m.id, type: 'RELATES_TO', weight: weightOf(m.cosine), provenance: 'INFERRED' }),
      );
    } catch (error) {
      if ((error as { code?: string }).code !== 'NOT_FOUND') throw error;
    }
  }
}
