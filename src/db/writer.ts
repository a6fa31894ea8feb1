import { sql } from 'drizzle-orm';
import type { EventDraft, MemoryEventRecord } from '../events/types.ts';
import type { Db, RootDb } from './client.ts';

/** What a write function gets: the transaction, its clock, and a way to log events. */
export interface WriteScope {
  db: Db;
  /** One timestamp per write, so every row it touches agrees. */
  now: number;
  /** Appends an event row inside the write's transaction; published only after commit. */
  emit(draft: EventDraft): Promise<MemoryEventRecord>;
}

export type WriteFn<T> = (scope: WriteScope) => Promise<T>;

interface Job<T> {
  fn: WriteFn<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

interface Done {
  job: Job<unknown>;
  ok: boolean;
  value?: unknown;
  error?: unknown;
  events: MemoryEventRecord[];
}

export interface WriterOptions {
  workspace: string;
  /** Called with each committed batch's events, in seq order, after COMMIT returns. */
  onCommit: (events: MemoryEventRecord[]) => void;
  /** At most this many queued writes share one transaction (one fsync). */
  maxBatch?: number;
  clock?: () => number;
}

/**
 * The single writer of one workspace database. Writes queue up; the writer takes
 * every write waiting at that moment (group commit), runs each inside its own
 * SAVEPOINT of one transaction so that a failing write rolls back alone, commits
 * once, and only then settles each caller and publishes the events. Reads never
 * go through here and run beside it on other pooled connections (WAL).
 */
export class Writer {
  readonly #db: RootDb;
  readonly #opts: Required<Omit<WriterOptions, 'clock'>> & { clock: () => number };
  #queue: Job<unknown>[] = [];
  #running: Promise<void> | null = null;
  #closed = false;

  constructor(db: RootDb, opts: WriterOptions) {
    this.#db = db;
    this.#opts = { ...opts, maxBatch: opts.maxBatch ?? 64, clock: opts.clock ?? Date.now };
  }

  /** Number of writes waiting for the writer (a gauge for /metrics). */
  get depth(): number {
    return this.#queue.length;
  }

  /** Queues a write; resolves with its result once its transaction has committed. */
  run<T>(fn: WriteFn<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('the workspace writer is closed'));
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, resolve, reject } as Job<unknown>);
      if (!this.#running) this.#running = this.#drainSoon();
    });
  }

  /** Stops taking writes and waits for every queued one to finish. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#running) await this.#running;
  }

  /**
   * libSQL runs statements synchronously, so a transaction started at once would run to
   * its COMMIT before any other request is even read. Waiting one turn of the event loop
   * lets the writes of requests that have already arrived join the same transaction, and
   * the same after every commit.
   */
  async #drainSoon(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        await new Promise((resolve) => setImmediate(resolve));
        const batch = this.#queue.splice(0, this.#opts.maxBatch);
        await this.#commitBatch(batch);
      }
    } finally {
      this.#running = null;
    }
  }

  async #commitBatch(batch: Job<unknown>[]): Promise<void> {
    const done: Done[] = [];
    try {
      await this.#db.transaction(async (tx) => {
        for (const job of batch) {
          const events: MemoryEventRecord[] = [];
          const now = this.#opts.clock();
          try {
            // A nested drizzle transaction is a SAVEPOINT: a failing write undoes only itself.
            const value = await tx.transaction(async (sp) => {
              const scope: WriteScope = { db: sp, now, emit: (draft) => this.#append(sp, draft, now, events) };
              return job.fn(scope);
            });
            done.push({ job, ok: true, value, events });
          } catch (error) {
            done.push({ job, ok: false, error, events: [] });
          }
        }
      });
    } catch (error) {
      // The commit itself failed (disk full, read-only, I/O error): nothing of the batch is durable.
      for (const job of batch) job.reject(error);
      return;
    }
    const published: MemoryEventRecord[] = [];
    for (const d of done) {
      if (d.ok) {
        published.push(...d.events);
        d.job.resolve(d.value);
      } else {
        d.job.reject(d.error);
      }
    }
    if (published.length > 0) {
      try {
        this.#opts.onCommit(published);
      } catch {
        // Subscribers recover from the event log; a publishing fault must not fail committed writes.
      }
    }
  }

  async #append(db: Db, draft: EventDraft, at: number, into: MemoryEventRecord[]): Promise<MemoryEventRecord> {
    const result = await db.run(sql`
      INSERT INTO events (type, at, entry_id, outcome, edge, data)
      VALUES (${draft.type}, ${at}, ${draft.entryId ?? null}, ${draft.outcome ?? null},
              ${draft.edge ? JSON.stringify(draft.edge) : null}, ${draft.data ? JSON.stringify(draft.data) : null})`);
    // seq is the rowid alias, so the new row's rowid is its seq.
    const seq = Number(result.lastInsertRowid);
    const record: MemoryEventRecord = {
      workspace: this.#opts.workspace,
      seq,
      type: draft.type,
      at,
      entryId: draft.entryId ?? null,
      outcome: draft.outcome ?? null,
      edge: draft.edge ?? null,
      data: draft.data ?? null,
    };
    into.push(record);
    return record;
  }
}
