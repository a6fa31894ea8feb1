// Bundles the CLI and server into dist/server/ so that `mini-sphere` starts on plain Node
// (about 80 MB less memory than compiling TypeScript on load). Runs on `npm install` and
// `npm ci` (prepare), and from bin/mini-sphere.js whenever a source file is newer than the
// bundle, so `mini-sphere`, `npx mini-sphere` and `npm start` all take the bundle.
// Split at every dynamic import: cli.js holds only the dispatcher and the help, and each
// command's module (and the server's, for serve) is a chunk loaded when that command runs,
// so `mini-sphere --help` reads a few KB instead of the whole server.
// The chunks sit two folders deep, like the sources, so paths that src/<dir>/*.ts resolve
// from import.meta.url (drizzle/, web/) resolve the same from them. Run as a script, it also
// compiles the typed client package to client/dist (scripts/build-client.mjs).

import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildClient } from './build-client.mjs';
import { buildInto } from './build-into.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Builds into a folder of its own and then swaps it into place, so a CLI starting meanwhile
 * never loads half a bundle, and chunks of an older build (their names carry content hashes)
 * do not pile up.
 */
export async function buildBundle({ quiet = false } = {}) {
  await buildInto(`${ROOT}dist/server`, (fresh) =>
    build({
      absWorkingDir: ROOT,
      // read-tasks: what reader threads load to run recall and graphView (src/retrieval/read-tasks.ts).
      entryPoints: { cli: 'src/cli/main.ts', 'read-tasks': 'src/retrieval/read-tasks.ts' },
      outdir: fresh,
      bundle: true,
      splitting: true,
      chunkNames: '[name]-[hash]',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      sourcemap: 'linked',
      logLevel: quiet ? 'silent' : 'warning',
    }),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await Promise.all([buildBundle(), buildClient()]);
}
