import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { inArray } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { auditLog, edges, entries, revisions, tags } from '../db/schema.ts';
import { canonicalEnds } from '../memory/link.ts';
import { contentHash, normalizeTags } from '../memory/model.ts';
import type { Progress } from './progress.ts';
import { type EdgeRecord, type EntryRecord, EXPORT_FORMAT, type ExportRecord, exportRecord } from './records.ts';
import { OpsError, type OpsWorkspace } from './workspace.ts';

export interface ImportReport {
  workspace: string;
  lines: number;
  entries: { imported: number; skipped: number };
  tags: number;
  revisions: number;
  edges: { imported: number; skipped: number; missingEndpoint: number };
  /** False when the file had no end record (a cut-off export?); counts were not cross-checked. */
  complete: boolean;
}

/** Where an import reads from: a file (validated in full before anything is written) or a stream. */
export type ImportSource = { file: string } | { stream: Readable };

/** Entries per write transaction; also capped by content size so a batch stays short. */
const ENTRY_BATCH = 250;
const ENTRY_BATCH_CHARS = 8_000_000;
const EDGE_BATCH = 1_000;
/** Rows per multi-row INSERT: the widest table (entries, 15 columns) stays far below SQLite's 32,766 parameters. */
const ROWS_PER_INSERT = 200;
const MAX_REPORTED_ERRORS = 10;

/**
 * Imports a JSON Lines export (records.ts) into a workspace, keeping ids and timestamps.
 * Idempotent: an entry whose id exists is skipped whole (the workspace's copy wins, its
 * tags and revisions untouched); revisions come only with new entries; an edge is
 * inserted unless the same (src, dst, type) exists. A second import changes nothing.
 *
 * Writes go in batches, each one transaction with multi-row inserts. An import writes no
 * events: the event log records API writes, and replaying thousands of CAPTURED events
 * at subscribers for a restore would be noise; one audit row records the run instead.
 * A file is validated in full first, so a bad line aborts before anything is written.
 */
export async function importWorkspace(
  ws: OpsWorkspace,
  source: ImportSource,
  opts: { actor: string; progress: (total: number) => Progress },
): Promise<ImportReport> {
  let total = 0;
  if ('file' in source) total = await validateFile(source.file);
  const bar = opts.progress(total);
  const report: ImportReport = {
    workspace: ws.id,
    lines: 0,
    entries: { imported: 0, skipped: 0 },
    tags: 0,
    revisions: 0,
    edges: { imported: 0, skipped: 0, missingEndpoint: 0 },
    complete: false,
  };
  let end: { entries: number; edges: number } | null = null;
  let entryBatch: EntryRecord[] = [];
  let entryChars = 0;
  let edgeBatch: EdgeRecord[] = [];

  const flushEntries = async () => {
    if (entryBatch.length === 0) return;
    const batch = entryBatch;
    entryBatch = [];
    entryChars = 0;
    const r = await ws.writer.run(({ db }) => insertEntries(db, batch));
    report.entries.imported += r.imported;
    report.entries.skipped += batch.length - r.imported;
    report.tags += r.tags;
    report.revisions += r.revisions;
  };
  const flushEdges = async () => {
    if (edgeBatch.length === 0) return;
    const batch = edgeBatch;
    edgeBatch = [];
    const r = await ws.writer.run(({ db }) => insertEdges(db, batch));
    report.edges.imported += r.imported;
    report.edges.missingEndpoint += r.missingEndpoint;
    report.edges.skipped += batch.length - r.imported - r.missingEndpoint;
  };

  const input = 'file' in source ? createReadStream(source.file) : source.stream;
  let lineNo = 0;
  for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    lineNo++;
    bar.increment();
    if (line.trim() === '') continue;
    report.lines++;
    const record = parseLine(line, lineNo);
    if (record.type === 'entry') {
      entryBatch.push(record);
      entryChars += record.content.length + record.revisions.reduce((n, r) => n + r.content.length, 0);
      if (entryBatch.length >= ENTRY_BATCH || entryChars >= ENTRY_BATCH_CHARS) await flushEntries();
    } else if (record.type === 'edge') {
      // Edges need their entries written first.
      await flushEntries();
      edgeBatch.push(record);
      if (edgeBatch.length >= EDGE_BATCH) await flushEdges();
    } else if (record.type === 'end') {
      end = { entries: record.entries, edges: record.edges };
    }
  }
  await flushEntries();
  await flushEdges();
  bar.stop();

  const seenEntries = report.entries.imported + report.entries.skipped;
  const seenEdges = report.edges.imported + report.edges.skipped + report.edges.missingEndpoint;
  report.complete = end !== null;
  await ws.writer.run(async ({ db, now }) => {
    await db.insert(auditLog).values({ at: now, actor: opts.actor, action: 'import', details: JSON.stringify(report) });
  });
  if (end && (end.entries !== seenEntries || end.edges !== seenEdges)) {
    throw new OpsError(
      `the file's end record promises ${end.entries} entries and ${end.edges} edges, but it holds ${seenEntries} and ${seenEdges}`,
    );
  }
  return report;
}

function parseLine(line: string, lineNo: number): ExportRecord {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw new OpsError(`line ${lineNo}: not valid JSON`);
  }
  const parsed = exportRecord.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    const kind = (json as { type?: unknown })?.type;
    throw new OpsError(
      `line ${lineNo}: invalid ${typeof kind === 'string' ? `${kind} ` : ''}record: ${where}${issue?.message ?? 'invalid'}` +
        (kind === 'header' ? ` (expected a ${EXPORT_FORMAT} file)` : ''),
    );
  }
  return parsed.data;
}

/** Reads the whole file once, so that a bad line is reported before anything is written; returns its line count. */
async function validateFile(file: string): Promise<number> {
  const errors: string[] = [];
  let lineNo = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) {
    lineNo++;
    if (line.trim() === '') continue;
    try {
      parseLine(line, lineNo);
    } catch (error) {
      if (errors.length < MAX_REPORTED_ERRORS) errors.push(error instanceof Error ? error.message : String(error));
      else break;
    }
  }
  if (errors.length > 0)
    throw new OpsError(`${file} is not a valid export; nothing was imported:\n  ${errors.join('\n  ')}`);
  return lineNo;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

async function existingIds(db: Db, ids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const chunk of chunks([...new Set(ids)], 500)) {
    for (const row of await db.select({ id: entries.id }).from(entries).where(inArray(entries.id, chunk))) {
      found.add(row.id);
    }
  }
  return found;
}

async function insertEntries(
  db: Db,
  batch: readonly EntryRecord[],
): Promise<{ imported: number; tags: number; revisions: number }> {
  const existing = await existingIds(
    db,
    batch.map((e) => e.id),
  );
  const fresh: EntryRecord[] = [];
  for (const e of batch) {
    if (existing.has(e.id)) continue;
    existing.add(e.id); // a repeated id later in the file is skipped too
    fresh.push(e);
  }
  const entryRows = fresh.map((e) => ({
    id: e.id,
    content: e.content,
    contentHash: contentHash(e.content),
    source: e.source,
    kind: e.kind,
    status: e.status,
    volatility: e.volatility,
    volatilitySource: e.volatilitySource,
    importance: e.importance,
    claimTag: e.claimTag,
    evidenceRef: e.evidenceRef,
    recallCount: e.recallCount,
    observedAt: e.observedAt,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  }));
  // The FTS insert trigger indexes each row in this same transaction.
  for (const rows of chunks(entryRows, ROWS_PER_INSERT)) await db.insert(entries).values(rows);
  const tagRows = fresh.flatMap((e) => normalizeTags(e.tags).map((tag) => ({ entryId: e.id, tag })));
  for (const rows of chunks(tagRows, ROWS_PER_INSERT * 4)) await db.insert(tags).values(rows).onConflictDoNothing();
  // In file order, so revision ids keep each entry's revisions oldest first.
  const revisionRows = fresh.flatMap((e) =>
    e.revisions.map((r) => ({ entryId: e.id, content: r.content, op: r.op, at: r.at })),
  );
  for (const rows of chunks(revisionRows, ROWS_PER_INSERT)) await db.insert(revisions).values(rows);
  return { imported: fresh.length, tags: tagRows.length, revisions: revisionRows.length };
}

async function insertEdges(
  db: Db,
  batch: readonly EdgeRecord[],
): Promise<{ imported: number; missingEndpoint: number }> {
  const present = await existingIds(
    db,
    batch.flatMap((e) => [e.src, e.dst]),
  );
  const rows = [];
  let missingEndpoint = 0;
  for (const e of batch) {
    if (!present.has(e.src) || !present.has(e.dst)) {
      missingEndpoint++;
      continue;
    }
    const [src, dst] = canonicalEnds(e.src, e.dst, e.edgeType);
    rows.push({
      src,
      dst,
      type: e.edgeType,
      weight: e.weight,
      provenance: e.provenance,
      metadata: e.metadata == null ? null : JSON.stringify(e.metadata),
      createdAt: e.createdAt,
      updatedAt: e.updatedAt,
    });
  }
  let imported = 0;
  for (const chunk of chunks(rows, ROWS_PER_INSERT)) {
    const inserted = await db
      .insert(edges)
      .values(chunk)
      .onConflictDoNothing({ target: [edges.src, edges.dst, edges.type] })
      .returning({ src: edges.src });
    imported += inserted.length;
  }
  return { imported, missingEndpoint };
}
