import { existsSync, readdirSync } from 'node:fs';
import type { Client } from '@libsql/client';
import type { Config } from '../config.ts';
import { DomainError, usage } from '../contract/errors.ts';
import { WORKSPACE_ID } from '../contract/ids.ts';
import { type DatabaseLocation, locateWorkspace, type RootDb } from '../db/client.ts';
import { openDatabase } from '../db/open.ts';
import type { Writer } from '../db/writer.ts';

/** A workspace opened by a command-line tool: the same client factory and migrations as the server. */
export interface OpsWorkspace {
  id: string;
  location: DatabaseLocation;
  client: Client;
  db: RootDb;
  /**
   * A writer of this process. Beside a running server it is a second writer of the file:
   * its transactions start with BEGIN IMMEDIATE, so each side waits for the other's
   * commit (busy timeout) instead of failing; keep transactions short.
   */
  writer: Writer;
}

export interface OpenOptions {
  /** Create the database when it does not exist (import, migrate); otherwise a missing one is an error. */
  create?: boolean;
}

/** The workspace's database file, or null for a hosted database. */
export function workspaceFile(location: DatabaseLocation): string | null {
  return location.local ? location.url.slice('file:'.length) : null;
}

/** Opens (and migrates) a workspace, runs `fn`, and closes it again whatever happens. */
export async function withWorkspace<T>(
  config: Config,
  id: string,
  fn: (ws: OpsWorkspace) => Promise<T>,
  opts: OpenOptions = {},
): Promise<T> {
  const location = locateWorkspace(id, config);
  const file = workspaceFile(location);
  if (file && !opts.create && !existsSync(file)) {
    throw new DomainError('NOT_FOUND', `workspace ${JSON.stringify(id)} does not exist (no ${file})`);
  }
  return withDatabase(id, location, fn);
}

/** Opens (and migrates) the database at `location` as workspace `id`, runs `fn`, and closes it again. */
export async function withDatabase<T>(
  id: string,
  location: DatabaseLocation,
  fn: (ws: OpsWorkspace) => Promise<T>,
): Promise<T> {
  // Events written here reach the server's subscribers through the log (events(sinceSeq)), not live.
  const { client, db, writer } = await openDatabase(location, { workspace: id, onCommit: () => {} });
  try {
    return await fn({ id, location, client, db, writer });
  } finally {
    await writer.close();
    client.close();
  }
}

/** Every workspace with a database file in the data dir (files that are not `<workspace id>.db` are left out). */
export function listLocalWorkspaces(config: Config): string[] {
  if (config.dbUrl) {
    throw usage('hosted databases (SPHERE_DB_URL) cannot be listed: name one with --workspace');
  }
  if (!existsSync(config.dataDir)) return [];
  return readdirSync(config.dataDir)
    .filter((name) => name.endsWith('.db'))
    .map((name) => name.slice(0, -'.db'.length))
    .filter((id) => WORKSPACE_ID.test(id))
    .sort();
}
