import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, createClient } from '@libsql/client';
import { type Db, drizzleFor, migrateDb, openClient } from '../../src/db/client.ts';

/** Every row of a workspace database's own tables, in a stable order. */
export interface WorkspaceDump {
  entries: Record<string, unknown>[];
  tags: Record<string, unknown>[];
  edges: Record<string, unknown>[];
  revisions: Record<string, unknown>[];
  events: Record<string, unknown>[];
  ftsRows: number;
}

/** A migrated workspace database in a temp dir of its own, read and written where it is called. */
export interface ScratchDb {
  client: Client;
  db: Db;
  /** Closes the client and removes the dir. */
  close(): Promise<void>;
}

export async function scratchWorkspaceDb(prefix: string): Promise<ScratchDb> {
  const dir = await mkdtemp(join(tmpdir(), `sphere-${prefix}-`));
  const client = await openClient({ url: `file:${join(dir, 'w.db')}`, local: true });
  const db = drizzleFor(client) as unknown as Db;
  await migrateDb(db as never);
  return {
    client,
    db,
    close: async () => {
      client.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Opens a workspace database file directly, beside the running server (WAL lets both read). */
export async function openWorkspaceDb(path: string): Promise<Client> {
  const client = createClient({ url: `file:${path}`, intMode: 'number' });
  await client.execute('PRAGMA busy_timeout = 5000');
  return client;
}

async function withDb<T>(path: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = await openWorkspaceDb(path);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

const rows = async (client: Client, sql: string) =>
  (await client.execute(sql)).rows.map((r) => ({ ...r }) as Record<string, unknown>);

/** A full dump of a workspace database: compare two to show that nothing was written. */
export function dumpWorkspace(path: string): Promise<WorkspaceDump> {
  return withDb(path, async (client) => ({
    entries: await rows(client, 'SELECT * FROM entries ORDER BY n'),
    tags: await rows(client, 'SELECT * FROM tags ORDER BY entry_id, tag'),
    edges: await rows(client, 'SELECT * FROM edges ORDER BY src, dst, type'),
    revisions: await rows(client, 'SELECT * FROM revisions ORDER BY id'),
    events: await rows(client, 'SELECT * FROM events ORDER BY seq'),
    ftsRows: Number((await client.execute('SELECT count(*) AS n FROM entries_fts')).rows[0]?.n),
  }));
}

/**
 * FTS5's integrity check against the external content table: throws (SQLITE_CORRUPT_VTAB)
 * when the index is out of step with `entries`.
 */
export function checkFtsIntegrity(path: string): Promise<void> {
  return withDb(path, async (client) => {
    await client.execute("INSERT INTO entries_fts(entries_fts, rank) VALUES('integrity-check', 1)");
  });
}
