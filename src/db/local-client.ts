import { type FileHandle, open, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  type Client,
  type InArgs,
  type InStatement,
  type InValue,
  LibsqlError,
  type ResultSet,
  type Row,
  type Transaction,
  type TransactionMode,
} from '@libsql/client';
import Database from 'libsql';
import { DomainError, type ErrorCode } from '../contract/errors.ts';

/**
 * An embedded libSQL file behind the `Client` interface of @libsql/client, with one
 * difference that matters on every request: each connection keeps its prepared
 * statements. The stock local client prepares every statement afresh and probes each
 * one for whether it returns rows; a write of six statements spent more time there than
 * in SQLite. Statements are reused per connection (a statement is bound to the
 * connection that prepared it), and SQLite re-prepares a cached one by itself when a
 * migration changes the schema under it.
 *
 * Durability is the same as synchronous FULL, without its cost on the event loop: with
 * FULL, every COMMIT blocks the one JavaScript thread for an fsync (a quarter of a
 * capture's time). Here the connections run synchronous NORMAL in WAL mode, and every
 * call that wrote resolves only after an fdatasync of the write-ahead log, which runs on
 * libuv's thread pool and is shared by every write that reached the log before it
 * started (group sync). So nothing is acknowledged before it is on disk, exactly as with
 * FULL, and the event loop keeps serving requests meanwhile. (One difference: other
 * connections can read a commit during the milliseconds its sync is running.)
 *
 * Semantics follow @libsql/client's local client: a small pool of connections, a
 * transaction holds its connection until it settles, `batch` is atomic, integers come
 * back as numbers, errors are `LibsqlError`s with SQLite's base and extended codes.
 */

type Db = InstanceType<typeof Database>;
type Statement = ReturnType<Db['prepare']>;

interface Connection {
  db: Db;
  statements: Map<string, CachedStatement>;
  /** Shared by the client's connections: bumped by every schema change any of them makes. */
  schema: { version: number };
}

interface CachedStatement {
  stmt: Statement;
  reader: boolean;
  /** May change data: anything that returns no rows, and INSERT/UPDATE/DELETE … RETURNING. */
  writes: boolean;
  /** Changes the schema (CREATE, ALTER, DROP): the columns other statements return may change. */
  ddl: boolean;
  columns: string[] | null;
  makeRow: ((values: unknown[]) => Row) | null;
  /** The schema version `columns` was read at. */
  columnsAt: number;
}

const DDL = /^\s*(CREATE|ALTER|DROP)\b/i;
/** Every connection of a WAL database: see the class comment. */
const WAL_PRAGMAS = 'PRAGMA synchronous = NORMAL';
const RETURNING = /\bRETURNING\b/i;
/** Anywhere in a script run with exec(). */
const SCHEMA_CHANGE = /\b(CREATE|ALTER|DROP)\b/i;

/** Prepared statements kept per connection; the least recently used beyond this are dropped. */
const STATEMENT_CACHE = 256;

/** Statements a lane holds (see LocalClientOptions.lanes). */
const LANE_STATEMENTS = 4;
/** Lanes one client opens at most. */
const LANES_PER_CLIENT = 8;
/** A lane's page cache, in KiB: it caches only what its few statements read. */
const LANE_CACHE_KIB = 512;

const BEGIN: Record<TransactionMode, string> = { write: 'BEGIN IMMEDIATE', read: 'BEGIN', deferred: 'BEGIN DEFERRED' };

export interface LocalClientOptions {
  /** Path of the database file. */
  path: string;
  /**
   * How long a call waits, in milliseconds, for a lock another process holds (a CLI import
   * beside the server). It waits on timers, never in SQLite's busy handler, so the thread
   * stays free for everything else meanwhile.
   */
  timeout?: number;
  /** Connections in the pool (transactions hold one each). */
  concurrency?: number;
  /**
   * Reader threads (see ReaderPool) that run this client's reads outside a transaction;
   * 0 (the default) runs them on the calling thread.
   */
  readers?: number;
  /**
   * An open connection to read through instead of opening any (a reader thread's own, for a
   * task run there: see db/read-task.ts). Its owner closes it; this client never does.
   */
  connection?: Db;
  /**
   * With `connection`: reads outside a transaction run on read-only connections of this
   * client's own to the file, "lanes", each holding at most LANE_STATEMENTS of them,
   * opened as statements need them while the budget (shared by a reader thread's clients)
   * has room; the rest run on `connection`.
   *
   * Why: SQLite gives each connection a small allocator of its own (lookaside), and the
   * statements a connection holds prepared use it up; after some ten of them, every
   * allocation a running statement makes goes to the process-wide allocator, which takes
   * one lock for the whole process (libSQL is built with memory statistics on). Recall's
   * twenty-odd statements on one connection made ~27,000 such allocations per recall at
   * 100k entries, and two reader threads spent their time waiting for each other on that
   * lock. With four statements per connection they stay in each connection's own memory.
   */
  lanes?: LaneBudget;
}

/** Lanes the clients of one thread may hold open at once (see LocalClientOptions.lanes). */
export interface LaneBudget {
  open: number;
  readonly max: number;
}

/** Statements that only read: run on a reader thread when the client has them. */
const READ_ONLY = /^\s*(SELECT|WITH)\b/i;
const WRITE_WORD = /\b(INSERT|UPDATE|DELETE|REPLACE)\b/i;

function readOnly(sql: string): boolean {
  return READ_ONLY.test(sql) && !WRITE_WORD.test(sql);
}

function sqlOf(s: InStatement | [string, InArgs?]): string {
  return Array.isArray(s) ? s[0] : typeof s === 'string' ? s : s.sql;
}

function isBusy(error: unknown): boolean {
  const raw = (error as { rawCode?: unknown } | null)?.rawCode;
  return typeof raw === 'number' && (raw & 0xff) === 5;
}

/**
 * One fdatasync at a time for a file, shared: a caller joins the next sync that starts
 * after its call (a sync already running may have begun before the caller's write reached
 * the file), so any number of waiting writes cost at most two syncs.
 */
export class GroupSync {
  readonly #flush: () => Promise<void>;
  #running: Promise<void> | null = null;
  #queued: Promise<void> | null = null;
  /** Syncs run so far (for tests and metrics). */
  count = 0;

  constructor(flush: () => Promise<void>) {
    this.#flush = flush;
  }

  sync(): Promise<void> {
    if (this.#queued) return this.#queued;
    if (!this.#running) return this.#start();
    this.#queued = this.#running
      .catch(() => {})
      .then(() => {
        this.#queued = null;
        return this.#start();
      });
    return this.#queued;
  }

  #start(): Promise<void> {
    this.count++;
    const running = this.#flush().finally(() => {
      if (this.#running === running) this.#running = null;
    });
    this.#running = running;
    return running;
  }
}

function syncError(error: unknown): LibsqlError {
  return new LibsqlError(
    `could not sync the write-ahead log to disk: ${(error as Error).message}`,
    'SQLITE_IOERR',
    'SQLITE_IOERR_FSYNC',
    10 | (4 << 8),
    error as Error,
  );
}

export class LocalClient implements Client {
  closed = false;
  readonly protocol = 'file' as const;
  readonly #path: string;
  readonly #timeout: number;
  #max: number;
  #idle: Connection[] = [];
  readonly #borrowed = new Set<Connection>();
  #waiters: { resolve: (c: Connection) => void; reject: (e: unknown) => void }[] = [];
  readonly #schema = { version: 0 };
  /** Set in WAL mode: commits are synced off the event loop (see the class comment). */
  readonly #walSync: GroupSync | null;
  /**
   * Kept open: SQLite keeps the log file (same inode) while any connection is open, and
   * this client keeps its connections. Opening it for every sync would double the cost.
   */
  #wal: Promise<FileHandle> | null = null;
  #thread: WriteChannel | null = null;
  /**
   * Opened with `LocalClient.open` (the server's way): statements outside a transaction that
   * may write (a migration, a PRAGMA) run on a connection of their own on the write thread,
   * never on the calling thread (see #offLoopWrites).
   */
  readonly #writesOffLoop: boolean;
  #sideChannel: WriteChannel | null = null;
  readonly #readers: ReadChannels | null;
  readonly #adopted: Db | null;
  readonly #budget: LaneBudget | null;
  #lanes: Connection[] = [];
  /** Each statement's lane, by its SQL text. */
  readonly #homes = new Map<string, Connection>();
  /** The file the client opened (see probe). */
  #file: { dev: number; ino: number } | null = null;

  /**
   * A client whose first statement ran on the write thread: switching a new file to WAL
   * needs it to itself for a moment, and the first read of a file a crashed process left
   * behind recovers its log. Either may wait for another process's lock (a CLI import
   * beside the server), and here it waits on timers there, never on the calling thread.
   * `:memory:` has no file to wait for and is opened here.
   */
  static async open(opts: LocalClientOptions): Promise<LocalClient> {
    if (opts.path === ':memory:') return new LocalClient(opts);
    const channel = writeThread().channel(opts.path, opts.timeout ?? 5_000);
    try {
      const [result] = await channel.run(['PRAGMA journal_mode = WAL']);
      const client = new LocalClient(opts, { wal: result?.rows[0]?.[0] === 'wal', channel });
      // The file the connection just opened (it is created by then), for probe().
      const file = await stat(opts.path).catch((error: unknown) => {
        client.close();
        throw error;
      });
      client.#file = { dev: file.dev, ino: file.ino };
      return client;
    } catch (error) {
      channel.close();
      throw error;
    }
  }

  /**
   * Opens the file here, on the calling thread, which may wait for another process's
   * lock: the server opens workspaces with `LocalClient.open`.
   */
  constructor(opts: LocalClientOptions, opened?: { wal: boolean; channel: WriteChannel }) {
    this.#path = opts.path;
    this.#timeout = opts.timeout ?? 5_000;
    this.#max = Math.max(1, opts.concurrency ?? 4);
    let wal: boolean;
    let writesOffLoop = false;
    this.#adopted = opts.connection ?? null;
    this.#budget = this.#adopted ? (opts.lanes ?? null) : null;
    if (this.#adopted) {
      // Only reads run through it, so there is no commit to sync and no reader thread to use.
      this.#max = 1;
      wal = false;
      this.#idle.push({ db: this.#adopted, statements: new Map(), schema: this.#schema });
    } else if (opened) {
      wal = opened.wal;
      this.#thread = wal ? opened.channel : null;
      if (!wal) opened.channel.close();
      writesOffLoop = wal;
    } else {
      // Fail fast if the file cannot be opened at all.
      const conn = this.#open(false);
      conn.db.exec(`PRAGMA busy_timeout = ${Math.trunc(this.#timeout)}`);
      wal = run(conn, { sql: 'PRAGMA journal_mode = WAL', args: [] }).rows[0]?.[0] === 'wal';
      conn.db.exec('PRAGMA busy_timeout = 0');
      if (wal) conn.db.exec(WAL_PRAGMAS);
      this.#idle.push(conn);
    }
    this.#walSync = wal ? new GroupSync(() => this.#syncWal()) : null;
    this.#writesOffLoop = writesOffLoop;
    // Another file's connections would not see this one's (`:memory:`), nor could its commits be synced.
    const readers = this.#walSync ? Math.max(0, opts.readers ?? 0) : 0;
    this.#readers = readers > 0 ? new ReadChannels(this.#path, this.#timeout, readers) : null;
  }

  async #syncWal(): Promise<void> {
    try {
      this.#wal ??= open(`${this.#path}-wal`, 'r');
      await (await this.#wal).datasync();
    } catch (error) {
      this.#wal = null;
      throw syncError(error);
    }
  }

  /**
   * A connection on the write thread for the workspace writer (see SqlThread), opened
   * on first use; none for a database that is not in WAL mode (`:memory:`), whose commits
   * could not be synced that way.
   */
  writeThread(): WriteChannel | null {
    if (this.closed) throw new LibsqlError('The client is closed', 'CLIENT_CLOSED');
    if (!this.#walSync) return null;
    // A thread that stopped (it failed) is replaced, so that one failure is not every later write's.
    if (this.#thread?.stopped) this.#thread.close();
    if (!this.#thread || this.#thread.stopped) this.#thread = writeThread().channel(this.#path, this.#timeout);
    return this.#thread;
  }

  /**
   * Runs `runTask(name, connection, args)` of a task module (see db/read-task.ts) on a reader
   * thread, against that thread's own read-only connection to this file: work that reads
   * many rows and computes over them (recall's ranking) runs there whole, and only its
   * answer crosses to this thread. Null when the client has no reader threads (the caller
   * then runs the work here).
   */
  async readTask<T>(module: URL, name: string, args: unknown): Promise<{ value: T } | null> {
    if (!this.#readers) return null;
    this.#check();
    return { value: (await this.#readers.task(module, name, args)) as T };
  }

  /**
   * Whether the database can still be used, for /health, without running a statement: a
   * statement would wait behind whatever the reader threads are running for other
   * requests, a tenant's long reads included. The client must be open, and its file must
   * still be the one it opened: one deleted or replaced under a running server would take
   * every later write with it when the connections close (SQLite goes on writing to the
   * file it has open).
   */
  async probe(): Promise<void> {
    this.#check();
    if (this.#path === ':memory:') return;
    const { dev, ino } = await stat(this.#path).catch((error: unknown) => {
      throw new LibsqlError(`the database file is gone: ${(error as Error).message}`, 'SQLITE_CANTOPEN');
    });
    this.#file ??= { dev, ino };
    if (this.#file.dev !== dev || this.#file.ino !== ino) {
      throw new LibsqlError('the database file was replaced under the open database', 'SQLITE_CANTOPEN');
    }
  }

  /** fdatasyncs of the write-ahead log so far (each covers every commit before it began). */
  get syncs(): number {
    return this.#walSync?.count ?? 0;
  }

  /** Resolves once every write committed so far is on disk. */
  durable(): Promise<void> {
    return this.#walSync ? this.#walSync.sync() : Promise.resolve();
  }

  /**
   * One statement. A read goes to a reader thread when the client has them, and the event
   * loop is free while it runs; anything else runs here.
   */
  async execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    const stmt = typeof stmtOrSql === 'string' ? { sql: stmtOrSql, args: args ?? [] } : stmtOrSql;
    const reads = readOnly(stmt.sql);
    if (this.#readers && reads) {
      this.#check();
      return (await this.#readers.run([stmt]))[0]!;
    }
    const lane = this.#budget && reads ? this.#laneFor(stmt.sql) : null;
    if (lane) {
      return this.#whenFree(async () => {
        try {
          return run(lane, stmt);
        } finally {
          // One that failed to prepare holds no room there.
          if (!lane.statements.has(stmt.sql)) this.#homes.delete(stmt.sql);
        }
      });
    }
    const side = reads ? null : this.#offLoopWrites();
    if (side) return (await side.run([stmt]))[0]!;
    const { result, conn } = await this.#whenFree(async () => {
      const conn = await this.#acquire();
      try {
        return { result: run(conn, stmt), conn };
      } finally {
        this.#release(conn);
      }
    });
    if (this.#walSync && mayWrite(conn, stmt.sql)) await this.#walSync.sync();
    return result;
  }

  /**
   * Statements in one transaction. A batch of reads (recall's, several at once) goes to a
   * reader thread as one read transaction, so its statements see one snapshot.
   */
  async batch(stmts: Array<InStatement | [string, InArgs?]>, mode: TransactionMode = 'deferred'): Promise<ResultSet[]> {
    const reads = mode !== 'write' && stmts.every((s) => readOnly(sqlOf(s)));
    const plain = () => stmts.map((s) => (Array.isArray(s) ? { sql: s[0], args: s[1] ?? [] } : s));
    if (this.#readers && reads && stmts.length > 0) {
      this.#check();
      return (await this.#readers.run(['BEGIN', ...plain(), 'ROLLBACK'])).slice(1, -1);
    }
    const side = reads ? null : this.#offLoopWrites();
    if (side) return (await side.run([BEGIN[mode], ...plain(), 'COMMIT'])).slice(1, -1);
    const { results, wrote } = await this.#whenFree(async () => {
      const conn = await this.#acquire();
      try {
        const results = runBatch(conn, stmts, BEGIN[mode]);
        // A batch of reads has nothing to wait for on disk.
        return { results, wrote: stmts.some((s) => mayWrite(conn, sqlOf(s))) };
      } finally {
        this.#release(conn);
      }
    });
    if (wrote) await this.durable();
    return results;
  }

  /** A batch with foreign keys off, as drizzle's migrator expects. */
  async migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    const side = this.#offLoopWrites();
    if (side) {
      try {
        const call = ['PRAGMA foreign_keys=off', 'BEGIN DEFERRED', ...stmts, 'COMMIT', 'PRAGMA foreign_keys=on'];
        return (await side.run(call)).slice(2, -2);
      } catch (error) {
        // The thread rolled the migration back and ran nothing after the failing statement.
        await side.run(['PRAGMA foreign_keys=on']).catch(() => undefined);
        throw error;
      }
    }
    const results = await this.#whenFree(async () => {
      const conn = await this.#acquire();
      try {
        conn.db.exec('PRAGMA foreign_keys=off');
        return runBatch(conn, stmts, 'BEGIN DEFERRED');
      } finally {
        conn.db.exec('PRAGMA foreign_keys=on');
        this.#release(conn);
      }
    });
    await this.durable();
    return results;
  }

  async transaction(mode: TransactionMode = 'write'): Promise<Transaction> {
    const conn = await this.#whenFree(async () => {
      const conn = await this.#acquire();
      try {
        run(conn, { sql: BEGIN[mode], args: [] });
      } catch (error) {
        this.#release(conn);
        throw error;
      }
      return conn;
    });
    return new LocalTransaction(
      conn,
      () => this.#release(conn),
      () => this.durable(),
    );
  }

  #check(): void {
    if (this.closed) throw new LibsqlError('The client is closed', 'CLIENT_CLOSED');
  }

  /**
   * The lane of a statement: the one that holds it, else one with room, else a new one
   * while the budget allows; null when none can take it (it then runs on the adopted
   * connection, as every statement did before lanes).
   */
  #laneFor(sql: string): Connection | null {
    this.#check();
    const home = this.#homes.get(sql);
    if (home) return home;
    let lane = this.#lanes.find((l) => l.statements.size < LANE_STATEMENTS) ?? null;
    const budget = this.#budget!;
    if (!lane && this.#lanes.length < LANES_PER_CLIENT && budget.open < budget.max) {
      let opened: Connection | null = null;
      try {
        opened = this.#open(false);
        opened.db.exec(`PRAGMA query_only = ON; PRAGMA cache_size = -${LANE_CACHE_KIB}`);
      } catch {
        // Out of file descriptors or memory: the adopted connection still serves.
        if (opened) closeQuietly(opened);
        return null;
      }
      lane = opened;
      this.#lanes.push(lane);
      budget.open++;
    }
    if (lane) this.#homes.set(sql, lane);
    return lane;
  }

  /** Statements held by each lane, in the order the lanes were opened. */
  get laneStatements(): number[] {
    return this.#lanes.map((l) => l.statements.size);
  }

  /**
   * Closes the lanes (an idle client gives them back to the budget); statements open them
   * again as they need them. Their files close once their statements are collected.
   */
  dropLanes(): void {
    for (const lane of this.#lanes) {
      lane.statements.clear();
      closeQuietly(lane);
    }
    if (this.#budget) this.#budget.open -= this.#lanes.length;
    this.#lanes = [];
    this.#homes.clear();
  }

  /**
   * The connection on the write thread that runs this client's statements outside a
   * transaction that may write, when it was opened with `LocalClient.open`; null otherwise
   * (they then run on the calling thread). Never the writer's own connection (writeThread),
   * whose transaction may be open between two of its calls. A connection on the calling
   * thread would put a new workspace's migration on the event loop, and its close too: the
   * last connection to a file to close checkpoints it, and there its close waits for the
   * garbage collector, which then closed hundreds at once (2–3 s with 2,400 workspaces
   * opened and closed in turn).
   */
  #offLoopWrites(): WriteChannel | null {
    this.#check();
    if (!this.#writesOffLoop) return null;
    if (this.#sideChannel?.stopped) this.#sideChannel.close();
    if (!this.#sideChannel || this.#sideChannel.stopped) {
      this.#sideChannel = writeThread().channel(this.#path, this.#timeout);
    }
    return this.#sideChannel;
  }

  /**
   * Runs a call that changes nothing when it finds the file locked by another process (it
   * rolled back, or never began): connections do not wait inside SQLite, which would hold
   * this thread, but here on timers, up to the client's timeout.
   */
  async #whenFree<T>(attempt: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.#timeout;
    for (let delay = 1; ; delay = Math.min(2 * delay, 50)) {
      try {
        return await attempt();
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  async executeMultiple(sql: string): Promise<void> {
    const conn = await this.#acquire();
    try {
      exec(conn, sql);
    } finally {
      this.#release(conn);
    }
    await this.durable();
  }

  async sync(): Promise<never> {
    throw new LibsqlError('sync() is not supported by an embedded database without a replica', 'SYNC_NOT_SUPPORTED');
  }

  reconnect(): void {
    this.close();
    this.closed = false;
  }

  close(): void {
    this.closed = true;
    this.#thread?.close();
    this.#thread = null;
    this.#sideChannel?.close();
    this.#sideChannel = null;
    this.#readers?.close();
    this.#wal?.then((h) => h.close()).catch(() => {});
    this.#wal = null;
    for (const conn of [...this.#idle, ...this.#borrowed]) this.#closeQuietly(conn);
    this.dropLanes();
    this.#idle = [];
    this.#borrowed.clear();
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w.reject(new LibsqlError('The client is closed', 'CLIENT_CLOSED'));
  }

  #closeQuietly(conn: Connection): void {
    if (conn.db !== this.#adopted) closeQuietly(conn);
  }

  #open(normal = this.#walSync !== null): Connection {
    try {
      const db = new Database(this.#path, { timeout: 0 });
      if (normal) db.exec(WAL_PRAGMAS);
      return { db, statements: new Map(), schema: this.#schema };
    } catch (error) {
      throw mapError(error);
    }
  }

  /**
   * A connection for one call. Every call but a transaction's is synchronous, so it is back
   * in the pool before anything else runs; only open transactions can exhaust the pool.
   */
  #acquire(): Promise<Connection> | Connection {
    if (this.closed) throw new LibsqlError('The client is closed', 'CLIENT_CLOSED');
    const conn = this.#idle.pop() ?? (this.#borrowed.size < this.#max ? this.#open() : null);
    if (conn) {
      this.#borrowed.add(conn);
      return conn;
    }
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  #release(conn: Connection): void {
    this.#borrowed.delete(conn);
    if (conn.db.open && conn.db.inTransaction) {
      // Never hand a connection on mid-transaction: the next borrower would inherit it.
      try {
        conn.db.exec('ROLLBACK');
      } catch {
        this.#closeQuietly(conn);
        return;
      }
    }
    if (this.closed || !conn.db.open) {
      this.#closeQuietly(conn);
      return;
    }
    const waiter = this.#waiters.shift();
    if (waiter) {
      this.#borrowed.add(conn);
      waiter.resolve(conn);
    } else {
      this.#idle.push(conn);
    }
  }
}

class LocalTransaction implements Transaction {
  closed = false;
  readonly #conn: Connection;
  readonly #done: () => void;
  readonly #sync: () => Promise<void>;

  constructor(conn: Connection, done: () => void, sync: () => Promise<void>) {
    this.#conn = conn;
    this.#done = done;
    this.#sync = sync;
  }

  async execute(stmt: InStatement): Promise<ResultSet> {
    this.#check();
    return run(this.#conn, typeof stmt === 'string' ? { sql: stmt, args: [] } : stmt);
  }

  async batch(stmts: InStatement[]): Promise<ResultSet[]> {
    this.#check();
    return stmts.map((s) => run(this.#conn, typeof s === 'string' ? { sql: s, args: [] } : s));
  }

  async executeMultiple(sql: string): Promise<void> {
    this.#check();
    exec(this.#conn, sql);
  }

  async rollback(): Promise<void> {
    if (this.closed) return;
    try {
      if (this.#conn.db.inTransaction) exec(this.#conn, 'ROLLBACK');
    } finally {
      this.close();
    }
  }

  async commit(): Promise<void> {
    this.#check();
    try {
      exec(this.#conn, 'COMMIT');
    } finally {
      this.close();
    }
    // The connection is back in the pool; the commit counts once it is on disk.
    await this.#sync();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.#done();
  }

  #check(): void {
    if (this.closed) throw new LibsqlError('The transaction is closed', 'TRANSACTION_CLOSED');
    if (!this.#conn.db.inTransaction) {
      // SQLite rolled it back by itself (disk full, I/O error): nothing more can run in it.
      this.close();
      throw new LibsqlError('The transaction has been rolled back', 'TRANSACTION_CLOSED');
    }
  }
}

function statementFor(conn: Connection, sql: string): CachedStatement {
  const cached = conn.statements.get(sql);
  if (cached) {
    // Map order is insertion order: re-inserting marks it as the most recently used.
    conn.statements.delete(sql);
    conn.statements.set(sql, cached);
    return cached;
  }
  const stmt = conn.db.prepare(sql);
  const entry: CachedStatement = {
    stmt,
    reader: stmt.reader,
    writes: !stmt.reader || RETURNING.test(sql),
    ddl: DDL.test(sql),
    columns: null,
    makeRow: null,
    columnsAt: -1,
  };
  if (entry.reader) stmt.raw(true);
  conn.statements.set(sql, entry);
  if (conn.statements.size > STATEMENT_CACHE) {
    const oldest = conn.statements.keys().next().value as string;
    conn.statements.delete(oldest);
  }
  return entry;
}

function run(conn: Connection, stmt: { sql: string; args?: InArgs }): ResultSet {
  try {
    const cached = statementFor(conn, stmt.sql);
    const args = toSqlArgs(stmt.args);
    if (!cached.reader) {
      const info = cached.stmt.run(args);
      if (cached.ddl) conn.schema.version++;
      return resultSet([], [], Number(info.changes), BigInt(info.lastInsertRowid));
    }
    const values = cached.stmt.all(args) as unknown[][];
    // Columns are read once per statement, and again after a schema change (SQLite
    // re-prepares the statement itself; `SELECT *` may then return other columns).
    if (
      !cached.columns ||
      !cached.makeRow ||
      cached.columnsAt !== conn.schema.version ||
      (values.length > 0 && values[0]!.length !== cached.columns.length)
    ) {
      cached.columnsAt = conn.schema.version;
      cached.columns = cached.stmt.columns().map((c) => c.name);
      cached.makeRow = rowMaker(cached.columns);
    }
    const makeRow = cached.makeRow;
    const rows = new Array<Row>(values.length);
    for (let i = 0; i < values.length; i++) rows[i] = makeRow(values[i]!);
    return resultSet(cached.columns, rows, 0, undefined);
  } catch (error) {
    throw mapError(error);
  }
}

/** Whether an autocommit statement may have written (and so must be synced before it counts). */
function mayWrite(conn: Connection, sql: string): boolean {
  const cached = conn.statements.get(sql);
  return cached ? cached.writes : true;
}

function runBatch(conn: Connection, stmts: Array<InStatement | [string, InArgs?]>, begin: string): ResultSet[] {
  exec(conn, begin);
  try {
    const out = stmts.map((s) =>
      run(conn, Array.isArray(s) ? { sql: s[0], args: s[1] ?? [] } : typeof s === 'string' ? { sql: s, args: [] } : s),
    );
    exec(conn, 'COMMIT');
    return out;
  } finally {
    if (conn.db.inTransaction) exec(conn, 'ROLLBACK');
  }
}

function exec(conn: Connection, sql: string): void {
  try {
    conn.db.exec(sql);
  } catch (error) {
    throw mapError(error);
  } finally {
    if (SCHEMA_CHANGE.test(sql)) conn.schema.version++;
  }
}

const VALUES = Symbol('values');

/**
 * Rows like @libsql/client's: column names as enumerable properties, positions as
 * non-enumerable indexes with a length. The indexes live on a prototype shared by every
 * row of the statement, so a row costs one object and its named fields.
 */
function rowMaker(columns: readonly string[]): (values: unknown[]) => Row {
  const proto: Record<PropertyKey, unknown> = {};
  Object.defineProperty(proto, 'length', { value: columns.length });
  for (let i = 0; i < columns.length; i++) {
    Object.defineProperty(proto, i, {
      get(this: { [VALUES]: unknown[] }) {
        return this[VALUES][i];
      },
    });
  }
  const named: [string, number][] = [];
  const seen = new Set<string>();
  columns.forEach((name, i) => {
    if (!seen.has(name)) named.push([name, i]);
    seen.add(name);
  });
  return (raw) => {
    const row = Object.create(proto) as Record<PropertyKey, unknown>;
    for (let i = 0; i < raw.length; i++) {
      const v = raw[i];
      if (v instanceof Buffer) raw[i] = v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength);
    }
    Object.defineProperty(row, VALUES, { value: raw });
    for (const [name, i] of named) row[name] = raw[i];
    return row as unknown as Row;
  };
}

function resultSet(
  columns: string[],
  rows: Row[],
  rowsAffected: number,
  lastInsertRowid: bigint | undefined,
): ResultSet {
  return {
    columns,
    columnTypes: columns.map(() => ''),
    rows,
    rowsAffected,
    lastInsertRowid,
    toJSON() {
      return {
        columns,
        columnTypes: this.columnTypes,
        rows: rows.map((r) => Array.from(r as ArrayLike<unknown>)),
        rowsAffected,
        lastInsertRowid: lastInsertRowid?.toString() ?? null,
      };
    },
  };
}

function toSqlValue(value: InValue | undefined): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'number':
      if (!Number.isFinite(value))
        throw new RangeError('Only finite numbers (not Infinity or NaN) can be passed as arguments');
      return value;
    case 'string':
    case 'bigint':
      return value;
    case 'boolean':
      return value ? 1 : 0;
  }
  if (value instanceof Date) return value.valueOf();
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`Unsupported value of type ${typeof value}`);
}

function toSqlArgs(args: InArgs | undefined): unknown[] | Record<string, unknown> {
  if (args === undefined) return [];
  if (Array.isArray(args)) {
    const out = new Array(args.length);
    for (let i = 0; i < args.length; i++) out[i] = toSqlValue(args[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    out[name[0] === '@' || name[0] === '$' || name[0] === ':' ? name.slice(1) : name] = toSqlValue(value);
  }
  return out;
}

/** SQLite errors become LibsqlErrors carrying the base code (SQLITE_FULL) and the extended one. */
function mapError(error: unknown): unknown {
  if (error instanceof LibsqlError) return error;
  const e = error as { code?: unknown; rawCode?: unknown; message?: string } | null;
  if (e && typeof e.rawCode === 'number') {
    const extended = typeof e.code === 'string' ? e.code : undefined;
    return new LibsqlError(
      e.message ?? String(error),
      baseCode(e.rawCode, extended),
      extended,
      e.rawCode,
      error as Error,
    );
  }
  return error;
}

const BASE_CODES: Record<number, string> = {
  1: 'SQLITE_ERROR',
  2: 'SQLITE_INTERNAL',
  3: 'SQLITE_PERM',
  4: 'SQLITE_ABORT',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM',
  8: 'SQLITE_READONLY',
  9: 'SQLITE_INTERRUPT',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  12: 'SQLITE_NOTFOUND',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  15: 'SQLITE_PROTOCOL',
  16: 'SQLITE_EMPTY',
  17: 'SQLITE_SCHEMA',
  18: 'SQLITE_TOOBIG',
  19: 'SQLITE_CONSTRAINT',
  20: 'SQLITE_MISMATCH',
  21: 'SQLITE_MISUSE',
  22: 'SQLITE_NOLFS',
  23: 'SQLITE_AUTH',
  24: 'SQLITE_FORMAT',
  25: 'SQLITE_RANGE',
  26: 'SQLITE_NOTADB',
};

function baseCode(rawCode: number, extended: string | undefined): string {
  return BASE_CODES[rawCode & 0xff] ?? extended ?? 'SQLITE_UNKNOWN';
}

function closeQuietly(conn: Connection): void {
  try {
    if (conn.db.open) conn.db.close();
  } catch {
    // nothing useful to do while tearing down
  }
}

/**
 * A SQL thread's side (the write thread and each reader thread run it), as a script of its
 * own (a string, so that it loads the same way from the sources, the bundle and the tests).
 * It holds a connection per database and mirrors `run` above: a prepared-statement cache per
 * connection, raw rows with their column names, and an fdatasync of the database's
 * write-ahead log after any call that committed a write, before it answers. A call that
 * fails rolls back the transaction it left open.
 *
 * Connections never wait for a lock inside SQLite (busy timeout 0): the thread serves many
 * databases, and a busy wait on one (another process importing into it) would stall every
 * other. A call that finds its database locked before it changed anything is parked and
 * tried again on a timer, up to the connection's timeout, while the calls of other
 * databases run; later calls of the same database queue behind it, in order.
 */
const SQL_THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const Database = require(workerData.libsql);
const CONTROL = /^\\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\\b/i;
const COMMIT = /^\\s*COMMIT\\b/i;
const connections = new Map();
// On Linux a thread has a priority of its own: /proc/thread-self names this one.
if (workerData.nice > 0) {
  try {
    const os = require('node:os');
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    os.setPriority(tid, Math.min(19, os.getPriority(tid) + workerData.nice));
  } catch {}
}
function open(key, path, timeout, readOnly) {
  const db = new Database(path, { timeout: 0 });
  // Set at the first call, where a file another process holds locked is waited for.
  const init = readOnly ? 'PRAGMA query_only = ON' : 'PRAGMA synchronous = NORMAL';
  connections.set(key, { key, db, path, timeout, init, statements: new Map(), wal: null, dirty: false, syncing: null, waiting: [], queue: [], parked: false, inLine: false, closeWhenDone: false });
}
// A closed database keeps its file open until its statements are collected; this thread
// makes little garbage, so it collects them itself (as the request thread's own garbage would).
// V8's flags are the process's: several threads starting at once would unset the flag under
// each other, so it is set and left set, and a thread that still finds no gc runs without.
function gcFunction() {
  require('node:v8').setFlagsFromString('--expose-gc');
  for (let i = 0; i < 5; i++) {
    try { return require('node:vm').runInNewContext('gc'); } catch {}
  }
  return () => {};
}
const collect = gcFunction();
function close(key) {
  const c = connections.get(key);
  connections.delete(key);
  if (!c) return;
  c.closed = true;
  closeTasks(key);
  for (const m of c.queue) parentPort.postMessage({ id: m.id, ...failure(new Error('The client is closed'), 0, false) });
  c.queue = [];
  c.statements.clear();
  try { c.db.close(); } catch {}
  if (!c.syncing) closeWal(c);
  setImmediate(collect);
}
function closeWal(c) {
  try { if (c.wal !== null) fs.closeSync(c.wal); } catch {}
  c.wal = null;
}
function prepared(c, sql) {
  let s = c.statements.get(sql);
  if (s) { c.statements.delete(sql); c.statements.set(sql, s); return s; }
  const stmt = c.db.prepare(sql);
  s = { stmt, reader: stmt.reader, columns: null };
  if (s.reader) stmt.raw(true);
  c.statements.set(sql, s);
  if (c.statements.size > ${STATEMENT_CACHE}) c.statements.delete(c.statements.keys().next().value);
  return s;
}
function arg(v) {
  return v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;
}
function runOne(c, sql, args) {
  if (CONTROL.test(sql) && args.length === 0) {
    c.db.exec(sql);
    if (COMMIT.test(sql)) c.dirty = true;
    return null;
  }
  const s = prepared(c, sql);
  const bound = Array.isArray(args) ? args.map(arg) : args;
  if (!s.reader) {
    const info = s.stmt.run(bound);
    c.dirty = true;
    return { changes: Number(info.changes), rowid: info.lastInsertRowid };
  }
  const rows = s.stmt.all(bound);
  if (!s.columns || (rows.length > 0 && rows[0].length !== s.columns.length)) s.columns = s.stmt.columns().map((col) => col.name);
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      if (ArrayBuffer.isView(v)) row[i] = v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength);
    }
  }
  return { columns: s.columns, rows };
}
function failure(e, at, sync) {
  return { at, error: { message: String(e && e.message), code: e && e.code, rawCode: e && e.rawCode, sync } };
}
// One fdatasync at a time per database, shared by every commit that reached the log before
// it started; meanwhile the thread runs the next calls (the next group's reads).
function sync(c) {
  c.syncing = c.waiting;
  c.waiting = [];
  try {
    if (c.wal === null) c.wal = fs.openSync(c.path + '-wal', 'r');
  } catch (e) {
    return synced(c, e);
  }
  fs.fdatasync(c.wal, (e) => synced(c, e));
}
function synced(c, e) {
  const replies = c.syncing;
  c.syncing = null;
  // A log that could not be synced is opened afresh for the next sync.
  if (e || c.closed) closeWal(c);
  for (const r of replies) parentPort.postMessage(e ? { id: r.id, ...failure(e, r.at, true) } : r);
  if (c.waiting.length === 0) return;
  if (!c.closed) return sync(c);
  for (const r of c.waiting) parentPort.postMessage({ id: r.id, ...failure(new Error('The client is closed'), r.at, true) });
  c.waiting = [];
}
// SQLITE_BUSY (5) and its extended codes: another connection holds the lock.
function busy(e) {
  return e && typeof e.rawCode === 'number' && (e.rawCode & 0xff) === 5;
}
// Runs a call; answers false, having changed nothing, when it should be tried again later.
function call(c, m) {
  const { id, stmts } = m;
  const fresh = !c.db.inTransaction;
  const results = [];
  let at = 0;
  try {
    if (c.init) { c.db.exec(c.init); c.init = null; }
    for (; at < stmts.length; at++) results.push(runOne(c, stmts[at].sql, stmts[at].args));
  } catch (e) {
    if (c.db.inTransaction) { try { c.db.exec('ROLLBACK'); } catch {} }
    // Nothing of a call that began outside a transaction is left once it is rolled back.
    if (fresh && busy(e) && Date.now() < m.deadline) return false;
    parentPort.postMessage({ id, ...failure(e, at, false) });
    return true;
  }
  if (!c.dirty || c.db.inTransaction) {
    parentPort.postMessage({ id, results });
    return true;
  }
  c.dirty = false;
  c.waiting.push({ id, at, results });
  if (!c.syncing) sync(c);
  return true;
}
// Connections take turns: a turn of this thread's loop runs the first call of the connection
// first in line, which then goes to the back of the line if it has more, behind every
// connection whose calls arrived while it ran (Node hands this thread the messages that
// arrived between turns). So one database's backlog (a tenant's many statements, a long import's chunks)
// never runs ahead of another database's call that came later: that call waits for the one
// running and the calls of the others already in line, not for all of theirs, as it did
// when calls ran in arrival order.
const line = [];
let turning = false;
function enqueue(c) {
  if (c.inLine || c.parked || c.closed || c.queue.length === 0) return;
  c.inLine = true;
  line.push(c);
  if (!turning) { turning = true; setImmediate(turn); }
}
// \`last\` ran in the turn before: it stayed out of line (inLine) until now, when the calls that
// came meanwhile, its own included, are in, and goes behind the other connections'.
function turn(last) {
  if (last) {
    last.inLine = false;
    if (last.closeWhenDone && last.queue.length === 0 && !last.closed) close(last.key);
    else enqueue(last);
  }
  const c = line.shift();
  if (!c) { turning = false; return; }
  runFirst(c);
  setImmediate(turn, c);
}
function runFirst(c) {
  if (c.closed || c.parked) return;
  const m = c.queue.shift();
  if (m?.task) void task(c, m);
  else if (m && !call(c, m)) {
    c.queue.unshift(m);
    park(c, m);
    return;
  }
  if (c.closeWhenDone && c.queue.length === 0) close(c.key);
}
// The file is locked by another process: the call is tried again later, on a timer, never
// waited for here (a close sent meanwhile refuses it instead).
function park(c, m) {
  if (c.closeWhenDone) { close(c.key); return; }
  c.parked = true;
  m.delay = Math.min(2 * (m.delay || 1), 50);
  setTimeout(() => { c.parked = false; enqueue(c); }, m.delay);
}
// Tasks: a module's function run here with this thread's read connection to one database
// (recall ranks where its rows are read; see LocalClient.readTask). A module in TypeScript
// (the sources, in development and tests) is compiled on load by tsx, registered once.
const modules = new Map();
let compiler = null;
function taskModule(url, tsx) {
  let mod = modules.get(url);
  if (!mod) {
    if (tsx) compiler ??= import(tsx).then((api) => api.register());
    mod = Promise.resolve(tsx ? compiler : null).then(() => import(url));
    modules.set(url, mod);
  }
  return mod;
}
function plainError(e) {
  return {
    name: String(e && e.name), message: String(e && e.message), code: e && e.code,
    rawCode: e && e.rawCode, extendedCode: e && e.extendedCode, details: e && e.details && typeof e.details === 'object' ? e.details : undefined,
  };
}
async function task(c, m) {
  try {
    const mod = await taskModule(m.module, m.tsx);
    if (c.init) { c.db.exec(c.init); c.init = null; }
    const value = await mod.runTask(m.task, { key: m.key, path: c.path, timeout: c.timeout, db: c.db }, m.args);
    parentPort.postMessage({ id: m.id, value });
  } catch (e) {
    try { parentPort.postMessage({ id: m.id, taskError: plainError(e) }); }
    catch (again) { parentPort.postMessage({ id: m.id, taskError: plainError(again) }); }
  }
}
function closeTasks(key) {
  for (const mod of modules.values()) mod.then((m) => m.closeTask && m.closeTask(key)).catch(() => {});
}
parentPort.on('message', (m) => {
  if (m.open) {
    try { open(m.key, m.path, m.timeout, m.readOnly); parentPort.postMessage({ id: m.id, results: [] }); }
    catch (e) { parentPort.postMessage({ id: m.id, ...failure(e, 0, false) }); }
    return;
  }
  if (m.close) {
    // After the calls sent before it, as when calls ran as they came; calls waiting for
    // another process's lock are refused at once.
    const c = connections.get(m.key);
    if (c && !c.parked && (c.queue.length > 0 || c.inLine)) c.closeWhenDone = true;
    else close(m.key);
    return;
  }
  const c = connections.get(m.key);
  if (!c) { parentPort.postMessage({ id: m.id, at: 0, error: { message: 'The client is closed', code: 'CLIENT_CLOSED', sync: false } }); return; }
  m.deadline = Date.now() + c.timeout;
  c.queue.push(m);
  enqueue(c);
});
`;

/** A call on the write thread that failed: `at` is the statement that failed, or `stmts.length` when the sync after its COMMIT did. */
export class WriteThreadError extends LibsqlError {
  readonly at: number;

  constructor(error: LibsqlError, at: number) {
    super(error.message, error.code, error.extendedCode, error.rawCode, error);
    this.at = at;
  }
}

type ThreadResult = { changes: number; rowid: number | bigint } | { columns: string[]; rows: unknown[][] } | null;

interface ThreadReply {
  id: number;
  results?: ThreadResult[];
  at?: number;
  error?: { message: string; code?: string; rawCode?: number; sync: boolean };
  /** A task's answer (see LocalClient.readTask). */
  value?: unknown;
  taskError?: TaskFailure;
}

/** A task's error as it crossed from its thread: what its own class and code were. */
interface TaskFailure {
  name: string;
  message: string;
  code?: string;
  extendedCode?: string;
  rawCode?: number;
  details?: Record<string, unknown>;
}

interface PendingCall {
  resolve: (r: ResultSet[]) => void;
  reject: (e: unknown) => void;
  /** A task: resolved with its value as it came, not as result sets. */
  task: boolean;
}

/** How long one turn of the loop spends settling SQL threads' answers before it polls sockets again. */
const ANSWER_SLICE_MS = 3;
/**
 * Answers of at most this many rows, and this many characters of text, are settled at once
 * however much the turn has spent.
 */
const SMALL_ANSWER_ROWS = 16;
const SMALL_ANSWER_CHARS = 16_384;

/**
 * Whether an answer is small: at most SMALL_ANSWER_ROWS rows and SMALL_ANSWER_CHARS
 * characters of text (a page packed as JSON in one value is one row, and as much work as
 * many). A task's answer (a recall) never is; a failure always is.
 */
function smallAnswer(reply: ThreadReply, task: boolean): boolean {
  if (reply.error || reply.taskError) return true;
  if (task) return reply.value == null;
  let rows = 0;
  let chars = 0;
  for (const r of reply.results!) {
    if (r === null || !('rows' in r)) continue;
    rows += r.rows.length;
    if (rows > SMALL_ANSWER_ROWS) return false;
    for (const row of r.rows) for (const v of row) if (typeof v === 'string') chars += v.length;
  }
  return chars <= SMALL_ANSWER_CHARS;
}

/**
 * Settles the SQL threads' answers a slice of the loop at a time. Node delivers every
 * message a thread has queued in one turn of the loop, each followed by the microtasks it
 * starts (row mapping, GraphQL completing the field), so 120 answers to one tenant's
 * aliases ran back to back for tens of milliseconds while every other socket waited.
 * Larger answers settle as they arrive until they have spent ANSWER_SLICE_MS of a turn of
 * the loop; the rest wait, and settle one a turn, in order, with timers and other sockets
 * served between. Small ones (a count, a write's acknowledgement) never wait behind them.
 */
class AnswerTurns {
  /** When the first larger answer settled as it arrived, this turn of the loop; -1 for none. */
  #spentFrom = -1;
  #scheduled = false;
  readonly #waiting: (() => void)[] = [];

  settle(small: boolean, settle: () => void): void {
    if (small) {
      settle();
      return;
    }
    const now = performance.now();
    if (this.#waiting.length === 0 && (this.#spentFrom < 0 || now - this.#spentFrom < ANSWER_SLICE_MS)) {
      if (this.#spentFrom < 0) this.#spentFrom = now;
      settle();
    } else this.#waiting.push(settle);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#turn);
  }

  /** Runs after the turn's I/O: one waiting answer, unless those settled on arrival spent the turn. */
  readonly #turn = (): void => {
    this.#scheduled = false;
    const spent = this.#spentFrom >= 0 && performance.now() - this.#spentFrom >= ANSWER_SLICE_MS;
    this.#spentFrom = -1;
    if (this.#waiting.length === 0) return;
    if (!spent) this.#waiting.shift()?.();
    this.#schedule();
  };
}

const answers = new AnswerTurns();

/**
 * A worker thread running SQL for embedded databases, each with a connection of its own
 * there, so that SQLite's work no longer takes turns with request handling on the one
 * JavaScript thread. The write thread is one of these, for every database of the process:
 * one thread, not one per database, since each costs an isolate's memory. The reader pool
 * (ReaderPool) is a few more, with read-only connections.
 */
class SqlThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, PendingCall>();
  readonly #makers = new Map<string, { columns: string[]; make: (values: unknown[]) => Row }>();
  readonly #onStop: () => void;
  #ids = 0;
  #users = 0;
  /** Its last channel closed while calls were still out: it stops once they are answered. */
  #stopWhenIdle = false;
  #stopped: LibsqlError | null = null;

  /** `nice`: how much lower than the process's this thread's CPU priority is (Linux; see SQL_THREAD_SOURCE). */
  constructor(name: string, onStop: () => void, nice = 0) {
    this.#onStop = onStop;
    const libsql = createRequire(import.meta.url).resolve('libsql');
    this.#worker = new Worker(SQL_THREAD_SOURCE, { eval: true, name, workerData: { libsql, nice } });
    this.#worker.on('message', (reply: ThreadReply) => this.#answer(reply));
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', () => {
      this.#onStop();
      this.#stopped = new LibsqlError('The SQL thread has stopped', 'CLIENT_CLOSED');
      this.#fail(this.#stopped);
    });
    // After the listeners: a 'message' listener refs the worker's port again.
    this.#worker.unref();
  }

  /** Calls sent and not yet answered (the reader pool sends a read to the least loaded thread). */
  get load(): number {
    return this.#pending.size;
  }

  /**
   * A connection to `path` on this thread, opened there (off the event loop); the thread
   * stops once its last channel is closed. `timeout` bounds how long a call waits for a
   * lock another connection holds (see SQL_THREAD_SOURCE).
   */
  channel(path: string, timeout: number, readOnly = false): WriteChannel {
    const key = ++this.#ids;
    this.#users++;
    const opened = this.#call({ open: true, key, path, timeout, readOnly });
    let closed = false;
    const thread = this;
    return {
      get stopped() {
        return thread.#stopped !== null;
      },
      run: async (stmts) => {
        if (closed) throw new LibsqlError('The client is closed', 'CLIENT_CLOSED');
        await opened;
        return this.#call({ key, stmts: stmts.map(plainStatement) });
      },
      task: async (module, name, args) => {
        if (closed) throw new LibsqlError('The client is closed', 'CLIENT_CLOSED');
        await opened;
        return this.#call({ key, task: name, module: module.href, tsx: compilerFor(module), args }, true);
      },
      close: () => {
        if (closed) return;
        closed = true;
        this.#worker.postMessage({ close: true, key });
        if (--this.#users === 0) {
          this.#onStop();
          // Never while a call runs: terminating a thread inside libSQL aborts the process.
          if (this.#pending.size === 0) void this.#worker.terminate();
          else this.#stopWhenIdle = true;
        }
      },
    };
  }

  #call(message: Record<string, unknown>): Promise<ResultSet[]>;
  #call(message: Record<string, unknown>, task: true): Promise<unknown>;
  #call(message: Record<string, unknown>, task = false): Promise<unknown> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = ++this.#ids;
    return new Promise<unknown>((resolve, reject) => {
      // Referenced only while a call is out, so that it never keeps a finished process alive.
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject, task });
      this.#worker.postMessage({ ...message, id });
    });
  }

  #answer(reply: ThreadReply): void {
    const call = this.#pending.get(reply.id);
    if (!call) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) {
      this.#worker.unref();
      if (this.#stopWhenIdle) void this.#worker.terminate();
    }
    answers.settle(smallAnswer(reply, call.task), () => {
      if (reply.taskError) call.reject(taskError(reply.taskError));
      else if (reply.error) call.reject(threadError(reply.error, reply.at ?? 0));
      else if (call.task) (call.resolve as (v: unknown) => void)(reply.value);
      else call.resolve(reply.results!.map((r) => this.#resultSet(r)));
    });
  }

  #resultSet(r: ThreadResult): ResultSet {
    if (r === null) return resultSet([], [], 0, undefined);
    if ('changes' in r) return resultSet([], [], r.changes, BigInt(r.rowid));
    const key = r.columns.join('\u0000');
    let maker = this.#makers.get(key);
    if (!maker) {
      maker = { columns: r.columns, make: rowMaker(r.columns) };
      this.#makers.set(key, maker);
    }
    return resultSet(maker.columns, r.rows.map(maker.make), 0, undefined);
  }

  #fail(error: unknown): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const call of pending) call.reject(error);
  }
}

let shared: SqlThread | null = null;

function writeThread(): SqlThread {
  if (shared) return shared;
  const thread = new SqlThread('sphere-writer', () => {
    if (shared === thread) shared = null;
  });
  shared = thread;
  return thread;
}

/**
 * The reader threads every embedded database of the process shares, in two pools of up to
 * the largest size any client asked for: one for statements, one for tasks (recall, ranked
 * where its rows are read). A task holds its thread for milliseconds of JavaScript between
 * its reads; a statement queued behind it on the same thread would wait as long, and
 * `{ count }` or the health check's `SELECT 1` beside 30-alias recalls waited p50 40 ms on
 * 2 cores. In a pool, work goes to the thread with the fewest calls out, so a long read of
 * one workspace holds one thread and the others keep answering. Threads start on first
 * use and stop once no database has a connection on them.
 */
const readerPools = { reads: [] as SqlThread[], tasks: [] as SqlThread[] };
type ReaderRole = keyof typeof readerPools;

/**
 * Task threads run at this much lower CPU priority than the request thread (and the
 * statement threads): a few tenants' recalls take every core the request thread leaves
 * idle, and no more of it.
 */
const TASK_NICE = 10;

/**
 * The least loaded of the first `size` threads of a pool; a new one starts only when every
 * running one has a call out, so that no thread idles without a connection (it would
 * never stop: a thread stops when its last connection closes).
 */
function readerThread(role: ReaderRole, size: number): SqlThread {
  const pool = readerPools[role];
  let best: SqlThread | null = null;
  for (const thread of pool.slice(0, size)) if (!best || thread.load < best.load) best = thread;
  if (best && (best.load === 0 || pool.length >= size)) return best;
  const thread: SqlThread = new SqlThread(
    `sphere-${role === 'reads' ? 'reader' : 'task'}-${pool.length + 1}`,
    () => {
      const at = pool.indexOf(thread);
      if (at >= 0) pool.splice(at, 1);
    },
    role === 'tasks' ? TASK_NICE : 0,
  );
  pool.push(thread);
  return thread;
}

/** A client's read-only connections on the reader threads, opened on a thread when a read first goes there. */
class ReadChannels {
  readonly #path: string;
  readonly #timeout: number;
  readonly #size: number;
  readonly #channels = new Map<SqlThread, WriteChannel>();

  constructor(path: string, timeout: number, size: number) {
    this.#path = path;
    this.#timeout = timeout;
    this.#size = size;
  }

  run(stmts: readonly InStatement[]): Promise<ResultSet[]> {
    return this.#channel('reads').run(stmts);
  }

  task(module: URL, name: string, args: unknown): Promise<unknown> {
    return this.#channel('tasks').task(module, name, args);
  }

  #channel(role: ReaderRole): WriteChannel {
    const thread = readerThread(role, this.#size);
    let channel = this.#channels.get(thread);
    if (!channel || channel.stopped) {
      channel = thread.channel(this.#path, this.#timeout, true);
      this.#channels.set(thread, channel);
    }
    return channel;
  }

  close(): void {
    for (const channel of this.#channels.values()) channel.close();
    this.#channels.clear();
  }
}

/** A database's connection on a SQL thread (the write thread or a reader thread). */
export interface WriteChannel {
  /**
   * Runs the statements in order; resolves once they ran and, when they committed a write,
   * once it is on disk. When one fails (a WriteThreadError says which), the rest do not
   * run and the transaction they were in is rolled back.
   */
  run(stmts: readonly InStatement[]): Promise<ResultSet[]>;
  /**
   * Runs `runTask(name, connection, args)` of `module` on the channel's thread, where it reads
   * through this channel's connection (see LocalClient.readTask).
   */
  task(module: URL, name: string, args: unknown): Promise<unknown>;
  close(): void;
  /** Its thread has stopped (it failed): every call is refused, and a new channel is needed. */
  readonly stopped: boolean;
}

function plainStatement(s: InStatement): { sql: string; args: unknown } {
  return typeof s === 'string' ? { sql: s, args: [] } : { sql: s.sql, args: toSqlArgs(s.args) };
}

/** tsx's loader for a module in TypeScript (the sources); null for JavaScript (the bundle). */
function compilerFor(module: URL): string | null {
  if (!module.pathname.endsWith('.ts')) return null;
  if (!tsxApi) {
    // Its ESM entry, as the package's export map names it (require.resolve gives the CommonJS one).
    const require = createRequire(import.meta.url);
    const pkg = require.resolve('tsx/package.json');
    const entry = (require(pkg) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api'];
    tsxApi = pathToFileURL(join(dirname(pkg), entry!.import.default)).href;
  }
  return tsxApi;
}
let tsxApi: string | null = null;

/**
 * A task's error as its own kind again: a DomainError keeps its code and details (a bad
 * argument is the caller's BAD_USER_INPUT wherever it was found), and anything SQLite threw
 * is a LibsqlError with its codes, so that callers tell storage failures apart as before.
 */
function taskError(e: TaskFailure): Error {
  if (e.name === 'DomainError' && e.code) return new DomainError(e.code as ErrorCode, e.message, e.details ?? {});
  if (e.name === 'LibsqlError' && e.code) return new LibsqlError(e.message, e.code, e.extendedCode, e.rawCode);
  return new Error(e.message);
}

function threadError(e: NonNullable<ThreadReply['error']>, at: number): WriteThreadError {
  const error = e.sync
    ? syncError(new Error(e.message))
    : mapError(Object.assign(new Error(e.message), { code: e.code, rawCode: e.rawCode }));
  return new WriteThreadError(
    error instanceof LibsqlError ? error : new LibsqlError(e.message, e.code ?? 'SQLITE_ERROR'),
    at,
  );
}
