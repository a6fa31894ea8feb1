import { rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createClient } from '@libsql/client';
import { badInput, usage } from '../contract/errors.ts';
import { writeThenRename } from './files.ts';
import { type OpsWorkspace, workspaceFile } from './workspace.ts';

export interface BackupReport {
  workspace: string;
  file: string;
  bytes: number;
  /** Row counts read back from the backup file. */
  counts: { entries: number; tags: number; edges: number; revisions: number; events: number };
}

const TABLES = ['entries', 'tags', 'edges', 'revisions', 'events'] as const;

/**
 * Writes a consistent copy of a workspace database with `VACUUM INTO`, which reads one
 * snapshot and so works while a server is writing. The copy is written beside the
 * target under a temporary name, flushed to disk and renamed into place, so the target
 * path never holds half a backup. An existing target is refused unless `force`.
 */
export async function backupWorkspace(ws: OpsWorkspace, to: string, opts: { force: boolean }): Promise<BackupReport> {
  const source = workspaceFile(ws.location);
  if (!source) {
    throw badInput('backup copies a database file; for a hosted database use export (or the provider’s backups)');
  }
  const target = resolve(to);
  if (target === resolve(source) || target.startsWith(`${resolve(source)}-`)) {
    throw usage('the backup cannot overwrite the workspace’s own database files');
  }
  const counts = await writeThenRename(target, opts, async (partial) => {
    await ws.client.execute({ sql: 'VACUUM INTO ?', args: [partial] });
    const counts = await countRows(partial);
    // A stale log of the file replaced would otherwise be read as part of the backup.
    if (opts.force) await Promise.all(['-wal', '-shm'].map((suffix) => rm(`${target}${suffix}`, { force: true })));
    return counts;
  });
  return { workspace: ws.id, file: target, bytes: (await stat(target)).size, counts };
}

async function countRows(file: string): Promise<BackupReport['counts']> {
  const client = createClient({ url: `file:${file}`, intMode: 'number' });
  try {
    const counts = { entries: 0, tags: 0, edges: 0, revisions: 0, events: 0 };
    for (const table of TABLES) {
      counts[table] = Number((await client.execute(`SELECT count(*) FROM ${table}`)).rows[0]?.[0] ?? 0);
    }
    return counts;
  } finally {
    client.close();
  }
}
