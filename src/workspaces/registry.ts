import type { Client } from '@libsql/client';
import {
  type DatabaseLocation,
  drizzleFor,
  locateWorkspace,
  migrateDb,
  openClient,
  type QueryListener,
  type RootDb,
} from '../db/client.ts';
import { Writer } from '../db/writer.ts';
import type { MemoryEventRecord } from '../events/types.ts';
import { Bookkeeper } from '../memory/bookkeeping.ts';
import { DomainError } from '../memory/errors.ts';

/** One open workspace: its database, its single writer, and its deferred read bookkeeping. */
export interface Workspace {
  id: string;
  client: Client;
  db: RootDb;
  writer: Writer;
  bookkeeper: Bookkeeper;
}

export interface RegistryOptions {
  dataDir: string;
  dbUrl: string | null;
  dbAuthToken: string | null;
  /** Receives every committed batch of events of every workspace. */
  onCommit: (events: MemoryEventRecord[]) => void;
  clock?: () => number;
  onQuery?: QueryListener;
}

/**
 * Opens each workspace database once, migrates it, and keeps it open for the life of
 * the process (reopening libSQL clients leaks file descriptors).
 */
export class WorkspaceRegistry {
  readonly #opts: RegistryOptions;
  readonly #open = new Map<string, Promise<Workspace>>();
  /** Workspaces whose database failed to open, and when: /health reports them for a while. */
  readonly #failures = new Map<string, number>();
  #closed = false;

  constructor(opts: RegistryOptions) {
    this.#opts = opts;
  }

  locate(id: string): DatabaseLocation {
    return locateWorkspace(id, this.#opts);
  }

  /** The workspace with this id, opened (and created) on first use. */
  get(id: string): Promise<Workspace> {
    if (this.#closed) return Promise.reject(new Error('the server is shutting down'));
    let ws = this.#open.get(id);
    if (!ws) {
      ws = this.#openWorkspace(id);
      // A failed open is not cached: the next request tries again (disk back, remote reachable).
      ws.then(
        () => this.#failures.delete(id),
        () => {
          this.#open.delete(id);
          this.#failures.set(id, Date.now());
        },
      );
      this.#open.set(id, ws);
    }
    return ws;
  }

  /** Workspaces whose database failed to open within the last `withinMs`. */
  recentFailures(withinMs = 60_000): string[] {
    const since = Date.now() - withinMs;
    return [...this.#failures].filter(([, at]) => at >= since).map(([id]) => id);
  }

  /** The workspaces opened so far. */
  async opened(): Promise<Workspace[]> {
    const all = await Promise.allSettled(this.#open.values());
    return all.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  }

  /** Finishes every queued write, then closes every database. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = await this.opened();
    await Promise.all(all.map((ws) => ws.bookkeeper.flush().catch(() => {})));
    await Promise.all(all.map((ws) => ws.writer.close()));
    for (const ws of all) ws.client.close();
    this.#open.clear();
  }

  async #openWorkspace(id: string): Promise<Workspace> {
    const location = this.locate(id);
    let client: Client;
    try {
      client = await openClient(location);
    } catch (error) {
      throw unavailable(id, error);
    }
    try {
      const db = drizzleFor(client, this.#opts.onQuery);
      await migrateDb(db);
      const writer = new Writer(client, {
        workspace: id,
        onQuery: this.#opts.onQuery,
        onCommit: this.#opts.onCommit,
        clock: this.#opts.clock,
        // A hosted database pays a round trip per statement and times a transaction out
        // after 5 s, so its group commits stay small; a local file takes many per fsync.
        maxBatch: location.local ? 64 : 8,
      });
      return { id, client, db, writer, bookkeeper: new Bookkeeper(writer) };
    } catch (error) {
      client.close();
      throw unavailable(id, error);
    }
  }
}

/** A workspace database that cannot be opened or migrated: a clear, retryable error. */
function unavailable(id: string, cause: unknown): DomainError {
  const reason = (cause as { code?: unknown })?.code;
  return new DomainError(
    'UNAVAILABLE',
    `the database of workspace ${id} cannot be opened right now${typeof reason === 'string' ? ` (${reason})` : ''}; retry later`,
  );
}
