import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, resolve, sep } from 'node:path';

/**
 * A database path the server refuses to use: it leads outside the data directory, or the
 * control database holds what another program put there. Not retryable: an operator must
 * move or remove the file.
 */
export class DataDirRefusal extends Error {
  override name = 'DataDirRefusal';
}

/** The files SQLite keeps beside a database: each could be a link of its own. */
const COMPANIONS = ['', '-wal', '-shm', '-journal'];

/**
 * Throws a DataDirRefusal when the database file `path` (or its WAL, shared-memory or
 * journal file) is a link that resolves outside the data directory `dataDir`, or a link
 * that leads nowhere: a planted `workspace.db -> /elsewhere/file` would otherwise make the
 * server create and write files wherever it points. Files that do not exist yet are fine
 * (they will be created inside); the data directory itself may be a link.
 *
 * @example assertInsideDataDir('/var/lib/sphere', '/var/lib/sphere/notes.db')
 */
export function assertInsideDataDir(dataDir: string, path: string): void {
  let root: string;
  try {
    root = realpathSync(dataDir);
  } catch {
    return; // No data directory yet: whatever is created goes inside it.
  }
  for (const suffix of COMPANIONS) {
    const file = `${path}${suffix}`;
    let real: string;
    try {
      // A file that is no link is where its path says, in the data directory. One that is
      // gone by now (a WAL deleted by a closing connection) will be created there.
      if (!lstatSync(file).isSymbolicLink()) continue;
      real = resolveLink(file);
    } catch {
      continue;
    }
    if (!real.startsWith(root + sep)) {
      throw new DataDirRefusal(
        `${file} resolves to ${real}, outside the data directory ${root}; refusing to use it (remove the link or move the database inside)`,
      );
    }
  }
}

/** Where `file` leads: its real path, or for a link to nothing yet, where that file would be created. */
function resolveLink(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    const target = resolve(dirname(file), readlinkSync(file));
    try {
      return `${realpathSync(dirname(target))}${sep}${basename(target)}`;
    } catch {
      return target;
    }
  }
}
