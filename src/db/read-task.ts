import { type Db, drizzleFor } from './client.ts';
import { type LaneBudget, LocalClient, type LocalClientOptions } from './local-client.ts';

/** What a task is given about the reader thread's connection it runs for (see LocalClient.readTask). */
export interface TaskConnection {
  /** The connection's key on its thread: one per client and thread, closed with the client. */
  key: number;
  path: string;
  timeout: number;
  /** The thread's read-only connection itself (a libsql Database), which the task reads through. */
  db: LocalClientOptions['connection'];
}

/** A task module, as a reader thread loads it. */
export interface TaskModule {
  runTask(name: string, connection: TaskConnection, args: unknown): Promise<unknown>;
  closeTask(key: number): void;
}

/**
 * Lanes (see LocalClientOptions.lanes) this thread's task databases hold at once: recall's
 * statements take six, so five workspaces read at full speed at once, at up to about a
 * megabyte each (a connection, its schema and its page cache); the statements of the others
 * run on the thread's connection, as they did before lanes.
 */
const LANES_PER_THREAD = 32;
/** A task database unused this long gives its lanes back, so that busy workspaces get them. */
const LANES_IDLE_MS = 60_000;

const lanes: LaneBudget = { open: 0, max: LANES_PER_THREAD };
const open = new Map<number, { client: LocalClient; db: Db; usedAt: number }>();
let sweeping: NodeJS.Timeout | null = null;

/** Lanes this thread's task databases hold now. */
export function openTaskLanes(): number {
  return lanes.open;
}

/** Closes the lanes of task databases unused for LANES_IDLE_MS before `now` (every half of it, on a timer). */
export function dropIdleLanes(now = Date.now()): void {
  for (const opened of open.values()) if (opened.usedAt <= now - LANES_IDLE_MS) opened.client.dropLanes();
}

/**
 * The database a task reads, on its reader thread: the thread's own read-only connection to
 * the file behind a client (with its prepared statements), and the lanes beside it, made on
 * first use and dropped with the connection. Sharing it is safe: every read on it, a batch
 * included, runs to the end before anything else on the thread does.
 */
export function taskDb(connection: TaskConnection): Db {
  let opened = open.get(connection.key);
  if (!opened) {
    const { path, timeout, db } = connection;
    const client = new LocalClient({ path, timeout, connection: db, lanes });
    opened = { client, db: drizzleFor(client), usedAt: 0 };
    open.set(connection.key, opened);
    sweeping ??= setInterval(dropIdleLanes, LANES_IDLE_MS / 2).unref();
  }
  opened.usedAt = Date.now();
  return opened.db;
}

/** Closes the task database of a connection that was closed (its client closed). */
export function closeTaskDb(key: number): void {
  open.get(key)?.client.close();
  open.delete(key);
  if (open.size === 0 && sweeping) {
    clearInterval(sweeping);
    sweeping = null;
  }
}
