import { asc, gt, max } from 'drizzle-orm';
import type { EdgeSnapshot, MemoryEventRecord } from '../contract/events.ts';
import type { Db } from '../db/client.ts';
import { type EventRow, events } from '../db/schema.ts';

export function toEventRecord(workspace: string, row: EventRow): MemoryEventRecord {
  return {
    workspace,
    seq: row.seq,
    type: row.type,
    at: row.at,
    entryId: row.entryId,
    outcome: row.outcome,
    edge: row.edge ? (JSON.parse(row.edge) as EdgeSnapshot) : null,
    data: row.data ? (JSON.parse(row.data) as Record<string, unknown>) : null,
  };
}

/** The committed events after `sinceSeq`, oldest first. */
export async function readEventLog(
  db: Db,
  workspace: string,
  sinceSeq: number,
  limit: number,
): Promise<MemoryEventRecord[]> {
  const rows = await db.select().from(events).where(gt(events.seq, sinceSeq)).orderBy(asc(events.seq)).limit(limit);
  return rows.map((row) => toEventRecord(workspace, row));
}

/** The newest committed seq (0 for an empty log). */
export async function lastSeq(db: Db): Promise<number> {
  const [row] = await db.select({ seq: max(events.seq) }).from(events);
  return row?.seq ?? 0;
}
