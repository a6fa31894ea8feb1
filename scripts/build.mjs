// Bundles the CLI and server into dist/server/cli.js so that `mini-sphere` starts on plain
// Node (about 80 MB less memory than compiling TypeScript on load). Runs on `npm install`
// and `npm ci` (prepare); bin/mini-sphere.js falls back to tsx while the bundle is stale.
// The bundle sits two folders deep, like the sources, so paths that src/<dir>/*.ts resolve
// from import.meta.url (drizzle/, web/) resolve the same from it. It also compiles the typed
// client package to client/dist (scripts/build-client.mjs).
import { build } from 'esbuild';
import { buildClient } from './build-client.mjs';

const server = build({
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/server/cli.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});

await Promise.all([server, buildClient()]);
