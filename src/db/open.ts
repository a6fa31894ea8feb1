import type { Client } from '@libsql/client';
import { type DatabaseLocation, drizzleFor, migrateDb, openClient, type RootDb } from './client.ts';
import { remoteUnavailable, WORKSPACE_DB_SETTINGS } from './remote-failure.ts';
import { Writer, type WriterOptions } from './writer.ts';

/** A workspace's database, open and ready: its client, drizzle over it, and its one writer. */
export interface OpenedDatabase {
  client: Client;
  db: RootDb;
  writer: Writer;
}

/**
 * Opens the database at `location`, applies pending migrations (unless `migrate` is false:
 * the server skips them for a database it migrated before) and starts its writer. The
 * server and the command-line tools open a workspace the same way through this; when a
 * step fails the client is closed again, so nothing is left open. A hosted database that
 * cannot be used fails with UNAVAILABLE naming the database, the cause and the setting to
 * check: the first statement (the migrator's) is where an unreachable host or a refused
 * token shows, and drizzle's own message would only quote that statement.
 */
export async function openDatabase(
  location: DatabaseLocation,
  opts: WriterOptions & { migrate?: boolean; readerThreads?: number },
): Promise<OpenedDatabase> {
  const client = await openClient(location, { readers: opts.readerThreads }).catch((error: unknown) => {
    throw location.local ? error : remoteUnavailable(location.url, error, WORKSPACE_DB_SETTINGS);
  });
  try {
    const db = drizzleFor(client, opts.onQuery);
    if (opts.migrate !== false) await migrateDb(db);
    const { migrate: _, readerThreads: __, ...writerOptions } = opts;
    // Over the network, a group of planned writes goes as one or two requests (see PlannedWrite).
    return { client, db, writer: new Writer(client, { pipelined: !location.local, ...writerOptions }) };
  } catch (error) {
    client.close();
    throw location.local ? error : remoteUnavailable(location.url, error, WORKSPACE_DB_SETTINGS);
  }
}
