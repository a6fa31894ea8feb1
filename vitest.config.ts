import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);
const client = (path: string) => fileURLToPath(new URL(`./client/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      // graphql ships both index.js (CJS, what Node loads for graphql-yoga and Pothos) and
      // index.mjs (what Vite's "module" field would pick for our sources). Two copies break
      // `instanceof GraphQLError` in error masking, so tests load the one Node loads.
      { find: /^graphql$/, replacement: require.resolve('graphql') },
      // The client package exports its build (client/dist); tests import its sources, so they never
      // run a stale build. test/integration/client-package.test.ts packs and runs the build itself.
      { find: /^mini-sphere-client$/, replacement: client('src/index.ts') },
      {
        find: /^mini-sphere-client\/persisted-documents\.json$/,
        replacement: client('src/generated/persisted-documents.json'),
      },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Memory-bound tests measure retained heap after a forced collection.
    execArgv: ['--expose-gc'],
    reporters: process.env.CI ? ['default', 'junit'] : ['default'],
    outputFile: { junit: 'test-results/junit.xml' },
  },
});
