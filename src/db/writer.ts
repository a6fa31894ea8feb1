import type { Client, InValue, ResultSet, Transaction } from '@libsql/client';
import type { EventDraft, MemoryEventRecord } from '../contract/events.ts';
import { type Db, drizzleFor, type QueryListener } from './client.ts';
import { eventToRow } from './mappers.ts';

/** What a write function gets: the transaction, its clock, and a way to log events. */
export interface WriteScope {
  /** drizzle over the writer's open transaction. */
  db: Db;
  /** One timestamp per write, so every row it touches agrees. */
  now: number;
  /** Appends an event row inside the write's transaction; published only after commit. */
  emit(draft: EventDraft): Promise<MemoryEventRecord>;
  /** Runs plain SQL in the write's transaction (hot paths skip the query builder). */
  exec(sql: string, args?: InValue[]): Promise<ResultSet>;
  /**
   * The query `build` makes, built once per writer and reused for every later write: a
   * drizzle prepared query over the writer's database keeps its SQL and its row mapping.
   */
  prepared<T>(build: (db: Db) => T): T;
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
  /** Receives every statement drizzle runs for a write. */
  onQuery?: QueryListener;
}

const INSERT_EVENT = 'INSERT INTO events (type, at, entry_id, outcome, edge, data) VALUES (?, ?, ?, ?, ?, ?)';

/**
 * The one transaction the writer has open, as a `Client` for drizzle: every statement of
 * a write function goes into it. It is never a way to open another transaction.
 */
class OpenTransaction {
  current: Transaction | null = null;

  #tx(): Transaction {
    if (!this.current) throw new Error("a write ran outside the writer's transaction");
    return this.current;
  }
  execute(stmt: Parameters<Transaction['execute']>[0]): Promise<ResultSet> {
    return this.#tx().execute(stmt);
  }
  batch(stmts: Parameters<Transaction['batch']>[0]): Promise<ResultSet[]> {
    return this.#tx().batch(stmts);
  }
  transaction(): never {
    throw new Error("a write already runs in the writer's transaction; it cannot open another");
  }
}

/**
 * The single writer of one workspace database. Writes queue up; the writer takes
 * every write waiting at that moment (group commit), runs each inside its own
 * SAVEPOINT of one transaction so that a failing write rolls back alone, commits
 * once, and only then settles each caller and publishes the events. Reads never
 * go through here and run beside it on other pooled connections (WAL).
 */
export class Writer {
  readonly #client: Client;
  readonly #open = new OpenTransaction();
  readonly #db: Db;
  readonly #opts: Required<Omit<WriterOptions, 'clock' | 'onQuery'>> & { clock: () => number };
  readonly #prepared = new Map<(db: Db) => unknown, unknown>();
  #queue: Job<unknown>[] = [];
  #running: Promise<void> | null = null;
  #closed = false;

  constructor(client: Client, opts: WriterOptions) {
    this.#client = client;
    this.#db = drizzleFor(this.#open as unknown as Client, opts.onQuery);
    this.#opts = {
      workspace: opts.workspace,
      onCommit: opts.onCommit,
      maxBatch: opts.maxBatch ?? 64,
      clock: opts.clock ?? Date.now,
    };
  }

  /** Number of writes waiting for the writer (a gauge for /metrics). */
  get depth(): number {
    return this.#queue.length;
  }

  /** Nothing queued and no transaction open: the database can be closed without losing a write. */
  get idle(): boolean {
    return this.#running === null && this.#queue.length === 0;
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

  #prepare<T>(build: (db: Db) => T): T {
    let query = this.#prepared.get(build) as T | undefined;
    if (query === undefined) {
      query = build(this.#db);
      this.#prepared.set(build, query);
    }
    return query;
  }

  /**
   * One transaction for the batch; each write in its own SAVEPOINT, so a failing write
   * rolls back alone and gets its own error; one COMMIT (one fsync); then each caller is
   * settled and the events are published, in that order.
   */
  async #commitBatch(batch: Job<unknown>[]): Promise<void> {
    const done: Done[] = [];
    let tx: Transaction | null = null;
    try {
      tx = await this.#client.transaction('write');
      this.#open.current = tx;
      for (const job of batch) done.push(await this.#runJob(tx, job));
      await tx.commit();
    } catch (error) {
      // BEGIN or COMMIT failed, or a write broke the transaction itself (disk full,
      // read-only, I/O error): nothing of the batch is durable.
      tx?.close();
      for (const job of batch) job.reject(error);
      return;
    } finally {
      this.#open.current = null;
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

  async #runJob(tx: Transaction, job: Job<unknown>): Promise<Done> {
    const events: MemoryEventRecord[] = [];
    const now = this.#opts.clock();
    const scope: WriteScope = {
      db: this.#db,
      now,
      emit: (draft) => this.#append(tx, draft, now, events),
      exec: (sql, args = []) => tx.execute({ sql, args }),
      prepared: (build) => this.#prepare(build),
    };
    await tx.execute('SAVEPOINT write');
    try {
      const value = await job.fn(scope);
      await tx.execute('RELEASE write');
      return { job, ok: true, value, events };
    } catch (error) {
      try {
        await tx.execute('ROLLBACK TO write');
        await tx.execute('RELEASE write');
      } catch {
        // The transaction itself is gone and the whole batch fails. The write's own error
        // says why (a dropped connection, a full disk); the rollback's only says "closed".
        throw error;
      }
      return { job, ok: false, error, events: [] };
    }
  }

  async #append(tx: Transaction, draft: EventDraft, at: number, into: MemoryEventRecord[]): Promise<MemoryEventRecord> {
    const row = eventToRow(draft, at);
    const result = await tx.execute({
      sql: INSERT_EVENT,
      args: [row.type, row.at, row.entryId, row.outcome, row.edge, row.data],
    });
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
