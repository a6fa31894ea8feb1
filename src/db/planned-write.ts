import type { Client, InStatement, InValue, ResultSet } from '@libsql/client';
import type { EventDraft, MemoryEventRecord } from '../contract/events.ts';
import { eventToRow } from './mappers.ts';

/**
 * A write whose statements follow from a few reads made first. A hosted database answers
 * every request a network round trip later, so the writer reads what a whole group of these
 * depends on in one request and sends every statement of the group, COMMIT included, in a
 * second one; a write that needs the answer of its own INSERT before it can go on could not
 * be sent that way. An embedded file runs them one statement at a time like any other write.
 */
export interface PlannedWrite<T> {
  /**
   * What the write reads and changes, by name (`hash:<content hash>`, `entry:<id>`). A write
   * sharing a key with an earlier write of the same group waits for the next group, so
   * that its reads see that write; ANY_KEY shares one with every write.
   */
  keys?: readonly string[];
  /**
   * Reads answered inside the write's transaction before any write of its group. A write
   * without them cannot add entries or events (their rowids are read with the reads).
   */
  reads?: readonly InStatement[];
  /**
   * Its reads usually find nothing (a capture of new content). A hosted database's writer may
   * then send its group as one request: decided as if they found nothing, with a guard that
   * they do (see `guardSql`), and sent the usual way when the guard fails.
   */
  usuallyFindsNothing?: boolean;
  /**
   * Decides the write from the answers, in order: queues its statements and events on
   * `plan` and returns its result. Nothing else runs in between, and nothing it queued is
   * kept when it throws: an expected refusal (NOT_FOUND, BLOCKED) fails this write alone.
   */
  decide(plan: WritePlan, answers: readonly ResultSet[]): T;
}

/** The key of a write that may touch what any other write reads: it shares a group with none. */
export const ANY_KEY = '*';

/** Where a planned write puts its statements. */
export interface WritePlan {
  /** One timestamp per write, so every row it touches agrees. */
  readonly now: number;
  /** Queues a statement. */
  run(sql: string, args?: InValue[]): void;
  /** The rowid (`n`) the next entry this write inserts must take: rowids are written, not assigned, so results need no answer. */
  nextEntryN(): number;
  /** Queues the event's row; its record, seq included, is published after commit. */
  emit(draft: EventDraft): MemoryEventRecord;
}

/** The last rowids in use, read under the write lock: the group's inserts continue from them (max + 1, as SQLite would). */
export interface Counters {
  seq: number;
  n: number;
}

export const COUNTERS_SQL =
  'SELECT coalesce((SELECT max(seq) FROM events), 0) AS seq, coalesce((SELECT max(n) FROM entries), 0) AS n';

const INSERT_EVENT_AT =
  'INSERT INTO events (seq, type, at, entry_id, outcome, edge, data) VALUES (?, ?, ?, ?, ?, ?, ?)';

/**
 * A statement that fails (SQLite's integer overflow error, the one a SELECT can raise on
 * demand) unless the rowids in use are still `counters` and every read finds nothing: put
 * first in a batch, it keeps a group decided on that guess from being written on any other
 * state. Null when a read's arguments are not positional.
 */
export function guardSql(counters: Counters, reads: readonly InStatement[]): InStatement | null {
  const args: InValue[] = [counters.seq, counters.n];
  let sql =
    'SELECT CASE WHEN (SELECT coalesce(max(seq), 0) FROM events) = ? AND (SELECT coalesce(max(n), 0) FROM entries) = ?';
  for (const read of reads) {
    if (typeof read === 'string') sql += ` AND NOT EXISTS (${read})`;
    else if (Array.isArray(read.args ?? [])) {
      sql += ` AND NOT EXISTS (${read.sql})`;
      args.push(...((read.args ?? []) as InValue[]));
    } else return null;
  }
  return { sql: `${sql} THEN 1 ELSE abs(-9223372036854775807 - 1) END`, args };
}

/** What a read that found nothing answers: a guessed group is decided on these. */
export function nothingFound(): ResultSet {
  return { columns: [], columnTypes: [], rows: [], rowsAffected: 0, lastInsertRowid: undefined, toJSON: () => ({}) };
}

/** The answer of COUNTERS_SQL, for a group decided on rowids it did not read. */
export function countersResult(counters: Counters): ResultSet {
  return { ...nothingFound(), rows: [{ ...counters } as unknown as ResultSet['rows'][number]] };
}

export function countersFrom(result: ResultSet): Counters {
  const row = result.rows[0];
  return { seq: Number(row?.seq ?? 0), n: Number(row?.n ?? 0) };
}

/** The statements and events one planned write decided on. */
export class Plan implements WritePlan {
  readonly statements: InStatement[] = [];
  readonly events: MemoryEventRecord[] = [];
  readonly #workspace: string;
  readonly #counters: Counters | null;

  constructor(workspace: string, now: number, counters: Counters | null) {
    this.#workspace = workspace;
    this.now = now;
    this.#counters = counters;
  }

  readonly now: number;

  run(sql: string, args: InValue[] = []): void {
    this.statements.push({ sql, args });
  }

  nextEntryN(): number {
    return ++this.#need().n;
  }

  emit(draft: EventDraft): MemoryEventRecord {
    const seq = ++this.#need().seq;
    const row = eventToRow(draft, this.now);
    this.run(INSERT_EVENT_AT, [seq, row.type, row.at, row.entryId, row.outcome, row.edge, row.data]);
    const record: MemoryEventRecord = {
      workspace: this.#workspace,
      seq,
      type: draft.type,
      at: this.now,
      entryId: draft.entryId ?? null,
      outcome: draft.outcome ?? null,
      edge: draft.edge ?? null,
      data: draft.data ?? null,
    };
    this.events.push(record);
    return record;
  }

  #need(): Counters {
    if (!this.#counters) throw new Error('a planned write that adds entries or events must declare its reads');
    return this.#counters;
  }
}

/**
 * Runs `write.decide` on a fresh plan; when it throws, the counters are put back, so that
 * what the failed write allocated is not a gap in the event log.
 */
export function decidePlan<T>(
  write: PlannedWrite<T>,
  plan: { workspace: string; now: number; counters: Counters | null },
  answers: readonly ResultSet[],
): { plan: Plan; value: T } {
  const saved = plan.counters ? { ...plan.counters } : null;
  const p = new Plan(plan.workspace, plan.now, plan.counters);
  try {
    return { plan: p, value: write.decide(p, answers) };
  } catch (error) {
    if (saved && plan.counters) Object.assign(plan.counters, saved);
    throw error;
  }
}

/**
 * Whether a group's COMMIT went through although its answer was lost: its events, each with
 * the seq it was written with, are in the log exactly as written. A group is one atomic
 * batch, so when its events landed everything else of it did too. Asked on a fresh
 * request; a group without events cannot be told and counts as not landed.
 */
export async function eventsLanded(client: Client, events: readonly MemoryEventRecord[]): Promise<boolean> {
  if (events.length === 0) return false;
  const result = await client.execute({
    sql: 'SELECT seq, type, at, entry_id, outcome, edge, data FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq',
    args: [events[0]!.seq, events.at(-1)!.seq],
  });
  if (result.rows.length !== events.length) return false;
  return events.every((event, i) => {
    const row = result.rows[i]!;
    const want = eventToRow(event, event.at);
    return (
      Number(row.seq) === event.seq &&
      row.type === want.type &&
      Number(row.at) === want.at &&
      (row.entry_id ?? null) === want.entryId &&
      (row.outcome ?? null) === want.outcome &&
      (row.edge ?? null) === want.edge &&
      (row.data ?? null) === want.data
    );
  });
}
