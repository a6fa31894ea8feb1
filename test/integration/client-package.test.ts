import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLIENT = join(ROOT, 'client');

/** An agent's script: the package by its name, on plain Node (no TypeScript loader). */
const AGENT_SCRIPT = `
import WebSocket from 'ws';
import { createSphereClient } from 'mini-sphere-client';
import manifest from 'mini-sphere-client/persisted-documents.json' with { type: 'json' };

const sphere = createSphereClient({ url: process.argv[2], workspace: 'packed', webSocketImpl: WebSocket, persisted: true });
const { entry } = await sphere.capture({ content: 'The cobalt pipeline deploys from the release branch.', tags: ['deploy'] });
const { hits } = await sphere.recall({ query: 'cobalt pipeline', topK: 3 });
await sphere.close();
console.log(JSON.stringify({ id: entry.id, hits: hits.map((h) => h.entry.id), documents: Object.keys(manifest).length }));
`;

/** A web app's cache set up from the package's cache configuration, on plain Node. */
const CACHES_SCRIPT = `
import { InMemoryCache, gql } from '@apollo/client';
import { apolloTypePolicies, evictForgotten, possibleTypes, urqlKeys, urqlUpdates } from 'mini-sphere-client/caches';

const cache = new InMemoryCache({ typePolicies: apolloTypePolicies, possibleTypes });
cache.writeQuery({
  query: gql\`{ stats { workspace entries } }\`,
  data: { stats: { __typename: 'Stats', workspace: 'packed', entries: 3 } },
});
console.log(JSON.stringify({
  keys: Object.keys(cache.extract()).sort(),
  urqlKeyed: Object.keys(urqlKeys).length,
  urqlMutations: Object.keys(urqlUpdates.Mutation ?? {}).length,
  evict: typeof evictForgotten,
}));
`;

/** An Apollo-only app: nothing of urql is installed. */
const APOLLO_APP = `
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import type { UnlinkMutation } from 'mini-sphere-client';
import { apolloCacheOptions, updateAfterMutation } from 'mini-sphere-client/caches/apollo';

const cache = new InMemoryCache(apolloCacheOptions);
export const client = new ApolloClient({ cache, link: new HttpLink({ uri: 'http://127.0.0.1:4000/graphql' }) });
export const afterUnlink = (data: UnlinkMutation): void => updateAfterMutation(cache, data);
export const unlinked = (data: UnlinkMutation): string | null | undefined => data.unlink?.source.id;
`;

/** A urql-only app: nothing of Apollo is installed. */
const URQL_APP = `
import { Client, fetchExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import type { EntriesQuery } from 'mini-sphere-client';
import { urqlCacheOptions } from 'mini-sphere-client/caches/urql';

export const client = new Client({
  url: 'http://127.0.0.1:4000/graphql',
  exchanges: [cacheExchange(urqlCacheOptions), fetchExchange],
});
export const first = (page: EntriesQuery): string | undefined => page.entries.edges[0]?.node.id;
`;

/**
 * What a strict consumer project checks: every declaration file, the package's included. Apollo's own dependency
 * @wry/caches ships declarations NodeNext refuses (extensionless relative imports), so an Apollo app with
 * skipLibCheck off is a bundler app; the urql one is checked under NodeNext, the stricter of the two.
 */
const strictTsconfig = (resolution: 'Bundler' | 'NodeNext') => ({
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023', 'DOM'],
    module: resolution === 'Bundler' ? 'ESNext' : 'NodeNext',
    moduleResolution: resolution,
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    types: [],
  },
  files: ['app.ts'],
});

/** Installs the packed package and `deps` (this repository's copies, not downloads) into a new project. */
async function installInto(project: string, tarball: string, deps: string[]): Promise<string> {
  const installed = join(project, 'node_modules/mini-sphere-client');
  await mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '--strip-components=1', '-C', installed]);
  for (const dep of deps) {
    const at = join(project, 'node_modules', dep);
    await mkdir(dirname(at), { recursive: true });
    await symlink(join(ROOT, 'node_modules', dep), at, 'dir');
  }
  await writeFile(join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  return installed;
}

/** Type-checks a project with the repository's TypeScript; resolves its diagnostics ('' when clean). */
async function typeCheck(project: string): Promise<string> {
  try {
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project });
    return '';
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err);
  }
}

describe('the client package as an agent installs it', () => {
  it('resolves by its package name inside this repository (its sources)', async () => {
    const client = await import('mini-sphere-client');
    expect(typeof client.createSphereClient).toBe('function');
    const manifest = (await import('mini-sphere-client/persisted-documents.json')).default as Record<string, string>;
    expect(Object.keys(manifest).length).toBeGreaterThan(0);
  });

  describe('packed with npm pack and installed into another project', () => {
    let t: TestServer;
    let dir: string;
    let info: { filename: string; files: { path: string }[] };
    let tarball: string;
    beforeAll(async () => {
      [t, dir] = await Promise.all([
        startTestServer({ config: { trustedDocuments: join(CLIENT, 'src/generated/persisted-documents.json') } }),
        mkdtemp(join(tmpdir(), 'mini-sphere-client-pack-')),
      ]);
      await run(process.execPath, [join(ROOT, 'scripts/build-client.mjs')], { cwd: ROOT });
      const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
        cwd: CLIENT,
      });
      info = (JSON.parse(packed.stdout) as (typeof info)[])[0]!;
      tarball = join(dir, info.filename);
    });
    afterAll(async () => {
      await t?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('holds only its build and manifest, and captures and recalls from plain Node by name', async () => {
      const files = info.files.map((f) => f.path).sort();
      expect(files).toContain('dist/index.js');
      expect(files).toContain('dist/index.d.ts');
      expect(files).toContain('dist/caches.js');
      expect(files).toContain('dist/caches.d.ts');
      for (const entry of ['apollo', 'urql']) {
        expect(files).toContain(`dist/caches/${entry}.js`);
        expect(files).toContain(`dist/caches/${entry}.d.ts`);
      }
      expect(files.filter((f) => !f.startsWith('dist/'))).toEqual([
        'package.json',
        'src/generated/persisted-documents.json',
      ]);

      // Installed as npm would, next to its dependencies (this repository's copies, not downloads).
      const project = join(dir, 'project');
      const pkg = JSON.parse(await readFile(join(CLIENT, 'package.json'), 'utf8')) as Record<string, object>;
      const deps = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {}), 'ws'];
      await installInto(project, tarball, deps);
      await writeFile(join(project, 'agent.mjs'), AGENT_SCRIPT);

      const { stdout } = await run(process.execPath, ['agent.mjs', t.url], { cwd: project });
      const result = JSON.parse(stdout) as { id: string; hits: string[]; documents: number };
      // The server runs only the manifest's documents, so these went by hash from the built package.
      expect(result.hits).toContain(result.id);
      expect(result.documents).toBeGreaterThan(10);

      // The normalized-cache configuration comes with it, as mini-sphere-client/caches.
      await writeFile(join(project, 'caches.mjs'), CACHES_SCRIPT);
      const caches = JSON.parse((await run(process.execPath, ['caches.mjs'], { cwd: project })).stdout) as {
        keys: string[];
        urqlKeyed: number;
        urqlMutations: number;
        evict: string;
      };
      expect(caches.keys).toEqual(['ROOT_QUERY', 'Stats:{"workspace":"packed"}']);
      expect(caches.urqlKeyed).toBeGreaterThan(0);
      expect(caches.urqlMutations).toBeGreaterThan(0);
      expect(caches.evict).toBe('function');
    }, 120_000);

    it.each([
      ['Apollo', APOLLO_APP, ['@apollo/client'], 'caches/apollo', 'Bundler'],
      ['urql', URQL_APP, ['@urql/core', '@urql/exchange-graphcache'], 'caches/urql', 'NodeNext'],
    ] as const)(
      'type-checks and loads in a %s-only project with skipLibCheck off',
      async (name, app, libraries, entry, resolution) => {
        const project = join(dir, `${name}-only`);
        const deps = ['graphql', 'graphql-ws', '@graphql-typed-document-node/core', ...libraries];
        await installInto(project, tarball, deps);
        await writeFile(join(project, 'tsconfig.json'), JSON.stringify(strictTsconfig(resolution)));
        await writeFile(join(project, 'app.ts'), app);
        expect(await typeCheck(project)).toBe('');
        // And at run time the entry point loads without the other library installed.
        const script = `const m = await import('mini-sphere-client/${entry}'); console.log(Object.keys(m).length);`;
        await writeFile(join(project, 'load.mjs'), script);
        const { stdout } = await run(process.execPath, ['load.mjs'], { cwd: project });
        expect(Number(stdout)).toBeGreaterThan(3);
      },
      120_000,
    );
  });
});
