import { sql } from 'drizzle-orm';
import type { Db } from './client.ts';
import { IMPACT_INDEX, type ImpactShape, listTermWrite, readFtsTotals } from './impact-index.ts';
import type { PlannedWrite } from './planned-write.ts';

/**
 * Where a workspace's upkeep of its impact index stands between two slices. The index is
 * chosen at reindex and import; a workspace that grows by captures needs lists for the
 * words that became frequent since, and this finds and builds them a little at a time.
 */
export interface ImpactUpkeep {
  /** The last vocabulary term read by the scan under way (null: the scan starts at the first term). */
  after: string | null;
  /** Terms per scan slice, adapted so that one slice takes about SLICE_MS. */
  slice: number;
  /** Frequent terms without a list, found by the scan, waiting for theirs. */
  pending: string[];
  /** Documents in the full-text index when the scan under way started (0: none under way). */
  scanRows: number;
  /** Documents when the last complete scan started: the next waits until the workspace has grown. */
  scannedRows: number;
  /**
   * Terms in more documents than this are left for `maintain` or `reindex`: a list is built
   * in one write, which holds the workspace's writer (and, on an embedded file, the write
   * thread) about 7 µs per document of the term.
   */
  maxDocs: number;
  /** Frequent terms without a list left out for maxDocs at the last scan. */
  tooLarge: number;
}

export const newImpactUpkeep = (maxDocs = Number.POSITIVE_INFINITY): ImpactUpkeep => ({
  after: null,
  slice: 256,
  pending: [],
  scanRows: 0,
  scannedRows: 0,
  maxDocs,
  tooLarge: 0,
});

/** About how long one slice of the vocabulary scan may hold the connection (and the event loop). */
const SLICE_MS = 8;
/**
 * A scan of the whole vocabulary costs about as much as reading the full-text index once:
 * it waits until the workspace has grown by this share since the last one.
 */
const RESCAN_GROWTH = 0.02;

/** What one step did: read a slice of the vocabulary, wrote one term's list, or had nothing to do. */
export type UpkeepStep =
  | { did: 'scan'; terms: number; done: boolean; tooLarge: number }
  | { did: 'list'; term: string; docs: number | null }
  | { did: 'idle' };

/** Runs a planned write through the workspace's writer (`(w) => writer.run(w)`). */
export type RunPlanned = <T>(write: PlannedWrite<T>) => Promise<T>;

/**
 * One bounded step of the impact index's upkeep: one slice of the vocabulary scan (a read),
 * or one pending term's list (listTermWrite, through `write`, the workspace's writer: each
 * list is built whole in one transaction, so captures before it are in it and the triggers
 * keep it in step with every capture after it; `docs` is null when it was not needed).
 * Call it again until it answers idle. A partly upkept index is a sound one: recall reads
 * a frequent word without a list from FTS5, exactly as before.
 *
 * @example while ((await upkeepImpactIndex(db, state, write)).did !== 'idle') await yieldToIo();
 */
export async function upkeepImpactIndex(
  db: Db,
  state: ImpactUpkeep,
  write: RunPlanned,
  shape: ImpactShape = IMPACT_INDEX,
): Promise<UpkeepStep> {
  const term = state.pending.shift();
  if (term !== undefined) return { did: 'list', term, docs: await write(listTermWrite(term, shape)) };
  if (state.scanRows === 0) {
    const { rows } = await readFtsTotals(db);
    if (rows < minDocsAt(rows, shape) || rows < state.scannedRows * (1 + RESCAN_GROWTH)) return { did: 'idle' };
    state.scanRows = rows;
    state.after = null;
    state.tooLarge = 0;
  }
  return scanSlice(db, state, shape);
}

const minDocsAt = (rows: number, shape: ImpactShape) =>
  Math.max(shape.frequentMinDocs, Math.ceil(rows * shape.frequentShare));

/** The next slice of the vocabulary, in term order: its frequent terms without a list become pending. */
async function scanSlice(db: Db, state: ImpactUpkeep, shape: ImpactShape): Promise<UpkeepStep> {
  const started = performance.now();
  // The vocabulary counts a term's documents by walking its doclist, and the longest are
  // the listed terms': the slice stops short of the next listed term (FTS5's vocabulary
  // takes the range, so no listed term's doclist is walked), and the next slice starts
  // after it. At a million entries one of them held the event loop for 258 ms.
  const [next] = await db.all<{ term: string | null }>(
    sql`SELECT min(term) AS term FROM impact_terms WHERE ${state.after === null ? sql`1` : sql`term > ${state.after}`}`,
  );
  const listedNext = next?.term ?? null;
  const conditions = [
    ...(state.after === null ? [] : [sql`term > ${state.after}`]),
    ...(listedNext === null ? [] : [sql`term < ${listedNext}`]),
  ];
  const where = conditions.length > 0 ? sql`WHERE ${sql.join(conditions, sql` AND `)}` : sql``;
  const rows = await db.all<{ term: string; docs: number }>(sql`
    SELECT term, doc AS docs FROM impact_fts_terms ${where} ORDER BY term LIMIT ${state.slice}`);
  const took = performance.now() - started;
  const minDocs = minDocsAt(state.scanRows, shape);
  for (const r of rows) {
    if (Number(r.docs) < minDocs) continue;
    if (Number(r.docs) > state.maxDocs) state.tooLarge++;
    else state.pending.push(r.term);
  }
  // A slice cut short by a listed term goes on after it; one cut short by the end is the last.
  const full = rows.length >= state.slice;
  const done = !full && listedNext === null;
  state.after = full ? rows.at(-1)!.term : (listedNext ?? state.after);
  // The cost of a slice is its terms' doclists: short for most terms, long for frequent ones.
  if (took < SLICE_MS / 2) state.slice = Math.min(state.slice * 2, 8_192);
  else if (took > SLICE_MS * 2) state.slice = Math.max(Math.floor(state.slice / 2), 16);
  if (done) {
    state.scannedRows = state.scanRows;
    state.scanRows = 0;
    state.after = null;
  }
  return { did: 'scan', terms: rows.length, done, tooLarge: state.tooLarge };
}

/**
 * The whole upkeep at once, for a process that has the workspace to itself (`maintain`):
 * the terms that got a list.
 *
 * @example await upkeepImpactIndexFully(ws.db, (w) => ws.writer.run(w)); // ['deploy']
 */
export async function upkeepImpactIndexFully(
  db: Db,
  write: RunPlanned,
  shape: ImpactShape = IMPACT_INDEX,
): Promise<string[]> {
  const state = newImpactUpkeep();
  const listed: string[] = [];
  for (let step = await upkeepImpactIndex(db, state, write, shape); step.did !== 'idle'; ) {
    if (step.did === 'list' && step.docs !== null) listed.push(step.term);
    step = await upkeepImpactIndex(db, state, write, shape);
  }
  return listed;
}
