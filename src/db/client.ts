import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Client, createClient, type ResultSet } from '@libsql/client';
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import { checkWorkspaceId } from '../contract/ids.ts';
import { hostedFetch } from './hosted-fetch.ts';
import { LocalClient } from './local-client.ts';
import { RemoteClient } from './remote-client.ts';
import { schema } from './schema.ts';

export type Schema = typeof schema;
/** The drizzle database over a workspace client (reads and the writer's transaction both fit). */
export type Db = BaseSQLiteDatabase<'async', ResultSet, Schema>;
export type RootDb = LibSQLDatabase<Schema>;

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** How a workspace database is reached: an embedded file, or a hosted libSQL URL. */
export interface DatabaseLocation {
  url: string;
  authToken?: string;
  local: boolean;
}

/**
 * Where a workspace lives. The id is validated here as well as at the edge, so no
 * caller can turn it into a path or a host name.
 */
export function locateWorkspace(
  workspace: string,
  opts: { dataDir: string; dbUrl: string | null; dbAuthToken: string | null },
): DatabaseLocation {
  checkWorkspaceId(workspace);
  if (opts.dbUrl) {
    return {
      url: opts.dbUrl.replaceAll('{workspace}', workspace),
      authToken: opts.dbAuthToken ?? undefined,
      local: false,
    };
  }
  return { url: `file:${join(opts.dataDir, `${workspace}.db`)}`, local: true };
}

/**
 * Opens a libSQL client for a location and prepares it (WAL, durable commits). An embedded
 * file gets a LocalClient, which keeps prepared statements; a hosted database gets the
 * stock remote client over node:http (see hostedFetch).
 */
export async function openClient(location: DatabaseLocation, opts: { readers?: number } = {}): Promise<Client> {
  if (!location.local) {
    const client = createClient({
      url: asBaseUrl(location.url),
      authToken: location.authToken,
      intMode: 'number',
      fetch: hostedFetch,
    });
    return new RemoteClient(client);
  }
  const path = location.url.slice('file:'.length);
  mkdirSync(dirname(path), { recursive: true });
  // Writers are serialized in-process, so a wait for the lock only covers other processes (a
  // CLI maintenance command beside a running server); it waits on timers, off this thread.
  // LocalClient puts the file in WAL mode (on the write thread) and syncs every commit
  // before it resolves (see there), and runs reads on the reader threads when it has some.
  return LocalClient.open({ path, timeout: 5_000, concurrency: 4, readers: opts.readers ?? 0 });
}

/**
 * The URL with a trailing slash on its path. @libsql/client resolves its endpoints
 * (`v2/pipeline`) against the URL as a relative reference, which drops the path's last
 * segment: `https://db.example/{workspace}` would send every workspace to
 * `https://db.example/v2/pipeline`, one database for all of them.
 */
export function asBaseUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname === '' || parsed.pathname.endsWith('/')) return url;
  parsed.pathname += '/';
  return parsed.toString();
}

/**
 * A workspace database with every table and nothing in it, in memory and read-only: what
 * a read of a workspace that does not exist runs against, so it answers exactly as an
 * empty workspace would without a file being created. One connection, because each
 * connection to `:memory:` would be a database of its own.
 */
export async function openEmptyDatabase(): Promise<Client> {
  const client = new LocalClient({ path: ':memory:', concurrency: 1 });
  try {
    await migrateDb(drizzleFor(client));
    await client.execute('PRAGMA query_only = ON');
  } catch (error) {
    client.close();
    throw error;
  }
  return client;
}

/** Applies the committed drizzle migrations (idempotent). */
export async function migrateDb(db: RootDb): Promise<void> {
  await migrateConcurrently(() => migrate(db, { migrationsFolder: MIGRATIONS_FOLDER }));
}

/**
 * Runs a migration that another process may be running on the same database at the same
 * moment (two instances starting on one data directory, a CLI command beside a server).
 * The loser of that race fails ("already exists", busy); by the time it retries, the
 * winner has committed and there is nothing left to apply.
 */
export async function migrateConcurrently(run: () => Promise<void>, attempts = 5): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await run();
      return;
    } catch (error) {
      const message = String((error as Error)?.message ?? error);
      if (attempt >= attempts || !/already exists|SQLITE_BUSY|database is locked/i.test(message)) throw error;
      await new Promise((r) => setTimeout(r, 50 * attempt + Math.random() * 100));
    }
  }
}

/**
 * A client that can run a task module's work on a reader thread (LocalClient.readTask);
 * null from it means the work runs on the calling thread.
 */
export interface ReadTasks {
  readTask<T>(module: URL, name: string, args: unknown): Promise<{ value: T } | null>;
}

/**
 * A client that can say whether its database is usable without running a statement
 * (LocalClient.probe): /health then waits for no other request's statements.
 */
export interface Probed {
  probe(): Promise<void>;
}

/** Whether the database behind `client` is usable: its own probe, or a trivial statement (a hosted database). */
export async function probeClient(client: Client & Partial<Probed>): Promise<void> {
  if (client.probe) await client.probe();
  else await client.execute('SELECT 1');
}

/**
 * Runs a task of `module` where the database's reads run, when that is a reader thread:
 * its answer, or null when the caller should do the work itself (a hosted database, a
 * transaction, no reader threads, a workspace that does not exist yet).
 */
export async function onReaderThread<T>(
  db: Db,
  module: URL,
  name: string,
  args: unknown,
): Promise<{ value: T } | null> {
  const client = (db as { $client?: Partial<ReadTasks> }).$client;
  return client?.readTask ? client.readTask<T>(module, name, args) : null;
}

/**
 * The URL of a task module (see LocalClient.readTask) beside the calling module: `name.ts`
 * among the sources, `name.js` in the bundle, where scripts/build.mjs makes it an entry.
 */
export function taskModuleUrl(name: string, beside: string): URL {
  return new URL(`./${name}${beside.endsWith('.ts') ? '.ts' : '.js'}`, beside);
}

/** Receives every SQL statement drizzle runs (tests pin statement counts with it). */
export type QueryListener = (query: string, params: unknown[]) => void;

export function drizzleFor(client: Client, onQuery?: QueryListener): RootDb {
  return drizzle(client, { schema, logger: onQuery ? { logQuery: onQuery } : false });
}
