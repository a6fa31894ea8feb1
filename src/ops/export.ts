import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Row } from '@libsql/client';
import type { Progress } from './progress.ts';
import { type EdgeRecordOut, type EntryRecordOut, EXPORT_FORMAT, EXPORT_VERSION } from './records.ts';
import type { OpsWorkspace } from './workspace.ts';

export interface ExportReport {
  workspace: string;
  entries: number;
  edges: number;
}

/** Entries read per query: bounded memory whatever the workspace's size. */
const ENTRY_PAGE = 100;
const EDGE_PAGE = 1_000;

const iso = (ms: unknown) => new Date(Number(ms)).toISOString();
const isoOrNull = (ms: unknown) => (ms == null ? null : iso(ms));
const str = (v: unknown) => String(v);
const strOrNull = (v: unknown) => (v == null ? null : String(v));

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
  const write = async (record: object) => {
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

    let entriesWritten = 0;
    let after = -1;
    for (;;) {
      const rows = (
        await tx.execute({ sql: 'SELECT * FROM entries WHERE n > ? ORDER BY n LIMIT ?', args: [after, ENTRY_PAGE] })
      ).rows;
      const first = rows[0];
      const last = rows.at(-1);
      if (!first || !last) break;
      const range = [Number(first.n), Number(last.n)];
      const tags = groupBy(
        (
          await tx.execute({
            sql: `SELECT t.entry_id, t.tag FROM tags t JOIN entries e ON e.id = t.entry_id
                  WHERE e.n BETWEEN ? AND ? ORDER BY t.entry_id, t.tag`,
            args: range,
          })
        ).rows,
      );
      const revisions = groupBy(
        (
          await tx.execute({
            sql: `SELECT r.entry_id, r.content, r.op, r.at FROM revisions r JOIN entries e ON e.id = r.entry_id
                  WHERE e.n BETWEEN ? AND ? ORDER BY r.id`,
            args: range,
          })
        ).rows,
      );
      for (const row of rows) {
        const id = str(row.id);
        const record: EntryRecordOut = {
          type: 'entry',
          id,
          content: str(row.content),
          contentHash: str(row.content_hash),
          source: strOrNull(row.source),
          kind: str(row.kind) as EntryRecordOut['kind'],
          status: str(row.status) as EntryRecordOut['status'],
          volatility: str(row.volatility) as EntryRecordOut['volatility'],
          volatilitySource: str(row.volatility_source) as EntryRecordOut['volatilitySource'],
          importance: Number(row.importance),
          claimTag: str(row.claim_tag) as EntryRecordOut['claimTag'],
          evidenceRef: strOrNull(row.evidence_ref),
          recallCount: Number(row.recall_count),
          observedAt: isoOrNull(row.observed_at),
          createdAt: iso(row.created_at),
          updatedAt: iso(row.updated_at),
          tags: (tags.get(id) ?? []).map((t) => str(t.tag)),
          revisions: (revisions.get(id) ?? []).map((r) => ({
            content: str(r.content),
            op: str(r.op) as 'APPEND' | 'UPDATE',
            at: iso(r.at),
          })),
        };
        await write(record);
      }
      entriesWritten += rows.length;
      bar.increment(rows.length);
      after = range[1] ?? after;
    }
    bar.stop();

    let edgesWritten = 0;
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
      for (const row of rows) {
        const record: EdgeRecordOut = {
          type: 'edge',
          src: str(row.src),
          dst: str(row.dst),
          edgeType: str(row.type) as EdgeRecordOut['edgeType'],
          weight: Number(row.weight),
          provenance: str(row.provenance) as EdgeRecordOut['provenance'],
          metadata: row.metadata == null ? null : (JSON.parse(str(row.metadata)) as Record<string, unknown>),
          createdAt: iso(row.created_at),
          updatedAt: iso(row.updated_at),
        };
        await write(record);
      }
      edgesWritten += rows.length;
      afterRowid = Number(last.r);
    }

    await write({ type: 'end', entries: entriesWritten, edges: edgesWritten });
    return { workspace: ws.id, entries: entriesWritten, edges: edgesWritten };
  } finally {
    tx.close();
  }
}

function groupBy(rows: Row[]): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  for (const row of rows) {
    const id = str(row.entry_id);
    let list = out.get(id);
    if (!list) {
      list = [];
      out.set(id, list);
    }
    list.push(row);
  }
  return out;
}
