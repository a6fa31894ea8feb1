import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs once before any test file. Tests start `mini-sphere` as users do (bin/mini-sphere.js),
 * which rebuilds the CLI bundle when a source file is newer than it: done by the first of many
 * processes starting at once, the others fell back to compiling TypeScript on load (seconds
 * each), and the bundle was swapped under processes still loading its chunks. Building it here,
 * once, only when stale, gives every test the bundle a fresh `npm install` gives. The typed
 * client's build (client/dist, what the docs' TypeScript example imports) likewise.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

function builtAt(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

export default async function setup(): Promise<void> {
  const build = (await import(join(ROOT, 'scripts/build.mjs'))) as {
    buildBundle(o: { quiet: boolean }): Promise<void>;
  };
  const client = (await import(join(ROOT, 'scripts/build-client.mjs'))) as { buildClient(): Promise<boolean> };
  const work: Promise<unknown>[] = [];
  if (builtAt(join(ROOT, 'dist/server/cli.js')) < newest(join(ROOT, 'src')))
    work.push(build.buildBundle({ quiet: true }));
  if (builtAt(join(ROOT, 'client/dist/index.js')) < newest(join(ROOT, 'client/src'))) work.push(client.buildClient());
  await Promise.all(work);
}
