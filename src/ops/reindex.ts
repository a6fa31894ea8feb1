import { sql } from 'drizzle-orm';
import { IMPACT_INDEX, type ImpactBuildReport, type ImpactShape, rebuildImpactIndex } from '../db/impact-index.ts';
import { REBUILD_COUNTS } from '../db/row-counts.ts';
import { auditLog } from '../db/schema.ts';
import type { OpsWorkspace } from './workspace.ts';

export interface ReindexReport {
  workspace: string;
  /** Documents in the rebuilt index (one per entry). */
  documents: number;
  /** The impact index rebuilt with it (frequent terms, postings in their heads). */
  impact: ImpactBuildReport;
  ms: number;
}

/**
 * Rebuilds the full-text index from the entries table, the impact index from it (choosing
 * the frequent terms afresh and requantizing their weights against today's average length),
 * each entry's list of heaviest edges from the edges table, and the counts kept for stats
 * and tags (db/row-counts.ts), in one write (all derived data, so no event is emitted; an
 * audit row records the run). Writes of a running server wait for it, so on
 * a very large workspace run it in a quiet moment.
 */
export async function reindexWorkspace(
  ws: OpsWorkspace,
  actor: string,
  shape: ImpactShape = IMPACT_INDEX,
): Promise<ReindexReport> {
  const started = performance.now();
  const { documents, impact } = await ws.writer.run(async ({ db, now }) => {
    await db.run(sql`INSERT INTO entries_fts(entries_fts) VALUES ('rebuild')`);
    const impact = await rebuildImpactIndex(db, shape);
    await db.run(sql`DELETE FROM entry_neighbours`);
    await db.run(sql`INSERT INTO entry_neighbours (entry_id, top)
      SELECT entry_id, top FROM entry_neighbour_lists WHERE top <> '[]'`);
    for (const statement of REBUILD_COUNTS) await db.run(sql.raw(statement));
    const [row] = await db.all<{ n: number }>(sql`SELECT count(*) AS n FROM entries_fts_docsize`);
    const n = Number(row?.n ?? 0);
    await db
      .insert(auditLog)
      .values({ at: now, actor, action: 'reindex', details: JSON.stringify({ documents: n, impact }) });
    return { documents: n, impact };
  });
  return { workspace: ws.id, documents, impact, ms: Math.round(performance.now() - started) };
}
