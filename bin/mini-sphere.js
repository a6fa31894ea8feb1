#!/usr/bin/env -S node --heap-growing-percent=20
// --heap-growing-percent=20: V8's default lets garbage that young collections promoted
// (a recall outlives a scavenge) pile up to about twice the live heap before a full
// collection, so the server's memory after a burst of recalls swung between 209 and
// 275 MB at 100k entries; capping growth at 20% keeps it near 190 MB for a few more
// (incremental) full collections of a ~50 MB heap. `node bin/mini-sphere.js` runs
// without it; `mini-sphere`, `npx mini-sphere` and `npm start` run with it.
// Starts the CLI from the prebuilt bundle, rebuilding it first when a source file is newer
// (scripts/build.mjs, a second or so, once), and compiles the TypeScript on load with tsx
// only when the bundle cannot be built (a read-only install, a syntax error: tsx then
// reports it) or another process is building it right now.
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = `${root}dist/server/cli.js`;
const lock = `${root}dist/.build-lock`;
/** A lock older than this was left by a build that died; builds take seconds. */
const STALE_LOCK_MS = 120_000;

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function bundleIsFresh() {
  try {
    return statSync(bundle).mtimeMs >= newestSource(`${root}src`);
  } catch {
    return false;
  }
}

function takeLock() {
  mkdirSync(`${root}dist`, { recursive: true });
  try {
    mkdirSync(lock);
    return true;
  } catch {
    if (Date.now() - statSync(lock).mtimeMs < STALE_LOCK_MS) return false;
    rmSync(lock, { recursive: true, force: true });
    mkdirSync(lock);
    return true;
  }
}

async function rebuilt() {
  try {
    if (!takeLock()) return false;
  } catch {
    return false;
  }
  try {
    const { buildBundle } = await import('../scripts/build.mjs');
    await buildBundle({ quiet: true });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

// Unless told otherwise, dependencies run as in production: graphql-js otherwise checks every
// type test of every field it executes for a second copy of itself (about 3% of a graphView's
// CPU time). Tests run with NODE_ENV=test, which children they start inherit.
process.env.NODE_ENV ??= 'production';

if (process.env.SPHERE_NO_BUNDLE !== '1' && (bundleIsFresh() || (await rebuilt()))) {
  await import(bundle);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
