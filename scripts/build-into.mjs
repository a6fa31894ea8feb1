import { renameSync, rmSync } from 'node:fs';

/**
 * Runs `build(folder)` into a folder of its own beside `out` and then swaps it into place:
 * whoever reads `out` meanwhile (a CLI starting, a program type-checking against the client
 * package) finds the whole old build or the whole new one, never a half or nothing, and files
 * of an older build do not linger. A failed build leaves `out` as it was.
 */
export async function buildInto(out, build) {
  const fresh = `${out}.build-${process.pid}`;
  const old = `${out}.old-${process.pid}`;
  rmSync(fresh, { recursive: true, force: true });
  try {
    await build(fresh);
    try {
      renameSync(out, old);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    renameSync(fresh, out);
  } finally {
    rmSync(fresh, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
}
