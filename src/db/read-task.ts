import { type Db, drizzleFor } from './client.ts';
import { LocalClient, type LocalClientOptions } from './local-client.ts';

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

const open = new Map<number, { client: LocalClient; db: Db }>();

/**
 * The database a task reads, on its reader thread: the thread's own read-only connection to
 * the file behind a client (with its prepared statements), made on first use and dropped
 * with the connection. Sharing it is safe: every read on it, a batch included, runs to the
 * end before anything else on the thread does.
 */
export function taskDb(connection: TaskConnection): Db {
  let opened = open.get(connection.key);
  if (!opened) {
    const { path, timeout, db } = connection;
    const client = new LocalClient({ path, timeout, connection: db });
    opened = { client, db: drizzleFor(client) };
    open.set(connection.key, opened);
  }
  return opened.db;
}

/** Closes the task database of a connection that was closed (its client closed). */
export function closeTaskDb(key: number): void {
  open.get(key)?.client.close();
  open.delete(key);
}
