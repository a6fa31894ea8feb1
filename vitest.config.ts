import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SLOW_TEST_BUDGET, TEST_BUDGET } from './test/helpers/budget.ts';

const require = createRequire(import.meta.url);
const client = (path: string) => fileURLToPath(new URL(`./client/${path}`, import.meta.url));

/**
 * Suites that run for minutes or load the whole machine: crash rounds, browsers, bench-like
 * loads. `npm test` leaves them out; `npm run test:slow` runs them one file at a time, so on
 * a two-core machine they never compete with each other for the processor.
 */
const SLOW_TESTS = [
  'test/integration/crash.test.ts',
  'test/e2e/**/*.test.ts',
  'test/integration/hostile-tenant.test.ts',
  'test/integration/fanout.test.ts',
  'test/integration/deployment.test.ts',
  'test/integration/client-reconnect.test.ts',
  'test/integration/reader-threads.test.ts',
  'test/integration/import-beside-server.test.ts',
  'test/integration/connection-limits.test.ts',
  'test/integration/data-dir.test.ts',
  'test/integration/replay-paging.test.ts',
  'test/integration/large-answers.test.ts',
  'test/integration/message-bursts.test.ts',
  'test/integration/embeddings-onnx-load.test.ts',
];

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
      { find: /^mini-sphere-client\/caches$/, replacement: client('src/caches.ts') },
      { find: /^mini-sphere-client\/caches\/(apollo|urql)$/, replacement: client('src/caches/$1.ts') },
      {
        find: /^mini-sphere-client\/persisted-documents\.json$/,
        replacement: client('src/generated/persisted-documents.json'),
      },
    ],
  },
  test: {
    pool: 'forks',
    // Builds the CLI bundle and the typed client once, when stale, before any test starts a process.
    globalSetup: ['test/helpers/global-setup.ts'],
    // Memory-bound tests measure retained heap after a forced collection.
    execArgv: ['--expose-gc'],
    reporters: process.env.CI ? ['default', 'junit'] : ['default'],
    // `npm run test:slow` writes test-results/junit-slow.xml instead (see package.json).
    outputFile: { junit: 'test-results/junit.xml' },
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: SLOW_TESTS,
          testTimeout: TEST_BUDGET,
          hookTimeout: TEST_BUDGET,
          // Vitest's default on a two-core machine is one worker, which left half of it idle: the
          // suite spent 235 s of CPU in 281 s, most tests waiting on child processes, fsyncs and
          // sockets. Two workers overlap those waits.
          maxWorkers: Math.max(2, availableParallelism()),
          // Each worker keeps its modules from file to file instead of importing the server's
          // sources afresh for each: imports took 366 s of worker time with isolation and 42 s
          // without, and the suite's CPU time fell by a quarter (248 s to 179 s). Test files share
          // no module state: each starts its own servers over its own temp directories and names
          // its workspaces with freshWorkspace().
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: SLOW_TESTS,
          testTimeout: SLOW_TEST_BUDGET,
          hookTimeout: SLOW_TEST_BUDGET,
          maxWorkers: 1,
          // Runs after `main` when both are selected (`npx vitest run`), since their worker counts differ.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
