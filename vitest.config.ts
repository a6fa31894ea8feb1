import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql ships both index.js (CJS, what Node loads for graphql-yoga and Pothos) and
    // index.mjs (what Vite's "module" field would pick for our sources). Two copies break
    // `instanceof GraphQLError` in error masking, so tests load the one Node loads.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
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
