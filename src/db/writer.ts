import type { Client, InStatement, InValue, ResultSet, Transaction } from '@libsql/client';
import { DomainError } from '../contract/errors.ts';
import type { EventDraft, MemoryEventRecord } from '../contract/events.ts';
import { type Db, drizzleFor, type QueryListener } from './client.ts';
import { LocalClient, type WriteChannel, WriteThreadError } from './local-client.ts';
import { eventToRow } from './mappers.ts';
import {
  ANY_KEY,
  COUNTERS_SQL,
  type Counters,
  countersFrom,
  countersResult,
  decidePlan,
  eventsLanded,
  guardSql,
  nothingFound,
  type Plan,
  type PlannedWrite,
} from './planned-write.ts';

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
  /** Runs a planned write as part of this one: its reads, then its statements and events. */
  apply<T>(write: PlannedWrite<T>): Promise<T>;
}

export type WriteFn<T> = (scope: WriteScope) => Promise<T>;

interface Job<T> {
  fn: WriteFn<T> | null;
  planned: PlannedWrite<T> | null;
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

/** A pipelined group after its first request: its transaction, and each write decided (or why that request failed). */
interface OpenedGroup {
  jobs: Job<unknown>[];
  tx: Transaction | null;
  done: (Done & { plan?: Plan })[];
  /** The rowids in use once its writes are in, when it read them. */
  counters?: Counters | null;
  failure?: { error: unknown };
}

/** Each write of a group as decided, and the rowids in use after them (null without reads). */
interface DecidedGroup {
  done: (Done & { plan?: Plan })[];
  counters: Counters | null;
}

/** A group decided on a guess, and the statement that checks it. */
interface GuessedGroup extends DecidedGroup {
  counters: Counters;
  guard: InStatement;
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
  /**
   * Send a group of planned writes as two requests (reads, then every statement and the
   * COMMIT) instead of a statement at a time: for a hosted database, where every request
   * is a network round trip.
   */
  pipelined?: boolean;
  /**
   * Decide a group of captures of new content on a guess that a guard checks, instead of
   * waiting for its reads (see #decideGuessed): with `pipelined`, the group is one request
   * instead of two; on the write thread, it is decided while the group before it is still
   * being written, and sent as one call. On by default; off, every group with reads waits
   * for them.
   */
  guess?: boolean;
  /**
   * On an embedded file, run the SQL of groups of planned writes on the write thread (see
   * WriteChannel) rather than on the thread that serves requests. On by default.
   */
  offThread?: boolean;
}

/**
 * Planned writes sharing one pipelined group: it costs two requests whatever its size, so
 * only the size of a request bounds it, far inside the hosted database's 5-second limit.
 */
const PIPELINED_GROUP_MAX = 64;

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
  readonly #opts: Required<Omit<WriterOptions, 'clock' | 'onQuery' | 'offThread' | 'guess'>> & { clock: () => number };
  readonly #guess: boolean;
  /** Whether groups of planned writes go to the write thread; the channel is opened by the first. */
  readonly #offThread: boolean;
  #channel: WriteChannel | null = null;
  /** Settles, in order, the groups sent to the write thread; null once they all are. */
  #onThread: Promise<void> | null = null;
  /** A group whose statement failed on the write thread: it runs again a write per savepoint. */
  #threadRetry: Job<unknown>[] | null = null;
  /** Groups sent to the write thread on a guess that their guard refused: they go back to the head of the queue, in order. */
  #guessedAgain: Job<unknown>[] = [];
  readonly #prepared = new Map<(db: Db) => unknown, unknown>();
  #queue: Job<unknown>[] = [];
  /** Wakes the writer waiting for a write (see #arrival). */
  #wake: (() => void) | null = null;
  #woken: Promise<void> | null = null;
  #running: Promise<void> | null = null;
  /** True while a pipelined group's COMMIT request is on its way: the next group may open meanwhile. */
  #committing = false;
  /** The next group, opened while the one before it commits. */
  #next: Promise<OpenedGroup> | null = null;
  /** The rowids in use after this writer's last commit, or null when it cannot know them (see #commitGuessed). */
  #known: Counters | null = null;
  /** Groups to send the usual way before guessing again, after a guess failed; and how many the next failure costs. */
  #guessPause = 0;
  #guessPenalty = 0;
  #closed = false;

  constructor(client: Client, opts: WriterOptions) {
    this.#client = client;
    this.#db = drizzleFor(this.#open as unknown as Client, opts.onQuery);
    this.#opts = {
      workspace: opts.workspace,
      onCommit: opts.onCommit,
      maxBatch: opts.maxBatch ?? 64,
      clock: opts.clock ?? Date.now,
      pipelined: opts.pipelined ?? false,
    };
    this.#offThread = !this.#opts.pipelined && (opts.offThread ?? true) && client instanceof LocalClient;
    this.#guess = (this.#opts.pipelined || this.#offThread) && (opts.guess ?? true);
  }

  /** Number of writes waiting for the writer (a gauge for /metrics). */
  get depth(): number {
    return this.#queue.length;
  }

  /** Nothing queued and no transaction open: the database can be closed without losing a write. */
  get idle(): boolean {
    return this.#running === null && this.#queue.length === 0;
  }

  /**
   * Queues a write, a function or a planned write (see PlannedWrite); resolves with its
   * result once its transaction has committed.
   */
  run<T>(work: WriteFn<T> | PlannedWrite<T>): Promise<T> {
    return this.#enqueue(typeof work === 'function' ? { fn: work, planned: null } : { fn: null, planned: work });
  }

  #enqueue<T>(work: Pick<Job<T>, 'fn' | 'planned'>): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('the workspace writer is closed'));
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ ...work, resolve, reject } as Job<unknown>);
      this.#wake?.();
      if (!this.#running) this.#running = this.#drainSoon();
    });
  }

  /** Resolves when the next write is queued. */
  #arrival(): Promise<void> {
    this.#woken ??= new Promise<void>((resolve) => {
      this.#wake = () => {
        this.#wake = null;
        this.#woken = null;
        resolve();
      };
    });
    return this.#woken;
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
      while (
        this.#queue.length > 0 ||
        this.#next ||
        this.#onThread ||
        this.#threadRetry ||
        this.#guessedAgain.length > 0
      ) {
        const next = this.#next;
        this.#next = null;
        if (next) {
          let group = await next;
          // Sent early, it may have met a fault of the group before it (a restart, a dropped
          // connection); it wrote nothing, so it is sent once more, as it would have been only now.
          if (group.failure && isTransportFailure(group.failure.error)) group = await this.#openGroup(group.jobs);
          await this.#commitPipelined(group);
          continue;
        }
        if (this.#queue.length === 0) {
          // A write that arrives while groups are on the write thread goes right behind them
          // instead of waiting for them to be synced and settled.
          if (this.#onThread && !this.#threadRetry) await Promise.race([this.#onThread, this.#arrival()]);
          if (this.#queue.length === 0) await this.#afterThread();
          continue;
        }
        await new Promise((resolve) => setImmediate(resolve));
        const planned = this.#takePipelined();
        if (planned.length > 0 && this.#opts.pipelined) {
          if (!(await this.#commitGuessed(planned))) await this.#commitPipelined(await this.#openGroup(planned));
        } else if (planned.length > 0) await this.#commitOnThread(planned);
        else await this.#afterThread().then(() => this.#commitBatch(this.#queue.splice(0, this.#opts.maxBatch)));
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
    // A write function adds rows with the rowids SQLite picks: what comes after is not known here.
    this.#known = null;
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
    this.#settle(done);
  }

  /** Settles each caller of a committed group, then publishes the group's events. */
  #settle(done: Done[]): void {
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
      apply: (write) => this.#runPlanned(tx, write, now, events),
    };
    await tx.execute('SAVEPOINT write');
    try {
      const value = job.planned ? await this.#runPlanned(tx, job.planned, now, events) : await job.fn!(scope);
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

  /** A planned write on its own, inside its savepoint: its reads, then its statements. */
  async #runPlanned<T>(tx: Transaction, write: PlannedWrite<T>, now: number, into: MemoryEventRecord[]): Promise<T> {
    const reads = write.reads === undefined ? [] : await tx.batch([COUNTERS_SQL, ...write.reads]);
    const counters = reads.length > 0 ? countersFrom(reads[0]!) : null;
    const { plan, value } = decidePlan(write, { workspace: this.#opts.workspace, now, counters }, reads.slice(1));
    if (plan.statements.length > 0) await tx.batch(plan.statements);
    into.push(...plan.events);
    return value;
  }

  /**
   * The planned writes at the head of the queue that can share a pipelined group: at most
   * PIPELINED_GROUP_MAX, up to the first that is not planned or that shares a key with one
   * taken (it must read what that one writes).
   */
  #takePipelined(): Job<unknown>[] {
    if (!this.#opts.pipelined && !this.#offThread) return [];
    const keys = new Set<string>();
    let count = 0;
    for (const job of this.#queue) {
      if (!job.planned || count >= PIPELINED_GROUP_MAX) break;
      const own = job.planned.keys ?? [];
      if (count > 0 && (keys.has(ANY_KEY) || own.includes(ANY_KEY) || own.some((k) => keys.has(k)))) break;
      for (const k of own) keys.add(k);
      count++;
    }
    return this.#queue.splice(0, count);
  }

  /**
   * A group of planned writes in two requests: BEGIN IMMEDIATE with every read (and the
   * rowids in use), then every statement of every write and COMMIT, chained so that nothing
   * after a failure runs; a group without reads is one atomic batch. A write that refuses
   * (its decide throws) is left out. When a statement fails, the group is rolled back and
   * run again a write per savepoint, so the failing write fails alone as in any group. When
   * the connection fails while COMMIT may have run, a fresh request asks whether the
   * group's events are in the log, and the group is acknowledged if they are.
   *
   * While the COMMIT request is on its way, the next group's first request is sent too
   * (see #openNextSoon): the database runs its BEGIN IMMEDIATE only once this group's
   * transaction has ended, so its reads see everything this group wrote, and the write
   * lock passes from one group to the next a round trip sooner.
   */
  async #commitPipelined(group: OpenedGroup): Promise<void> {
    const { jobs, tx, done } = group;
    let sent = false;
    try {
      if (group.failure) throw group.failure.error;
      const statements = done.flatMap((d) => d.plan?.statements ?? []);
      sent = statements.length > 0;
      if (!sent) {
        await tx?.rollback();
      } else if (tx) {
        const committed = tx.batch([...statements, 'COMMIT']);
        this.#committing = true;
        if (this.#queue.length > 0) this.#openNextSoon();
        await committed;
        tx.close();
      } else {
        await this.#client.batch(statements, 'write');
      }
    } catch (error) {
      this.#committing = false;
      this.#known = null;
      if (!isTransportFailure(error)) {
        // A statement failed: undo what ran before it, then find the failing write.
        await tx?.rollback().catch(() => undefined);
        await this.#requeueNext();
        await this.#commitBatch(jobs);
        return;
      }
      tx?.close();
      const events = done.flatMap((d) => d.events);
      if (!sent || !(await eventsLanded(this.#client, events).catch(() => false))) {
        for (const job of jobs) job.reject(error);
        return;
      }
    } finally {
      this.#committing = false;
    }
    if (group.counters) this.#known = { ...group.counters };
    this.#settle(done);
  }

  /**
   * A group of captures of new content (see PlannedWrite.usuallyFindsNothing) in one request
   * instead of two: decided as if every read found nothing, on the rowids this writer's last
   * commit left in use, and sent as one atomic batch behind a guard that fails unless both
   * still hold, so that it is written on exactly the state it was decided on, or not at all.
   * Answers false when the group cannot be guessed, or when the guard (or a statement) failed
   * and the batch was rolled back: the group then goes the usual way, and so do the next 1,
   * 2, 4, … 32 groups after consecutive failures, so that duplicates or another writer of the
   * database cost a few requests, not one per group. A lost answer is settled as in
   * #commitPipelined: the group's events in the log tell whether it landed.
   */
  async #commitGuessed(jobs: Job<unknown>[]): Promise<boolean> {
    const guessed = await this.#decideGuessed(jobs);
    if (!guessed) return false;
    const { done, counters, guard } = guessed;
    const statements = done.flatMap((d) => d.plan?.statements ?? []);
    this.#known = null;
    try {
      await this.#client.batch([guard, ...statements], 'write');
    } catch (error) {
      if (!isTransportFailure(error)) {
        this.#guessFailed();
        return false;
      }
      if (
        !(await eventsLanded(
          this.#client,
          done.flatMap((d) => d.events),
        ).catch(() => false))
      ) {
        for (const job of jobs) job.reject(error);
        return true;
      }
    }
    this.#known = counters;
    this.#guessPenalty = 0;
    this.#settle(done);
    return true;
  }

  /**
   * A group decided on a guess: every read found nothing, on the rowids the writer's last
   * group left in use (#known), with the guard that fails unless both still hold. Null when
   * the group cannot be guessed: rowids unknown, a write whose reads usually find something,
   * a refusal, nothing written, or a pause after guesses failed (see #commitGuessed). The
   * group must add events: a guessed group sent behind one that fails on the write thread
   * then always fails its guard too, as that one's events are missing, and nothing is
   * written out of order.
   */
  async #decideGuessed(jobs: Job<unknown>[]): Promise<GuessedGroup | null> {
    const known = this.#known;
    if (!this.#guess || !known || !jobs.every((j) => j.planned!.usuallyFindsNothing || j.planned!.reads === undefined))
      return null;
    if (this.#guessPause > 0) {
      this.#guessPause--;
      return null;
    }
    const guard = guardSql(
      known,
      jobs.flatMap((j) => j.planned!.reads ?? []),
    );
    if (!guard) return null;
    const guess = {
      batch: async (reads: InStatement[]) => [countersResult(known), ...reads.slice(1).map(nothingFound)],
    };
    const decided = await this.#decideGroup(guess, jobs);
    if (decided.done.some((d) => !d.ok) || !decided.done.some((d) => d.events.length > 0)) return null;
    return { ...decided, counters: decided.counters!, guard };
  }

  /** A guard failed: the next 1, 2, 4, … 32 groups after consecutive failures go the usual way. */
  #guessFailed(): void {
    this.#guessPenalty = Math.min(32, Math.max(1, this.#guessPenalty * 2));
    this.#guessPause = this.#guessPenalty;
  }

  /**
   * A group of planned writes on the write thread, in two calls as a pipelined group: BEGIN
   * IMMEDIATE with every read, then every statement and COMMIT, answered once the commit is
   * on disk. The second call is not awaited: the next group's reads run on the thread while
   * this group's log is synced, and see what it wrote (the thread runs calls in order).
   * Groups are settled in order (#afterThread). When a read or a statement fails, the thread
   * has rolled the group back and it runs again here a write per savepoint, so that the
   * failing write fails alone, after the group before it; a group opened meanwhile read too
   * soon and goes back to the head of the queue. A COMMIT or a sync that fails fails its
   * whole group, as in #commitBatch.
   *
   * A group of captures of new content is decided on a guess instead and sent as one call
   * (see #sendGuessed), without waiting for anything: the thread writes it right behind the
   * group before it, while this thread decides the next.
   */
  async #commitOnThread(jobs: Job<unknown>[]): Promise<void> {
    if (!this.#channel || this.#channel.stopped) this.#channel = (this.#client as LocalClient).writeThread();
    const channel = this.#channel;
    const guessed =
      channel && !this.#threadRetry && this.#guessedAgain.length === 0 ? await this.#decideGuessed(jobs) : null;
    if (channel && guessed) return this.#sendGuessed(channel, jobs, guessed);
    const withReads = jobs.some((j) => j.planned!.reads !== undefined);
    // Without reads its decisions wait for nothing, so it goes once the group before it is
    // settled, behind any group that goes back to the queue then.
    if (!channel || !withReads) {
      const back = await this.#afterThread();
      if (back > 0) return void this.#queue.splice(back, 0, ...jobs);
    }
    if (!channel) return this.#commitBatch(jobs);
    let decided: DecidedGroup;
    try {
      decided = await this.#decideGroup(withReads ? threadReads(channel) : null, jobs);
    } catch (error) {
      const back = await this.#afterThread();
      if (!(error instanceof WriteThreadError)) for (const job of jobs) job.reject(error);
      else if (back > 0) this.#queue.splice(back, 0, ...jobs);
      else await this.#commitBatch(jobs);
      return;
    }
    if (this.#threadRetry || this.#guessedAgain.length > 0) {
      if (withReads) await channel.run(['ROLLBACK']).catch(() => undefined);
      this.#queue.unshift(...jobs);
      await this.#afterThread();
      return;
    }
    const { done, counters } = decided;
    const statements = done.flatMap((d) => d.plan?.statements ?? []);
    // What the next group may be guessed on: the rowids in use once this one is in, if a
    // failure of this one would show in them (see #decideGuessed).
    this.#known =
      counters && (statements.length === 0 || done.some((d) => d.events.length > 0)) ? { ...counters } : null;
    const call = withReads ? [...statements, 'COMMIT'] : ['BEGIN IMMEDIATE', ...statements, 'COMMIT'];
    const committed = statements.length > 0 ? channel.run(call) : channel.run(withReads ? ['ROLLBACK'] : []);
    const before = this.#onThread;
    this.#onThread = committed.then(
      async () => {
        await before;
        this.#settle(done);
      },
      async (error: unknown) => {
        // Known before the next group's reads are answered, so that group sees it.
        this.#known = null;
        const retry = error instanceof WriteThreadError && error.at < call.length - 1;
        if (retry) this.#threadRetry = jobs;
        await before;
        if (!retry) for (const job of jobs) job.reject(error);
      },
    );
  }

  /**
   * A guessed group in one call to the write thread: BEGIN IMMEDIATE, the guard, every
   * statement, COMMIT. When the guard refuses (the guess was wrong: a duplicate, another
   * writer of the file, or a group before it that failed), nothing of it was written and
   * it goes back to the queue to be read first; a statement that fails makes it run again
   * a write per savepoint, as any group's.
   */
  #sendGuessed(channel: WriteChannel, jobs: Job<unknown>[], { done, counters, guard }: GuessedGroup): void {
    const statements = done.flatMap((d) => d.plan?.statements ?? []);
    const call = ['BEGIN IMMEDIATE', guard, ...statements, 'COMMIT'];
    this.#known = { ...counters };
    const committed = channel.run(call);
    const before = this.#onThread;
    this.#onThread = committed.then(
      async () => {
        await before;
        this.#guessPenalty = 0;
        this.#settle(done);
      },
      async (error: unknown) => {
        // Known before the next group's reads are answered, as in #commitOnThread.
        this.#known = null;
        const at = error instanceof WriteThreadError ? error.at : call.length;
        if (at <= 1) {
          this.#guessedAgain.push(...jobs);
          this.#guessFailed();
        } else if (at < call.length - 1) this.#threadRetry = jobs;
        await before;
        if (at >= call.length - 1) for (const job of jobs) job.reject(error);
      },
    );
  }

  /**
   * Waits until every group sent to the write thread is settled; then runs the group whose
   * statement failed there again on this thread, and puts the groups whose guard refused
   * back at the head of the queue (see #commitOnThread). Answers how many writes went back.
   */
  async #afterThread(): Promise<number> {
    while (this.#onThread) {
      const pending = this.#onThread;
      await pending;
      if (this.#onThread === pending) this.#onThread = null;
    }
    const retry = this.#threadRetry;
    this.#threadRetry = null;
    if (retry) await this.#commitBatch(retry);
    const again = this.#guessedAgain.splice(0);
    this.#queue.unshift(...again);
    return again.length;
  }

  /** A pipelined group's first request; it never rejects: a failure is kept for #commitPipelined. */
  async #openGroup(jobs: Job<unknown>[]): Promise<OpenedGroup> {
    let tx: Transaction | null = null;
    try {
      if (jobs.some((j) => j.planned!.reads !== undefined)) tx = await this.#client.transaction('write');
      return { jobs, tx, ...(await this.#decideGroup(tx, jobs)) };
    } catch (error) {
      return { jobs, tx, done: [], failure: { error } };
    }
  }

  /**
   * Opens the next group while the current one commits, with the writes already waiting and
   * those arriving in the same turn of the event loop. Writes arriving later wait for the
   * group after it rather than each opening a small one: under load, requests (and the CPU
   * each costs on both ends) per write matter as much as round trips. Only a group with
   * reads: its BEGIN IMMEDIATE is what makes the database hold it until the current group's
   * transaction has ended.
   */
  #openNextSoon(): void {
    setImmediate(() => {
      if (!this.#committing || this.#next || !this.#queue[0]?.planned?.reads) return;
      const jobs = this.#takePipelined();
      if (jobs.length > 0) this.#next = this.#openGroup(jobs);
    });
  }

  /**
   * The current group's writes run again one by one, so the next group, opened early, read
   * too soon: its transaction is ended and its writes go back to the head of the queue.
   */
  async #requeueNext(): Promise<void> {
    const next = this.#next;
    this.#next = null;
    if (!next) return;
    const group = await next;
    await group.tx?.rollback().catch(() => undefined);
    group.tx?.close();
    this.#queue.unshift(...group.jobs);
  }

  /** The first request of a pipelined group: its reads, answered under the write lock; then each write decided. */
  async #decideGroup(tx: GroupReads | null, jobs: Job<unknown>[]): Promise<DecidedGroup> {
    const reads = jobs.flatMap((j) => j.planned!.reads ?? []);
    const answers = tx ? await tx.batch([COUNTERS_SQL, ...reads]) : [];
    const counters: Counters | null = answers.length > 0 ? countersFrom(answers[0]!) : null;
    let at = 1;
    const done = jobs.map((job) => {
      const write = job.planned!;
      const mine = answers.slice(at, at + (write.reads?.length ?? 0));
      at += write.reads?.length ?? 0;
      try {
        const now = this.#opts.clock();
        const { plan, value } = decidePlan(write, { workspace: this.#opts.workspace, now, counters }, mine);
        return { job, ok: true, value, events: plan.events, plan };
      } catch (error) {
        return { job, ok: false, error, events: [] };
      }
    });
    return { done, counters };
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

/** Where a group's first request goes: the open transaction, or the write thread. */
type GroupReads = Pick<Transaction, 'batch'>;

/** The first call of a group on the write thread, as #decideGroup sends it: BEGIN IMMEDIATE and the reads. */
function threadReads(channel: WriteChannel): GroupReads {
  return { batch: async (stmts: InStatement[]) => (await channel.run(['BEGIN IMMEDIATE', ...stmts])).slice(1) };
}

/** A failure on the way to or from a hosted database (the remote client turns them into UNAVAILABLE), not in SQL. */
function isTransportFailure(error: unknown): boolean {
  return error instanceof DomainError && error.code === 'UNAVAILABLE';
}
