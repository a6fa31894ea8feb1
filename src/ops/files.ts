import { existsSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { badInput } from '../contract/errors.ts';

/** Flushes a file, or a directory's list of names, to disk. */
export async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `target` through `write`, which fills a temporary file beside it; that file is
 * flushed to disk and renamed into place, so the target never holds half a file, and it is
 * removed whatever happens. An existing target is refused unless `force`.
 */
export async function writeThenRename<T>(
  target: string,
  opts: { force: boolean },
  write: (partial: string) => Promise<T>,
): Promise<T> {
  if (existsSync(target) && !opts.force) throw badInput(`${target} exists; pass --force to overwrite it`);
  const partial = `${target}.partial-${process.pid}`;
  await rm(partial, { force: true });
  try {
    const result = await write(partial);
    await fsyncPath(partial);
    await rename(partial, target);
    await fsyncPath(dirname(target));
    return result;
  } finally {
    await rm(partial, { force: true });
  }
}
