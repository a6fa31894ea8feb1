import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Transaction } from '@libsql/client';
import { edgeFromRow, edgeSnapshot, entryFromRow, revisionFromRow } from '../db/mappers.ts';
import type { RevisionRow } from '../db/schema.ts';
import type { Progress } from './progress.ts';
import { EXPORT_FORMAT, EXPORT_VERSION, edgeRecordOf, entryRecordOf } from './records.ts';
import type { OpsWorkspace } from './workspace.ts';

export interface ExportReport {
  workspace: string;
  entries: number;
  edges: number;
}

/** Entries read per query: bounded memory whatever the workspace's size. */
const ENTRY_PAGE = 100;
const EDGE_PAGE = 1_000;

type Write = (record: object) => Promise<void>;
type Tx = Pick<Transaction, 'execute'>;

/**
 * Streams a workspace as JSON Lines (see records.ts) to `out`, in constant memory:
 * entries are read a page at a time by `n` with their tags and revisions, and every
 * write waits for the stream to drain. The whole export reads one snapshot (a read
 * transaction), so a server writing meanwhile cannot leave an edge pointing at an
 * entry that the file lacks. The stream is left open.
 */
export async function exportWorkspace(
  ws: OpsWorkspace,
  out: Writable,
  progress: (total: number) => Progress,
): Promise<ExportReport> {
  const write: Write = async (record) => {
    if (out.destroyed) throw out.errored ?? new Error('the output stream is closed');
    if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
  };
  const tx = await ws.client.transaction('deferred');
  try {
    const total = Number((await tx.execute('SELECT count(*) FROM entries')).rows[0]?.[0] ?? 0);
    const bar = progress(total);
    await write({
      type: 'header',
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      workspace: ws.id,
      exportedAt: new Date().toISOString(),
    });
    const entries = await exportEntries(tx, write, bar);
    bar.stop();
    const edges = await exportEdges(tx, write);
    await write({ type: 'end', entries, edges });
    return { workspace: ws.id, entries, edges };
  } finally {
    tx.close();
  }
}

/** Writes every entry, a page at a time in `n` order; returns how many. */
async function exportEntries(tx: Tx, write: Write, bar: Progress): Promise<number> {
  let written = 0;
  let after = -1;
  for (;;) {
    const rows = (
      await tx.execute({ sql: 'SELECT * FROM entries WHERE n > ? ORDER BY n LIMIT ?', args: [after, ENTRY_PAGE] })
    ).rows.map(entryFromRow);
    const first = rows[0];
    const last = rows.at(-1);
    if (!first || !last) break;
    const { tags, revisions } = await entryPageExtras(tx, first.n, last.n);
    for (const entry of rows) {
      await write(entryRecordOf(entry, tags.get(entry.id) ?? [], revisions.get(entry.id) ?? []));
    }
    written += rows.length;
    bar.increment(rows.length);
    after = last.n;
  }
  return written;
}

/** The tags (sorted) and revisions (oldest first) of the entries whose `n` lies in [from, to]. */
async function entryPageExtras(
  tx: Tx,
  from: number,
  to: number,
): Promise<{ tags: Map<string, string[]>; revisions: Map<string, RevisionRow[]> }> {
  const tagRows = await tx.execute({
    sql: `SELECT t.entry_id, t.tag FROM tags t JOIN entries e ON e.id = t.entry_id
          WHERE e.n BETWEEN ? AND ? ORDER BY t.entry_id, t.tag`,
    args: [from, to],
  });
  const revisionRows = await tx.execute({
    sql: `SELECT r.* FROM revisions r JOIN entries e ON e.id = r.entry_id
          WHERE e.n BETWEEN ? AND ? ORDER BY r.id`,
    args: [from, to],
  });
  return {
    tags: groupBy(
      tagRows.rows,
      (t) => String(t.entry_id),
      (t) => String(t.tag),
    ),
    revisions: groupBy(
      revisionRows.rows.map(revisionFromRow),
      (r) => r.entryId,
      (r) => r,
    ),
  };
}

/** Writes every edge, a page at a time in rowid order; returns how many. */
async function exportEdges(tx: Tx, write: Write): Promise<number> {
  let written = 0;
  let afterRowid = -1;
  for (;;) {
    const rows = (
      await tx.execute({
        sql: 'SELECT rowid AS r, * FROM edges WHERE rowid > ? ORDER BY rowid LIMIT ?',
        args: [afterRowid, EDGE_PAGE],
      })
    ).rows;
    const last = rows.at(-1);
    if (!last) break;
    for (const row of rows) await write(edgeRecordOf(edgeSnapshot(edgeFromRow(row))));
    written += rows.length;
    afterRowid = Number(last.r);
  }
  return written;
}

function groupBy<T, V>(items: readonly T[], keyOf: (item: T) => string, pick: (item: T) => V): Map<string, V[]> {
  const out = new Map<string, V[]>();
  for (const item of items) {
    const key = keyOf(item);
    let list = out.get(key);
    if (!list) {
      list = [];
      out.set(key, list);
    }
    list.push(pick(item));
  }
  return out;
}
