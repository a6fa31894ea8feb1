import type { Freshness } from '../contract/enums.ts';
import type { EntryRow } from '../db/schema.ts';
import type { Writer } from '../db/writer.ts';
import { freshnessOf, isOverAge } from './model.ts';

/**
 * How long read-side bookkeeping may wait before it is written (the contract allows up to
 * 1 s). Every commit makes each reader connection of the workspace (a reader thread holds
 * several: see LocalClientOptions.lanes) read its pages afresh, so recalls' counts are
 * written in fewer, larger statements.
 */
const FLUSH_DELAY_MS = 250;

/**
 * What the bookkeeper writes: each finds its few rows by id. (The unary + keeps SQLite off
 * the status index: through it, marking a few entries STALE read every ACTIVE entry, 75 ms
 * at 100k on the write thread every workspace shares.)
 */
export const BOOKKEEPING_SQL = {
  recalled: 'UPDATE entries SET recall_count = recall_count + ? WHERE id IN (SELECT value FROM json_each(?))',
  stale: "UPDATE entries SET status = 'STALE' WHERE id IN (SELECT value FROM json_each(?)) AND +status = 'ACTIVE'",
} as const;

/**
 * Writes that reads cause (recall_count + 1, lazy STALE marking) emit no event and
 * must not slow the read down: they are collected and written through the workspace
 * writer shortly after, many reads' worth in one statement.
 */
export class Bookkeeper {
  readonly #writer: Writer;
  #recalled = new Map<string, number>();
  #stale = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #pending: Promise<void> = Promise.resolve();

  constructor(writer: Writer) {
    this.#writer = writer;
  }

  /** Nothing collected and nothing waiting to be written (a flush in progress keeps the writer busy). */
  get idle(): boolean {
    return this.#timer === null && this.#recalled.size === 0 && this.#stale.size === 0;
  }

  /** Counts one more recall for each id. */
  recalled(ids: readonly string[]): void {
    if (ids.length === 0) return;
    for (const id of ids) this.#recalled.set(id, (this.#recalled.get(id) ?? 0) + 1);
    this.#schedule();
  }

  /** Marks ids STALE if they are still ACTIVE (a read found them past their volatility limit). */
  stale(ids: readonly string[]): void {
    if (ids.length === 0) return;
    for (const id of ids) this.#stale.add(id);
    this.#schedule();
  }

  /** Writes whatever is collected now; resolves once it has committed. */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const recalled = this.#recalled;
    const stale = [...this.#stale];
    this.#recalled = new Map();
    this.#stale = new Set();
    if (recalled.size === 0 && stale.length === 0) return this.#pending;
    this.#pending = this.#writer
      .run({
        // No reads: a hosted database takes the whole flush as one request.
        decide(plan) {
          // Group ids by increment so that one statement covers each group.
          const byCount = new Map<number, string[]>();
          for (const [id, count] of recalled) byCount.set(count, [...(byCount.get(count) ?? []), id]);
          for (const [count, ids] of byCount) {
            plan.run(BOOKKEEPING_SQL.recalled, [count, JSON.stringify(ids)]);
          }
          if (stale.length > 0) plan.run(BOOKKEEPING_SQL.stale, [JSON.stringify(stale)]);
        },
      })
      .catch(() => {
        // Bookkeeping is best effort: a failed flush (e.g. disk full) loses only counters.
      });
    return this.#pending;
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush();
    }, FLUSH_DELAY_MS);
    this.#timer.unref();
  }
}

/**
 * An entry's freshness as a read reports it (freshnessOf). A read that finds an ACTIVE
 * entry past its volatility limit also has it marked STALE (lazy staleness), through the
 * bookkeeper, so that the read itself never waits on a write.
 */
export function readFreshness(
  bookkeeper: Pick<Bookkeeper, 'stale'>,
  entry: Pick<EntryRow, 'id' | 'status' | 'volatility' | 'updatedAt'>,
  now: number,
  superseded: boolean,
): Freshness {
  if (isOverAge(entry, now)) bookkeeper.stale([entry.id]);
  return freshnessOf(entry, superseded, now);
}
