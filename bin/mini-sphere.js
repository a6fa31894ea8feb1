#!/usr/bin/env -S node --heap-growing-percent=20
// --heap-growing-percent=20: V8's default lets garbage that young collections promoted
// (a recall outlives a scavenge) pile up to about twice the live heap before a full
// collection, so the server's memory after a burst of recalls swung between 209 and
// 275 MB at 100k entries; capping growth at 20% keeps it near 190 MB for a few more
// (incremental) full collections of a ~50 MB heap. `node bin/mini-sphere.js` runs
// without it; `mini-sphere`, `npx mini-sphere` and `npm start` run with it.
// Starts the CLI from the prebuilt bundle when it is newer than every source file, and
// otherwise compiles the TypeScript on load with tsx (no build step needed either way).
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = `${root}dist/server/cli.js`;

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

if (process.env.SPHERE_NO_BUNDLE !== '1' && bundleIsFresh()) {
  await import(bundle);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
