import { existsSync } from 'node:fs';
import type { Client, InArgs, InStatement, ResultSet, TransactionMode } from '@libsql/client';
import { DomainError } from '../contract/errors.ts';
import type { MemoryEventRecord } from '../contract/events.ts';
import {
  type DatabaseLocation,
  drizzleFor,
  locateWorkspace,
  openEmptyDatabase,
  probeClient,
  type QueryListener,
  type ReadTasks,
  type RootDb,
} from '../db/client.ts';
import { type OpenedDatabase, openDatabase } from '../db/open.ts';
import type { Writer } from '../db/writer.ts';
import { Bookkeeper } from '../memory/bookkeeping.ts';
import { assertInsideDataDir } from './data-dir.ts';

/** One open workspace: its database, its single writer, and its deferred read bookkeeping. */
export interface Workspace {
  id: string;
  client: Client;
  db: RootDb;
  writer: Writer;
  bookkeeper: Bookkeeper;
}

/**
 * What a request or a subscription holds: a workspace by id, not an open database. Every
 * statement finds the workspace's database at the moment it runs, opening it again if it
 * was closed while idle, so holding a view never keeps a file open. Reads of a workspace
 * that does not exist run against an empty database and create nothing; the first write
 * creates it, and from then on the same view reads it.
 */
export interface WorkspaceView {
  readonly id: string;
  readonly db: RootDb;
  /** The workspace's single writer; the first write creates the database. */
  readonly writer: Pick<Writer, 'run'>;
  /** Bookkeeping that reads cause; dropped for a workspace that does not exist (there is nothing to count). */
  readonly bookkeeper: Pick<Bookkeeper, 'recalled' | 'stale'>;
}

export interface RegistryOptions {
  dataDir: string;
  dbUrl: string | null;
  dbAuthToken: string | null;
  /** Receives every committed batch of events of every workspace. */
  onCommit: (events: MemoryEventRecord[]) => void;
  clock?: () => number;
  onQuery?: QueryListener;
  /** Databases kept open at once (SPHERE_MAX_OPEN_WORKSPACES); idle ones beyond it are closed. */
  maxOpen?: number;
  /** Embedded files: writes' SQL on the write thread (SPHERE_WRITER_THREAD; see WriterOptions.offThread). */
  writerThread?: boolean;
  /** Embedded files: threads that run reads off the event loop (SPHERE_READER_THREADS; 0 = on it). */
  readerThreads?: number;
  /** Told of every database that failed to open, with the operator's account of why (for the log). */
  onOpenFailure?: (workspace: string, error: unknown) => void;
}

/** A workspace whose database is open or opening. */
interface Entry {
  id: string;
  ready: Promise<Workspace>;
  /** Set once open. */
  ws: Workspace | null;
  /** Statements, writes and probes running on it now: it is never closed while this is above 0. */
  pins: number;
  /** When it was last used, in registry ticks (for least-recently-used closing). */
  used: number;
}

/** How soon to look again for idle databases when every one over the cap was busy. */
const TRIM_RETRY_MS = 50;

/**
 * Opens workspace databases on use and keeps at most `maxOpen` of them open, closing
 * the least recently used idle ones beyond that. A database counts as idle when no
 * statement runs on it, its writer has nothing queued or in flight and its bookkeeping
 * has nothing waiting, so closing one never loses or interrupts a write; the next use
 * opens it again.
 *
 * A closed libSQL connection keeps its file descriptors until the prepared statements
 * made on it are garbage-collected (libsql-js has no way to finalize a statement), so
 * descriptors of closed databases come back at the next major GC, not at once: the cap
 * bounds what is open, and closing only past the cap keeps that churn low.
 *
 * Only writes create a database (and the CLI's migrate and import). For embedded files
 * "exists" is the file; hosted databases (SPHERE_DB_URL) are created by the operator and
 * cannot be checked without a round trip, so every hosted workspace counts as existing
 * and is opened on first use, reads included.
 */
export class WorkspaceRegistry {
  readonly #opts: RegistryOptions;
  readonly #maxOpen: number;
  readonly #open = new Map<string, Entry>();
  /** Views are stateless routes to a workspace; kept only to spare a drizzle instance per request. */
  readonly #views = new Map<string, WorkspaceView>();
  /** Workspaces whose schema this process has brought up to date: reopening them skips the migrator. */
  readonly #migrated = new Set<string>();
  /** Workspaces whose database failed to open, and when: /health reports them for a while. */
  readonly #failures = new Map<string, number>();
  #empty: Promise<Client> | null = null;
  #tick = 0;
  #trimTimer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(opts: RegistryOptions) {
    this.#opts = opts;
    this.#maxOpen = Math.max(1, opts.maxOpen ?? 256);
  }

  locate(id: string): DatabaseLocation {
    return locateWorkspace(id, this.#opts);
  }

  /** Whether the workspace has a database (always true for hosted ones: see the class comment). */
  exists(id: string): boolean {
    const location = this.locate(id);
    return !location.local || this.#open.has(id) || existsSync(location.url.slice('file:'.length));
  }

  /**
   * The workspace with this id, opened, and created if it does not exist. For tools and
   * tests: what it returns is not held open, so beyond the cap it may be closed once idle;
   * requests go through `view`.
   */
  async get(id: string): Promise<Workspace> {
    const entry = this.#enter(id, true) as Entry;
    entry.used = ++this.#tick;
    return entry.ready;
  }

  /**
   * A request's view of a workspace. An existing workspace is opened now, so a database
   * that cannot be opened is reported before anything runs; a missing one is not created.
   */
  async view(id: string): Promise<WorkspaceView> {
    const entry = this.#enter(id, false);
    if (entry) {
      entry.used = ++this.#tick;
      await entry.ready;
    }
    let view = this.#views.get(id);
    if (view) {
      // Map order is insertion order: re-inserting keeps the most recently used last.
      this.#views.delete(id);
    } else {
      view = this.#createView(id);
      if (this.#views.size >= this.#maxOpen) this.#views.delete(this.#views.keys().next().value as string);
    }
    this.#views.set(id, view);
    return view;
  }

  /** Workspaces whose database failed to open within the last `withinMs`. */
  recentFailures(withinMs = 60_000): string[] {
    const since = Date.now() - withinMs;
    return [...this.#failures].filter(([, at]) => at >= since).map(([id]) => id);
  }

  /** How many workspace databases are open or opening now. */
  get openCount(): number {
    return this.#open.size;
  }

  /** The workspaces open now (any of them may be closed later, once idle). */
  async opened(): Promise<Workspace[]> {
    const all = await Promise.allSettled([...this.#open.values()].map((e) => e.ready));
    return all.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  }

  /**
   * Checks every open workspace's database, keeping each open meanwhile (for /health): an
   * embedded file without running a statement (LocalClient.probe), which would wait behind
   * other requests' reads; a hosted database with a trivial query.
   */
  async probe(): Promise<{ open: number; failed: number }> {
    const entries = [...this.#open.values()].filter((e) => e.ws !== null);
    const results = await Promise.allSettled(entries.map((e) => this.#using(e, (ws) => probeClient(ws.client))));
    return { open: entries.length, failed: results.filter((r) => r.status === 'rejected').length };
  }

  /** Finishes every queued write, then closes every database. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#trimTimer) clearTimeout(this.#trimTimer);
    const all = await this.opened();
    await Promise.all(all.map((ws) => ws.bookkeeper.flush().catch(() => {})));
    await Promise.all(all.map((ws) => ws.writer.close()));
    for (const ws of all) ws.client.close();
    this.#open.clear();
    this.#views.clear();
    (await this.#empty?.catch(() => null))?.close();
  }

  /** The entry of an open or opening workspace; opens it if it exists or `create` says so; else null. */
  #enter(id: string, create: boolean): Entry | null {
    if (this.#closed) throw new Error('the server is shutting down');
    const found = this.#open.get(id);
    if (found) return found;
    if (!create && !this.exists(id)) return null;
    const entry: Entry = { id, ws: null, pins: 0, used: ++this.#tick, ready: null as unknown as Promise<Workspace> };
    entry.ready = this.#openWorkspace(id).then(
      (ws) => {
        this.#failures.delete(id);
        if (this.#closed) {
          // Shutdown began while it opened: nothing may use it any more.
          ws.client.close();
          throw new Error('the server is shutting down');
        }
        entry.ws = ws;
        this.#trim();
        return ws;
      },
      (error) => {
        // A failed open is not kept: the next use tries again (disk back, remote reachable).
        if (this.#open.get(id) === entry) this.#open.delete(id);
        this.#failures.set(id, Date.now());
        throw error;
      },
    );
    // Whoever needs it awaits it; a failure nobody waited for is still recorded above.
    entry.ready.catch(() => {});
    this.#open.set(id, entry);
    return entry;
  }

  /** Runs `use` on the entry's open database, which is not closed until `use` settles. */
  async #using<T>(entry: Entry, use: (ws: Workspace) => Promise<T>): Promise<T> {
    entry.pins++;
    entry.used = ++this.#tick;
    try {
      return await use(entry.ws ?? (await entry.ready));
    } finally {
      entry.pins--;
      if (this.#open.size > this.#maxOpen) this.#trim();
    }
  }

  /** Runs a read on the workspace's database, or on the empty database while it does not exist. */
  async #read<T>(id: string, use: (client: Client) => Promise<T>): Promise<T> {
    const entry = this.#enter(id, false);
    if (!entry) {
      if (!this.#empty) {
        const empty = openEmptyDatabase();
        this.#empty = empty;
        empty.catch(() => {
          if (this.#empty === empty) this.#empty = null;
        });
      }
      return use(await this.#empty);
    }
    return this.#using(entry, (ws) => use(ws.client));
  }

  #createView(id: string): WorkspaceView {
    const routed = new RoutedClient((use) => this.#read(id, use));
    return {
      id,
      db: drizzleFor(routed as unknown as Client, this.#opts.onQuery),
      writer: {
        run: async (fn) => this.#using(this.#enter(id, true) as Entry, (ws) => ws.writer.run(fn)),
      },
      bookkeeper: {
        recalled: (ids) => this.#note(id, ids, (b) => b.recalled(ids)),
        stale: (ids) => this.#note(id, ids, (b) => b.stale(ids)),
      },
    };
  }

  /** Hands read bookkeeping to the workspace's bookkeeper, which keeps the database open until it is written. */
  #note(id: string, ids: readonly string[], note: (b: Bookkeeper) => void): void {
    if (ids.length === 0 || this.#closed) return;
    const entry = this.#enter(id, false);
    if (!entry) return;
    this.#using(entry, async (ws) => note(ws.bookkeeper)).catch(() => {
      // Bookkeeping is best effort: a database that cannot be reopened loses only counters.
    });
  }

  /** Closes the least recently used idle databases while more than `maxOpen` are open. */
  #trim(): void {
    while (this.#open.size > this.#maxOpen) {
      let oldest: Entry | null = null;
      for (const e of this.#open.values()) {
        if (isIdle(e) && (oldest === null || e.used < oldest.used)) oldest = e;
      }
      if (!oldest?.ws) {
        // Everything over the cap is busy right now; its writes finish within moments.
        this.#trimTimer ??= setTimeout(() => {
          this.#trimTimer = null;
          if (!this.#closed) this.#trim();
        }, TRIM_RETRY_MS).unref();
        return;
      }
      this.#open.delete(oldest.id);
      // Idle: nothing queued, nothing in flight, so nothing can be lost by closing now.
      void oldest.ws.writer.close();
      oldest.ws.client.close();
    }
  }

  async #openWorkspace(id: string): Promise<Workspace> {
    const location = this.locate(id);
    // A file deleted since it was migrated comes back empty and needs its schema again.
    const fresh = location.local && !existsSync(location.url.slice('file:'.length));
    if (location.local) this.#assertInside(id, location.url.slice('file:'.length));
    let opened: OpenedDatabase;
    try {
      // The migrator reads every migration file and syncs the log each time; a database
      // reopened after an idle close needs none of that.
      opened = await openDatabase(location, {
        migrate: fresh || !this.#migrated.has(id),
        workspace: id,
        onQuery: this.#opts.onQuery,
        onCommit: this.#opts.onCommit,
        clock: this.#opts.clock,
        // A hosted database pays a round trip per statement and times a transaction out
        // after 5 s, so its group commits stay small; a local file takes many per fsync.
        maxBatch: location.local ? 64 : 8,
        offThread: this.#opts.writerThread,
        readerThreads: this.#opts.readerThreads,
      });
    } catch (error) {
      this.#opts.onOpenFailure?.(id, error);
      throw unavailable(id, error);
    }
    this.#migrated.add(id);
    return { id, ...opened, bookkeeper: new Bookkeeper(opened.writer) };
  }

  /** A workspace file that is a link leading outside the data directory is refused, not followed. */
  #assertInside(id: string, path: string): void {
    try {
      assertInsideDataDir(this.#opts.dataDir, path);
    } catch (error) {
      this.#opts.onOpenFailure?.(id, error);
      throw Object.assign(
        new DomainError(
          'UNAVAILABLE',
          `the database of workspace ${id} leads outside the data directory; the server refuses to open it (an operator must remove the link)`,
        ),
        { cause: error },
      );
    }
  }
}

function isIdle(e: Entry): boolean {
  return e.ws !== null && e.pins === 0 && e.ws.writer.idle && e.ws.bookkeeper.idle;
}

/**
 * The `Client` surface drizzle uses for reads, sending each call to wherever the
 * workspace's database is at that moment. Reads never open a transaction of their own
 * (writes go through the writer, which holds the real client).
 */
class RoutedClient {
  readonly #route: <T>(use: (client: Client) => Promise<T>) => Promise<T>;

  constructor(route: <T>(use: (client: Client) => Promise<T>) => Promise<T>) {
    this.#route = route;
  }

  execute(stmt: InStatement | string, args?: InArgs): Promise<ResultSet> {
    const statement = typeof stmt === 'string' ? { sql: stmt, args: args ?? [] } : stmt;
    return this.#route((client) => client.execute(statement));
  }

  batch(stmts: Array<InStatement | [string, InArgs?]>, mode?: TransactionMode): Promise<ResultSet[]> {
    return this.#route((client) => client.batch(stmts, mode));
  }

  readTask<T>(module: URL, name: string, args: unknown): Promise<{ value: T } | null> {
    return this.#route(async (client) => (client as Partial<ReadTasks>).readTask?.<T>(module, name, args) ?? null);
  }

  transaction(): never {
    throw new Error("a read view cannot open a transaction; writes go through the workspace's writer");
  }
}

/**
 * A workspace database that cannot be opened or migrated: a clear, retryable error. It
 * says why (connection refused, token refused, disk error) but not where the database is
 * or how it is configured: that is for the operator, in the server's log.
 */
function unavailable(id: string, cause: unknown): DomainError {
  // A hosted database's failure names its cause: in details when the open failed (see
  // db/remote-failure.ts), in parentheses when a request did (see db/remote-client.ts).
  const reason =
    cause instanceof DomainError
      ? (cause.details.reason ?? /\((.*)\)/.exec(cause.message)?.[1])
      : (cause as { code?: unknown })?.code;
  return Object.assign(
    new DomainError(
      'UNAVAILABLE',
      `the database of workspace ${id} cannot be opened right now${typeof reason === 'string' ? ` (${reason})` : ''}; retry later`,
    ),
    { cause },
  );
}
