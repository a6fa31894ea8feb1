import { asc, gt, max } from 'drizzle-orm';
import type { MemoryEventRecord } from '../contract/events.ts';
import type { Db } from '../db/client.ts';
import { eventFromRow } from '../db/mappers.ts';
import { events } from '../db/schema.ts';

/** The committed events after `sinceSeq`, oldest first. */
export async function readEventLog(
  db: Db,
  workspace: string,
  sinceSeq: number,
  limit: number,
): Promise<MemoryEventRecord[]> {
  const rows = await db.select().from(events).where(gt(events.seq, sinceSeq)).orderBy(asc(events.seq)).limit(limit);
  return rows.map((row) => eventFromRow(workspace, row));
}

/** The newest committed seq (0 for an empty log). */
export async function lastSeq(db: Db): Promise<number> {
  const [row] = await db.select({ seq: max(events.seq) }).from(events);
  return row?.seq ?? 0;
}
