import type { Client, ResultSet } from '@libsql/client';
import { checkImpactIndex, type ImpactCheck } from '../db/impact-index.ts';
import { edgeFromRow, edgeSnapshot } from '../db/mappers.ts';
import { STALE_COUNTS } from '../db/row-counts.ts';
import type { EdgeRow } from '../db/schema.ts';
import type { ConfiguredModel } from '../memory/embeddings/vector-store.ts';
import { type CycleBreak, cycleBreaks } from '../memory/supersession.ts';
import { checkVectors, type VectorCheck } from './vectors.ts';
import type { OpsWorkspace } from './workspace.ts';

/** What `mini-sphere check` found; `ok` is false when `problems` is not empty. */
export interface CheckReport {
  workspace: string;
  ok: boolean;
  /** One line per problem, for people. */
  problems: string[];
  /** The lines of PRAGMA integrity_check (`["ok"]` when the file is sound). */
  integrity: string[];
  /** FTS5's own check of entries_fts against the entries table. */
  fts: { ok: boolean; error: string | null };
  counts: {
    entries: number;
    /** Documents in the full-text index. */
    ftsRows: number;
    tags: number;
    edges: number;
    revisions: number;
    events: number;
    auditLog: number;
  };
  /** Rows that point at an entry that does not exist. */
  dangling: { tags: number; edges: number; revisions: number };
  /** Edges that break the write rules: self-links, RELATES_TO stored with src > dst. */
  invalidEdges: number;
  /** Entries whose stored neighbour list differs from one derived from edges now. */
  staleNeighbours: number;
  /** Counts kept for stats and tags (row_counts, tag_counts) that differ from the rows. */
  staleCounts: number;
  /**
   * Cycles of SUPERSEDES edges (data written before link refused them): each tangle of
   * cycles, the entries it runs through and the newest edges `check --fix` would drop.
   */
  supersedesCycles: SupersedesCycleReport[];
  /** The impact index against FTS5, on a sample of its terms. */
  impact: ImpactCheck;
  /** The event log's seq must run 1..count with no gap. */
  eventLog: { count: number; minSeq: number | null; maxSeq: number | null; gapFree: boolean };
  /**
   * Entries with and without a current vector of the configured embedding model (null with
   * embeddings off). Lacking vectors are no problem: the server's queue fills them in.
   */
  vectors: VectorCheck | null;
  checkedAt: string;
}

/** One tangle of supersession cycles as the report shows it. */
export interface SupersedesCycleReport {
  /** The entries it runs through (the first CYCLE_IDS_SHOWN, sorted). */
  entries: string[];
  /** How many entries it runs through. */
  size: number;
  /** The edges whose removal breaks it, newest first. */
  drop: { src: string; dst: string; createdAt: string }[];
}

/** How many tangles a report lists, and how many ids of each. */
const CYCLES_SHOWN = 100;
const CYCLE_IDS_SHOWN = 20;

type Reader = Pick<Client, 'execute'>;

const count = async (client: Reader, sql: string): Promise<number> =>
  Number((await client.execute(sql)).rows[0]?.[0] ?? 0);

/**
 * Checks a workspace database: SQLite's integrity check, the FTS index against its
 * content, the impact index against FTS5 (on a sample), row counts, references to missing entries, edge rules,
 * cycles of supersession and the event log's seq. Reads run in one read transaction (a consistent snapshot beside a running
 * server); the FTS check runs first on its own, as SQLite treats it as a write.
 */
export async function checkWorkspace(
  ws: OpsWorkspace,
  opts: { vectorModel?: ConfiguredModel | null } = {},
): Promise<CheckReport> {
  const problems: string[] = [];
  const ftsError = await checkFtsIndex(ws.client, problems);
  const vectors = opts.vectorModel ? await checkVectors(ws, opts.vectorModel) : null;
  // Its own snapshot, before the others: it recomputes lists in a temp table.
  const impact = await ws.db.transaction(async (db) => checkImpactIndex(db));
  problems.push(...impact.problems.map((p) => `${p}; run reindex`));
  const tx = await ws.client.transaction('deferred');
  try {
    // Each check adds its problems in turn, so the report lists them in this order.
    const integrity = await checkIntegrity(tx, problems);
    const counts = await countRows(tx, problems);
    const dangling = await countDangling(tx, problems);
    const invalidEdges = await countInvalidEdges(tx, problems);
    const staleNeighbours = await countStaleNeighbours(tx, problems);
    const staleCounts = await count(tx, STALE_COUNTS);
    if (staleCounts > 0) problems.push(`${staleCounts} kept count(s) are out of step with the rows; run reindex`);
    const supersedesCycles = await checkSupersedesCycles(tx, problems);
    const eventLog = await checkEventLog(tx, problems);
    return {
      workspace: ws.id,
      ok: problems.length === 0,
      problems,
      integrity,
      fts: { ok: ftsError === null, error: ftsError },
      counts,
      dangling,
      invalidEdges,
      staleNeighbours,
      staleCounts,
      supersedesCycles,
      impact,
      eventLog,
      vectors,
      checkedAt: new Date().toISOString(),
    };
  } finally {
    tx.close();
  }
}

/** FTS5's own integrity check; its error, or null when the index matches its content. */
async function checkFtsIndex(client: Reader, problems: string[]): Promise<string | null> {
  try {
    await client.execute("INSERT INTO entries_fts(entries_fts, rank) VALUES('integrity-check', 1)");
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    problems.push(`the full-text index is out of step with entries (${message}); run reindex`);
    return message;
  }
}

async function checkIntegrity(tx: Reader, problems: string[]): Promise<string[]> {
  const integrity = (await tx.execute('PRAGMA integrity_check')).rows.map((r) => String(r[0]));
  if (integrity.length !== 1 || integrity[0] !== 'ok') {
    problems.push(...integrity.map((line) => `integrity_check: ${line}`));
  }
  return integrity;
}

async function countRows(tx: Reader, problems: string[]): Promise<CheckReport['counts']> {
  const counts = {
    entries: await count(tx, 'SELECT count(*) FROM entries'),
    // One docsize row per indexed document (the table has the default columnsize=1).
    ftsRows: await count(tx, 'SELECT count(*) FROM entries_fts_docsize'),
    tags: await count(tx, 'SELECT count(*) FROM tags'),
    edges: await count(tx, 'SELECT count(*) FROM edges'),
    revisions: await count(tx, 'SELECT count(*) FROM revisions'),
    events: await count(tx, 'SELECT count(*) FROM events'),
    auditLog: await count(tx, 'SELECT count(*) FROM audit_log'),
  };
  if (counts.ftsRows !== counts.entries) {
    problems.push(`the full-text index holds ${counts.ftsRows} documents for ${counts.entries} entries; run reindex`);
  }
  return counts;
}

async function countDangling(tx: Reader, problems: string[]): Promise<CheckReport['dangling']> {
  const dangling = {
    tags: await count(tx, 'SELECT count(*) FROM tags WHERE entry_id NOT IN (SELECT id FROM entries)'),
    edges: await count(
      tx,
      'SELECT count(*) FROM edges WHERE src NOT IN (SELECT id FROM entries) OR dst NOT IN (SELECT id FROM entries)',
    ),
    revisions: await count(tx, 'SELECT count(*) FROM revisions WHERE entry_id NOT IN (SELECT id FROM entries)'),
  };
  for (const [table, n] of Object.entries(dangling)) {
    if (n > 0) problems.push(`${n} ${table} row(s) point at entries that do not exist`);
  }
  return dangling;
}

async function countInvalidEdges(tx: Reader, problems: string[]): Promise<number> {
  const invalidEdges = await count(
    tx,
    "SELECT count(*) FROM edges WHERE src = dst OR (type = 'RELATES_TO' AND src > dst)",
  );
  if (invalidEdges > 0)
    problems.push(`${invalidEdges} edge(s) are self-links or RELATES_TO edges stored with src > dst`);
  return invalidEdges;
}

/** The stored neighbour lists (drizzle/0002) against the same lists derived afresh. */
async function countStaleNeighbours(tx: Reader, problems: string[]): Promise<number> {
  const staleNeighbours = await count(
    tx,
    `SELECT count(DISTINCT entry_id) FROM (
       SELECT entry_id FROM (
         SELECT entry_id, top FROM entry_neighbours
         EXCEPT SELECT entry_id, top FROM entry_neighbour_lists WHERE top <> '[]')
       UNION ALL
       SELECT entry_id FROM (
         SELECT entry_id, top FROM entry_neighbour_lists WHERE top <> '[]'
         EXCEPT SELECT entry_id, top FROM entry_neighbours))`,
  );
  if (staleNeighbours > 0) {
    problems.push(`${staleNeighbours} neighbour list(s) are out of step with edges; run reindex`);
  }
  return staleNeighbours;
}

/**
 * The SUPERSEDES edges that may lie on a cycle: an edge on a cycle leaves an entry something
 * supersedes and reaches one that supersedes something, which rules out every chain's first
 * and last edge at the cost of two index probes each.
 */
const CYCLE_CANDIDATES = `SELECT * FROM edges e WHERE e.type = 'SUPERSEDES'
  AND EXISTS (SELECT 1 FROM edges i INDEXED BY edges_supersedes_idx WHERE i.dst = e.src AND i.type = 'SUPERSEDES')
  AND EXISTS (SELECT 1 FROM edges o WHERE o.src = e.dst AND o.type = 'SUPERSEDES')`;

/** The workspace's tangles of SUPERSEDES cycles, with the edges that break each. */
async function supersedesCycleBreaks(read: (sql: string) => Promise<ResultSet>): Promise<CycleBreak<EdgeRow>[]> {
  const candidates = (await read(CYCLE_CANDIDATES)).rows.map((r) => edgeFromRow(r as Record<string, unknown>));
  return cycleBreaks(candidates);
}

async function checkSupersedesCycles(tx: Reader, problems: string[]): Promise<SupersedesCycleReport[]> {
  const breaks = await supersedesCycleBreaks((sql) => tx.execute(sql));
  if (breaks.length > 0) {
    const entries = breaks.reduce((n, b) => n + b.entries.length, 0);
    problems.push(
      `${breaks.length} cycle(s) of SUPERSEDES edges through ${entries} entries (an entry superseding itself ` +
        'through a chain); run check --fix to drop the newest edge of each',
    );
  }
  return breaks.slice(0, CYCLES_SHOWN).map((b) => ({
    entries: b.entries.slice(0, CYCLE_IDS_SHOWN),
    size: b.entries.length,
    drop: b.drop.map((e) => ({ src: e.src, dst: e.dst, createdAt: new Date(e.createdAt).toISOString() })),
  }));
}

/** What `check --fix` changed. */
export interface RepairReport {
  workspace: string;
  /** The SUPERSEDES edges dropped to break cycles, newest first within each cycle. */
  droppedEdges: { src: string; dst: string; type: 'SUPERSEDES'; createdAt: string }[];
}

/**
 * Breaks every cycle of SUPERSEDES edges by dropping the newest edges that close them (a
 * single cycle loses exactly its newest edge), in one write: an UNLINKED event per edge
 * and one audit row naming them. A workspace without cycles is left as it is, audit log
 * included.
 */
export async function repairWorkspace(ws: OpsWorkspace, actor: string): Promise<RepairReport> {
  const dropped = await ws.writer.run(async (scope) => {
    const drop = (await supersedesCycleBreaks((sql) => scope.exec(sql))).flatMap((b) => b.drop);
    if (drop.length === 0) return [];
    for (const edge of drop) {
      await scope.exec("DELETE FROM edges WHERE src = ? AND dst = ? AND type = 'SUPERSEDES'", [edge.src, edge.dst]);
      await scope.emit({ type: 'UNLINKED', entryId: edge.src, edge: edgeSnapshot(edge) });
    }
    const droppedEdges = drop.map((e) => ({
      src: e.src,
      dst: e.dst,
      type: 'SUPERSEDES' as const,
      createdAt: new Date(e.createdAt).toISOString(),
    }));
    await scope.exec('INSERT INTO audit_log (at, actor, action, details) VALUES (?, ?, ?, ?)', [
      scope.now,
      actor,
      'break_supersedes_cycles',
      JSON.stringify({ droppedEdges }),
    ]);
    return droppedEdges;
  });
  return { workspace: ws.id, droppedEdges: dropped };
}

async function checkEventLog(tx: Reader, problems: string[]): Promise<CheckReport['eventLog']> {
  const seq = (await tx.execute('SELECT count(*), min(seq), max(seq) FROM events')).rows[0];
  const eventCount = Number(seq?.[0] ?? 0);
  const minSeq = seq?.[1] == null ? null : Number(seq[1]);
  const maxSeq = seq?.[2] == null ? null : Number(seq[2]);
  const gapFree = eventCount === 0 || (minSeq === 1 && maxSeq === eventCount);
  if (!gapFree) problems.push(`the event log's seq runs ${minSeq}..${maxSeq} over ${eventCount} events: it has gaps`);
  return { count: eventCount, minSeq, maxSeq, gapFree };
}

/** The report as the plain text `mini-sphere check` prints. */
export function formatCheckReport(r: CheckReport): string {
  const c = r.counts;
  const d = r.dangling;
  const lines = [
    `workspace ${r.workspace}: ${r.ok ? 'ok' : `${r.problems.length} problem(s)`}`,
    `  integrity_check  ${r.integrity.length === 1 && r.integrity[0] === 'ok' ? 'ok' : 'FAILED'}`,
    `  full-text index  ${r.fts.ok && c.ftsRows === c.entries ? 'ok' : 'OUT OF STEP'} (${c.ftsRows} documents)`,
    `  rows             entries ${c.entries}, tags ${c.tags}, edges ${c.edges}, revisions ${c.revisions}, events ${c.events}, audit ${c.auditLog}`,
    `  dangling         tags ${d.tags}, edges ${d.edges}, revisions ${d.revisions}`,
    `  invalid edges    ${r.invalidEdges}`,
    `  neighbour lists  ${r.staleNeighbours === 0 ? 'ok' : `${r.staleNeighbours} OUT OF STEP`}`,
    `  kept counts      ${r.staleCounts === 0 ? 'ok' : `${r.staleCounts} OUT OF STEP`}`,
    `  supersession     ${r.supersedesCycles.length === 0 ? 'no cycles' : `${r.supersedesCycles.length} CYCLE(S)`}`,
    `  impact index     ${r.impact.problems.length === 0 ? 'ok' : 'OUT OF STEP'} (${r.impact.terms} terms, ${r.impact.postings} postings; sampled ${r.impact.sampled.length})`,
    `  event log        ${r.eventLog.count === 0 ? 'empty' : `seq ${r.eventLog.minSeq}..${r.eventLog.maxSeq}`}, ${r.eventLog.gapFree ? 'no gaps' : 'GAPS'}`,
  ];
  if (r.vectors) {
    const v = r.vectors;
    lines.push(
      `  vectors          ${v.model}: ${v.current} current, ${v.lacking} lacking${v.lacking > 0 ? ' (the server fills them in; reindex --vectors rebuilds all)' : ''}`,
    );
  }
  for (const c of r.supersedesCycles) {
    const more = c.size > c.entries.length ? ` and ${c.size - c.entries.length} more` : '';
    const drop = c.drop.map((e) => `${e.src} -> ${e.dst}`).join(', ');
    lines.push(`  cycle through ${c.entries.join(', ')}${more}; --fix drops ${drop}`);
  }
  for (const p of r.problems) lines.push(`PROBLEM: ${p}`);
  return `${lines.join('\n')}\n`;
}

/** What `check --fix` prints before the check. */
export function formatRepairReport(r: RepairReport): string {
  if (r.droppedEdges.length === 0) return `workspace ${r.workspace}: nothing to repair`;
  const edges = r.droppedEdges.map((e) => `  dropped SUPERSEDES ${e.src} -> ${e.dst} (created ${e.createdAt})`);
  return [`workspace ${r.workspace}: broke cycles of supersession by dropping ${edges.length} edge(s)`, ...edges].join(
    '\n',
  );
}
