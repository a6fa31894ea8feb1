import { existsSync } from 'node:fs';
import { link, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { inArray, sql } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { EntryKind } from '../contract/enums.ts';
import { badInput, DomainError } from '../contract/errors.ts';
import type { EventDraft } from '../contract/events.ts';
import { normalizeTags } from '../contract/limits.ts';
import { type Db, locateWorkspace } from '../db/client.ts';
import { rebuildImpactIndex } from '../db/impact-index.ts';
import { edgeToRow } from '../db/mappers.ts';
import { auditLog, edges, entries, revisions, tags } from '../db/schema.ts';
import type { WriteScope } from '../db/writer.ts';
import { canonicalEnds, kindGateProblem } from '../memory/link.ts';
import { components, cycleBreaks } from '../memory/supersession.ts';
import { fsyncPath } from './files.ts';
import { LINE_MAX_BYTES, readLines } from './lines.ts';
import type { Progress } from './progress.ts';
import {
  type EdgeRecord,
  type EntryRecord,
  EXPORT_FORMAT,
  type ExportRecord,
  edgeOfRecord,
  entryRowOf,
  exportRecord,
} from './records.ts';
import { type OpsWorkspace, withDatabase, withWorkspace, workspaceFile } from './workspace.ts';

export interface ImportReport {
  workspace: string;
  /** The workspace the file was exported from (its header). */
  from: string;
  lines: number;
  entries: { imported: number; skipped: number };
  tags: number;
  revisions: number;
  edges: { imported: number; skipped: number };
}

/** What the validating pass keeps of a file: counts and ids, never contents. */
export interface ExportSummary {
  /** How the file is named in messages ("stdin" for a copy of standard input). */
  name: string;
  path: string;
  /** Lines, blank ones included: the progress bar's total. */
  lines: number;
  workspace: string;
  entries: number;
  edges: number;
  /** The longest line read, in bytes (both passes hold to the same bound). */
  maxLineBytes: number;
  /** The file's SUPERSEDES edges, checked against the target workspace's before anything is written. */
  supersedes: { src: string; dst: string; line: number }[];
}

export interface ImportOptions {
  /** The workspace the file must say it was exported from; the target's own id when absent. */
  from?: string;
  actor: string;
  progress: (total: number) => Progress;
  /** How the file is named in messages; its path when absent. */
  name?: string;
  /** The longest line read, in bytes; LINE_MAX_BYTES when absent. */
  maxLineBytes?: number;
}

/** Entries per insert round; also capped by content size so one round's rows stay small. */
const ENTRY_BATCH = 250;
const ENTRY_BATCH_CHARS = 8_000_000;
const EDGE_BATCH = 1_000;
/** Rows per multi-row INSERT: the widest table (entries, 15 columns) stays far below SQLite's 32,766 parameters. */
const ROWS_PER_INSERT = 200;
const MAX_REPORTED_PROBLEMS = 5;

/**
 * Imports a JSON Lines export (records.ts) into workspace `id`, keeping ids and timestamps,
 * all or nothing.
 *
 * A first pass reads the whole file and refuses it, before any database is opened, unless
 * it is a complete export of the expected workspace (of any, when the import creates the
 * workspace and no `from` is given) within the API's limits: header first,
 * then entries with unique ids, then edges whose ends are entries of the file, each once,
 * with no cycle of supersession, then an end record whose counts match. Lines are read
 * strictly (valid UTF-8, at most LINE_MAX_BYTES each). That pass keeps only ids, so memory
 * stays bounded by the number of entries and edges, not the file's size.
 *
 * The second pass writes. A workspace that does not exist yet is built in a temporary file
 * beside its final name and linked into place when complete, so a failure or a crash never
 * leaves a workspace behind. An existing local workspace takes the whole import in one
 * transaction. A hosted database takes it in short transactions (a remote transaction has
 * seconds to live); the file was validated first, so only a failure of the database itself
 * can leave part of it written there.
 *
 * Idempotent: an entry whose id exists is skipped whole (the workspace's copy wins, its tags
 * and revisions untouched); revisions come only with new entries; an edge is inserted unless
 * the same (src, dst, type) exists. A second import changes nothing. An import writes one
 * event, IMPORTED with its counts, not one per entry: replaying thousands of CAPTURED events
 * at subscribers for a restore would be noise, but a client that follows the log must learn
 * that it should refetch. One audit row records the run as well.
 */
export async function importFile(config: Config, id: string, path: string, opts: ImportOptions): Promise<ImportReport> {
  const location = locateWorkspace(id, config);
  const target = workspaceFile(location);
  const creating = target !== null && !existsSync(target);
  // The header check keeps one workspace's export from being merged into another by mistake;
  // a workspace this import creates holds nothing to mix it with, so any export may seed it.
  const anySource = creating && opts.from === undefined;
  // So does any workspace an earlier import filled from that export: running the same
  // import again changes nothing, and asks for no --from it did not need the first time.
  const imported = !creating && opts.from === undefined ? await importedSources(config, id) : [];
  const summary = await validateExport(path, {
    name: opts.name ?? path,
    into: id,
    from: opts.from,
    anySource,
    imported,
    maxLineBytes: opts.maxLineBytes,
  });
  if (target && creating) return importIntoNewFile(id, target, summary, opts);
  return withWorkspace(config, id, (ws) => writeImport(ws, summary, { ...opts, oneTransaction: location.local }));
}

/** The workspaces whose exports were imported into workspace `id` before (its audit log). */
async function importedSources(config: Config, id: string): Promise<string[]> {
  const rows = await withWorkspace(config, id, (ws) =>
    ws.db.all<{ details: string }>(sql`SELECT details FROM audit_log WHERE action = 'import'`),
  );
  const sources = new Set<string>();
  for (const { details } of rows) {
    try {
      const from = (JSON.parse(details) as { from?: unknown }).from;
      if (typeof from === 'string') sources.add(from);
    } catch {
      // Not an import's report: nothing to learn from it.
    }
  }
  return [...sources];
}

async function importIntoNewFile(
  id: string,
  target: string,
  summary: ExportSummary,
  opts: ImportOptions,
): Promise<ImportReport> {
  // Not `*.db`, so neither the server nor `migrate` ever takes it for a workspace.
  const partial = join(dirname(target), `.${id}.db.import-${process.pid}`);
  try {
    const report = await withDatabase(id, { url: `file:${partial}`, local: true }, async (ws) => {
      const r = await writeImport(ws, summary, { ...opts, oneTransaction: true });
      // Everything into the main file, so that the file alone is the workspace once linked.
      const [row] = (await ws.client.execute('PRAGMA wal_checkpoint(TRUNCATE)')).rows;
      if (row && Number(row[0]) !== 0)
        throw new DomainError('UNAVAILABLE', `could not checkpoint ${partial}; nothing was imported`);
      return r;
    });
    await fsyncPath(partial);
    try {
      // A link, unlike a rename, never replaces a workspace that appeared meanwhile.
      await link(partial, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      throw badInput(
        `workspace ${JSON.stringify(id)} was created while the file was imported; nothing was imported ` +
          '(run the import again to merge the file into it)',
      );
    }
    return report;
  } finally {
    await Promise.all(['', '-wal', '-shm', '-journal'].map((suffix) => rm(`${partial}${suffix}`, { force: true })));
  }
}

/** The file's lines, strictly: valid UTF-8, none longer than `maxBytes` (lines.ts). */
function lines(path: string, maxBytes: number = LINE_MAX_BYTES) {
  return readLines(path, maxBytes);
}

/** One line of text: a problem is reported on the line the command prints. */
const oneLine = (s: string) => s.replace(/\s*\n\s*/g, ' ');

function parseLine(line: string, lineNo: number): ExportRecord {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw badInput(`line ${lineNo}: not valid JSON`);
  }
  const parsed = exportRecord.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    const kind = (json as { type?: unknown })?.type;
    throw badInput(
      oneLine(
        `line ${lineNo}: invalid ${typeof kind === 'string' ? `${kind} ` : ''}record: ${where}${issue?.message ?? 'invalid'}` +
          (kind === 'header' ? ` (expected a ${EXPORT_FORMAT} file)` : ''),
      ),
    );
  }
  return parsed.data;
}

/** What the validating pass has seen so far: ids and line numbers, never contents. */
interface Scan {
  problems: string[];
  header: { workspace: string; line: number } | null;
  end: { entries: number; edges: number; line: number } | null;
  entryLines: Map<string, number>;
  /** Each entry's kind, for the edge types that accept only some kinds. */
  entryKinds: Map<string, EntryKind>;
  /** Every edge by (src, dst, type) as stored, to its line: the API never holds two. */
  edgeLines: Map<string, number>;
  supersedesList: ExportSummary['supersedes'];
  /** Whether every problem is a cycle of supersession (the refusal is then SUPERSEDES_CYCLE). */
  onlyCycles: boolean;
  edgeCount: number;
  firstEdgeLine: number;
  lineNo: number;
  nonBlank: number;
  /** A problem that makes the rest of the file meaningless to check. */
  fatal: boolean;
}

type ValidateOptions = {
  name: string;
  into: string;
  from?: string | undefined;
  /** Any header will do: the import creates the workspace. */
  anySource?: boolean;
  /** Headers that will do besides `from ?? into`: sources of earlier imports into it. */
  imported?: readonly string[];
  /** The longest line read, in bytes; LINE_MAX_BYTES when absent. */
  maxLineBytes?: number | undefined;
};
type Problem = (message: string) => void;

/**
 * The validating pass: reads the whole file and throws BAD_USER_INPUT naming the first few
 * problems by line, or returns what the writing pass needs.
 */
export async function validateExport(path: string, opts: ValidateOptions): Promise<ExportSummary> {
  const scan: Scan = {
    problems: [],
    header: null,
    end: null,
    entryLines: new Map(),
    entryKinds: new Map(),
    edgeLines: new Map(),
    supersedesList: [],
    onlyCycles: false,
    edgeCount: 0,
    firstEdgeLine: 0,
    lineNo: 0,
    nonBlank: 0,
    fatal: false,
  };
  const maxLineBytes = opts.maxLineBytes ?? LINE_MAX_BYTES;
  try {
    for await (const line of lines(path, maxLineBytes)) {
      scan.lineNo++;
      if (line.trim() === '') continue;
      scan.nonBlank++;
      let record: ExportRecord;
      try {
        record = parseLine(line, scan.lineNo);
      } catch (error) {
        scan.problems.push(error instanceof Error ? error.message : String(error));
        if (scan.problems.length >= MAX_REPORTED_PROBLEMS) break;
        continue;
      }
      checkRecord(scan, record, opts);
      if (scan.fatal || scan.problems.length >= MAX_REPORTED_PROBLEMS) break;
    }
  } catch (error) {
    // A line that is not UTF-8 or is too long: nothing after it can be read as lines.
    if (!(error instanceof DomainError)) throw error;
    scan.problems.push(error.message);
    scan.fatal = true;
  }
  checkEnding(scan);
  checkSupersedesCycles(scan);
  const { header, problems } = scan;
  if (problems.length > 0 || !header) {
    const message = `${opts.name}: ${problems.join('; ')}; nothing was imported`;
    throw scan.onlyCycles ? new DomainError('SUPERSEDES_CYCLE', message) : badInput(message);
  }
  return {
    name: opts.name,
    path,
    lines: scan.lineNo,
    workspace: header.workspace,
    entries: scan.entryLines.size,
    edges: scan.edgeCount,
    maxLineBytes,
    supersedes: scan.supersedesList,
  };
}

/** Checks one record against its place in the file and what came before it. */
function checkRecord(scan: Scan, record: ExportRecord, opts: ValidateOptions): void {
  const problem: Problem = (message) => scan.problems.push(`line ${scan.lineNo}: ${oneLine(message)}`);
  if (scan.end) {
    problem(`a ${record.type} record after the end record (line ${scan.end.line})`);
  } else if (!scan.header && record.type !== 'header') {
    problem(`the file must start with a header record, not a ${record.type} record`);
    scan.fatal = true;
  } else if (record.type === 'header') {
    checkHeader(scan, record, opts, problem);
  } else if (record.type === 'entry') {
    checkEntry(scan, record, problem);
  } else if (record.type === 'edge') {
    checkEdge(scan, record, problem);
  } else {
    scan.end = { entries: record.entries, edges: record.edges, line: scan.lineNo };
  }
}

function checkHeader(
  scan: Scan,
  record: Extract<ExportRecord, { type: 'header' }>,
  opts: ValidateOptions,
  problem: Problem,
): void {
  const expected = opts.from ?? opts.into;
  if (scan.header) {
    problem(`a second header record (the first is on line ${scan.header.line})`);
  } else if (!opts.anySource && record.workspace !== expected && !opts.imported?.includes(record.workspace)) {
    const from = JSON.stringify(record.workspace);
    problem(
      opts.from === undefined
        ? `the file is an export of workspace ${from}, not of ${JSON.stringify(opts.into)}; ` +
            `to import it into ${JSON.stringify(opts.into)}, pass --from ${record.workspace}`
        : `the file is an export of workspace ${from}, not of ${JSON.stringify(opts.from)} as --from says`,
    );
    scan.fatal = true;
  } else {
    scan.header = { workspace: record.workspace, line: scan.lineNo };
  }
}

function checkEntry(scan: Scan, record: EntryRecord, problem: Problem): void {
  const first = scan.entryLines.get(record.id);
  if (scan.firstEdgeLine > 0) {
    problem(`entry ${JSON.stringify(record.id)} after the first edge (line ${scan.firstEdgeLine}): entries come first`);
  } else if (first !== undefined) {
    problem(`duplicate entry id ${JSON.stringify(record.id)} (first on line ${first})`);
  } else {
    scan.entryLines.set(record.id, scan.lineNo);
    scan.entryKinds.set(record.id, record.kind);
  }
}

/** An edge's ends must be entries of the file of the kinds its type accepts, and it appears once. */
function checkEdge(scan: Scan, record: EdgeRecord, problem: Problem): void {
  scan.edgeCount++;
  if (scan.firstEdgeLine === 0) scan.firstEdgeLine = scan.lineNo;
  const label = `${record.edgeType} edge ${JSON.stringify(record.src)} -> ${JSON.stringify(record.dst)}`;
  const missing = [record.src, record.dst].filter((id) => !scan.entryLines.has(id));
  const mismatch =
    missing.length > 0
      ? null
      : kindGateProblem(record.edgeType, scan.entryKinds.get(record.src)!, scan.entryKinds.get(record.dst)!);
  const key = JSON.stringify([...canonicalEnds(record.src, record.dst, record.edgeType), record.edgeType]);
  const first = scan.edgeLines.get(key);
  if (missing.length > 0) {
    problem(`${label}: no entry ${missing.map((m) => JSON.stringify(m)).join(' or ')} in the file`);
  } else if (mismatch) {
    problem(`${label}: ${mismatch}`);
  } else if (first !== undefined) {
    problem(`${label}: the same edge as on line ${first} (a workspace holds each edge once)`);
  } else {
    scan.edgeLines.set(key, scan.lineNo);
    if (record.edgeType === 'SUPERSEDES') {
      scan.supersedesList.push({ src: record.src, dst: record.dst, line: scan.lineNo });
    }
  }
}

/** How many entries a message names of one cycle. */
const CYCLE_ENTRIES_SHOWN = 5;

/**
 * The file's SUPERSEDES edges must leave supersession a forest. For each tangle of cycles,
 * names the first line (in file order) whose edge closes one.
 */
function checkSupersedesCycles(scan: Scan): void {
  if (scan.problems.length > 0) return;
  const breaks = cycleBreaks(scan.supersedesList.map((e) => ({ ...e, createdAt: e.line })));
  for (const tangle of breaks.slice(0, MAX_REPORTED_PROBLEMS)) {
    const closing = tangle.drop.reduce((a, b) => (b.line < a.line ? b : a));
    scan.problems.push(`line ${closing.line}: ${cycleMessage(closing, tangle.entries)}`);
  }
  scan.onlyCycles = scan.problems.length > 0;
}

function cycleMessage(edge: { src: string; dst: string }, entries: readonly string[]): string {
  const shown = entries.slice(0, CYCLE_ENTRIES_SHOWN).map((id) => JSON.stringify(id));
  const more = entries.length > CYCLE_ENTRIES_SHOWN ? ` and ${entries.length - CYCLE_ENTRIES_SHOWN} more` : '';
  return (
    `SUPERSEDES edge ${JSON.stringify(edge.src)} -> ${JSON.stringify(edge.dst)} closes a cycle of supersession ` +
    `through ${shown.join(', ')}${more} (an entry cannot supersede itself, directly or through a chain)`
  );
}

/** Once the whole file is read: not empty, not cut off, and the end record's counts match. */
function checkEnding(scan: Scan): void {
  const { problems, end } = scan;
  const finished = !scan.fatal && problems.length < MAX_REPORTED_PROBLEMS;
  if (finished && scan.nonBlank === 0) problems.push('the file is empty');
  else if (finished && !end) {
    problems.push(`line ${scan.lineNo}: the file ends without an end record; it may be cut off`);
  } else if (finished && end && (end.entries !== scan.entryLines.size || end.edges !== scan.edgeCount)) {
    problems.push(
      `line ${end.line}: the end record counts ${end.entries} entries and ${end.edges} edges, ` +
        `but the file holds ${scan.entryLines.size} and ${scan.edgeCount}`,
    );
  }
}

type Write = <T>(fn: (scope: WriteScope) => Promise<T>) => Promise<T>;

/** The writing pass over a validated file. */
async function writeImport(
  ws: OpsWorkspace,
  summary: ExportSummary,
  opts: ImportOptions & { oneTransaction: boolean },
): Promise<ImportReport> {
  const body = async (write: Write) => {
    await write((scope) => refuseSupersedesCycles(scope.db, summary, ws.id));
    const indexed = await write(({ db }) => db.all(sql`SELECT 1 FROM impact_terms LIMIT 1`));
    const report = await writeRecords(ws.id, summary, write, opts.progress);
    // A workspace that had an impact index kept it in step entry by entry; one that had
    // none (a new one) gets it built once from the full-text index, which is cheaper.
    if (indexed.length === 0) await write(({ db }) => rebuildImpactIndex(db));
    await write(async ({ db, now, emit }) => {
      await db
        .insert(auditLog)
        .values({ at: now, actor: opts.actor, action: 'import', details: JSON.stringify(report) });
      // One event for the whole import, in the same transaction, so that clients that follow
      // the event log learn that entries arrived without events of their own; an import that
      // changed nothing (run a second time) leaves the log as it was.
      if (report.entries.imported > 0 || report.edges.imported > 0) await emit(importedEvent(report));
    });
    return report;
  };
  return opts.oneTransaction ? ws.writer.run((scope) => body((fn) => fn(scope))) : body((fn) => ws.writer.run(fn));
}

/**
 * Refuses the import when a SUPERSEDES edge of the file would close a cycle with those the
 * workspace already holds. Only the workspace's edges reachable from the file's read, and
 * an edge lies on a cycle exactly when its ends fall in one strongly connected component.
 */
async function refuseSupersedesCycles(db: Db, summary: ExportSummary, workspace: string): Promise<void> {
  if (summary.supersedes.length === 0) return;
  const seeds = [...new Set(summary.supersedes.flatMap((e) => [e.src, e.dst]))];
  // UNION keeps each id once, so the walk ends even on a cycle older data holds.
  const held = await db.all<{ src: string; dst: string }>(sql`
    WITH RECURSIVE reach(id) AS (
      SELECT value FROM json_each(${JSON.stringify(seeds)})
      UNION SELECT e.dst FROM edges e JOIN reach r ON e.src = r.id WHERE e.type = 'SUPERSEDES')
    SELECT src, dst FROM edges WHERE type = 'SUPERSEDES' AND src IN (SELECT id FROM reach)`);
  const component = components([...summary.supersedes, ...held]);
  const clash = summary.supersedes.find((e) => component.get(e.src) === component.get(e.dst));
  if (clash) {
    const entries = [...component].filter(([, c]) => c === component.get(clash.src)).map(([id]) => id);
    throw new DomainError(
      'SUPERSEDES_CYCLE',
      `${summary.name}: line ${clash.line}: with the edges workspace ${JSON.stringify(workspace)} holds, ` +
        `${cycleMessage(clash, entries.sort())}; nothing was imported`,
    );
  }
}

async function writeRecords(
  workspace: string,
  summary: ExportSummary,
  write: Write,
  progress: (total: number) => Progress,
): Promise<ImportReport> {
  const bar = progress(summary.lines);
  const report: ImportReport = {
    workspace,
    from: summary.workspace,
    lines: 0,
    entries: { imported: 0, skipped: 0 },
    tags: 0,
    revisions: 0,
    edges: { imported: 0, skipped: 0 },
  };
  let entryBatch: EntryRecord[] = [];
  let entryChars = 0;
  let edgeBatch: EdgeRecord[] = [];

  const flushEntries = async () => {
    if (entryBatch.length === 0) return;
    const batch = entryBatch;
    entryBatch = [];
    entryChars = 0;
    const r = await write(({ db }) => insertEntries(db, batch));
    report.entries.imported += r.imported;
    report.entries.skipped += batch.length - r.imported;
    report.tags += r.tags;
    report.revisions += r.revisions;
  };
  const flushEdges = async () => {
    if (edgeBatch.length === 0) return;
    const batch = edgeBatch;
    edgeBatch = [];
    const imported = await write(({ db }) => insertEdges(db, batch));
    report.edges.imported += imported;
    report.edges.skipped += batch.length - imported;
  };

  // The file was validated, but it is read a second time and may have changed since.
  let lineNo = 0;
  for await (const line of lines(summary.path, summary.maxLineBytes)) {
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
    }
  }
  await flushEntries();
  await flushEdges();
  bar.stop();

  const seenEntries = report.entries.imported + report.entries.skipped;
  const seenEdges = report.edges.imported + report.edges.skipped;
  if (seenEntries !== summary.entries || seenEdges !== summary.edges) {
    throw new DomainError('UNAVAILABLE', `${summary.name} changed while it was imported; nothing was imported`);
  }
  return report;
}

/** The IMPORTED event of an import: what it brought in and what it skipped. */
function importedEvent(report: ImportReport): EventDraft {
  return {
    type: 'IMPORTED',
    data: {
      from: report.from,
      entries: report.entries.imported,
      entriesSkipped: report.entries.skipped,
      tags: report.tags,
      revisions: report.revisions,
      edges: report.edges.imported,
      edgesSkipped: report.edges.skipped,
    },
  };
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
  const fresh = batch.filter((e) => !existing.has(e.id));
  const entryRows = fresh.map(entryRowOf);
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

async function insertEdges(db: Db, batch: readonly EdgeRecord[]): Promise<number> {
  const present = await existingIds(
    db,
    batch.flatMap((e) => [e.src, e.dst]),
  );
  const rows = batch.map((e) => {
    // Validation saw both ends in the file; only a file changed since can get here.
    if (!present.has(e.src) || !present.has(e.dst)) {
      throw new DomainError(
        'UNAVAILABLE',
        `an edge's entry is missing: the file changed while it was imported; nothing was imported`,
      );
    }
    const [src, dst] = canonicalEnds(e.src, e.dst, e.edgeType);
    return edgeToRow({ ...edgeOfRecord(e), src, dst });
  });
  let imported = 0;
  for (const chunk of chunks(rows, ROWS_PER_INSERT)) {
    const inserted = await db
      .insert(edges)
      .values(chunk)
      .onConflictDoNothing({ target: [edges.src, edges.dst, edges.type] })
      .returning({ src: edges.src });
    imported += inserted.length;
  }
  return imported;
}
