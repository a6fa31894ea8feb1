import { getTableColumns } from 'drizzle-orm';
import type { EdgeSnapshot, EventDraft, MemoryEventRecord } from '../contract/events.ts';
import { edgeRows, entryRows, revisionRows } from './rows.ts';
import { type EdgeRow, type EntryRow, type EventRow, entries, type RevisionRow } from './schema.ts';

/**
 * The one mapping of each table between its stored rows and the records the rest of the
 * code passes around. A row read by raw SQL (a libSQL Row, or `db.all`) is keyed by column
 * name and is decoded with the same column-list reader the loaders use (rows.ts).
 */

/** An entry as an insert writes it: every column but the rowid `n`, which SQLite assigns. */
export type NewEntryRow = Omit<EntryRow, 'n'>;

/** The columns an entry insert binds, in table order. */
export const ENTRY_INSERT_COLUMNS = Object.keys(getTableColumns(entries)).filter(
  (c): c is keyof NewEntryRow => c !== 'n',
);

/** An entries row keyed by column name, as `db.select().from(entries)` would return it. */
export const entryFromRow: (row: Record<string, unknown>) => EntryRow = entryRows.read;

/** The stored columns of an entry, and nothing else, from any object that holds them (an export record, say). */
export function entryToRow(entry: NewEntryRow): NewEntryRow {
  const row: Record<string, unknown> = {};
  for (const column of ENTRY_INSERT_COLUMNS) row[column] = entry[column];
  return row as NewEntryRow;
}

/** A revisions row keyed by column name. */
export const revisionFromRow: (row: Record<string, unknown>) => RevisionRow = revisionRows.read;

/** An edges row keyed by column name. */
export const edgeFromRow: (row: Record<string, unknown>) => EdgeRow = edgeRows.read;

/** An edge as reads, events and exports show it: metadata decoded from its JSON column. */
export function edgeSnapshot(edge: EdgeRow): EdgeSnapshot {
  return {
    src: edge.src,
    dst: edge.dst,
    type: edge.type,
    weight: edge.weight,
    provenance: edge.provenance,
    metadata: edge.metadata ? (JSON.parse(edge.metadata) as Record<string, unknown>) : null,
    createdAt: edge.createdAt,
    updatedAt: edge.updatedAt,
  };
}

/** The row that stores an edge; metadata may be any JSON value, and none is NULL. */
export function edgeToRow(edge: Omit<EdgeSnapshot, 'metadata'> & { metadata?: unknown }): EdgeRow {
  return {
    src: edge.src,
    dst: edge.dst,
    type: edge.type,
    weight: edge.weight,
    provenance: edge.provenance,
    metadata: edge.metadata == null ? null : JSON.stringify(edge.metadata),
    createdAt: edge.createdAt,
    updatedAt: edge.updatedAt,
  };
}

/** One row of the event log as the workspace's event record. */
export function eventFromRow(workspace: string, row: EventRow): MemoryEventRecord {
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

/** The row that logs an event drafted at `at`; SQLite assigns its seq. */
export function eventToRow(draft: EventDraft, at: number): Omit<EventRow, 'seq'> {
  return {
    type: draft.type,
    at,
    entryId: draft.entryId ?? null,
    outcome: draft.outcome ?? null,
    edge: draft.edge ? JSON.stringify(draft.edge) : null,
    data: draft.data ? JSON.stringify(draft.data) : null,
  };
}
