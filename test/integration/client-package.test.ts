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
    beforeAll(async () => {
      [t, dir] = await Promise.all([
        startTestServer({ config: { trustedDocuments: join(CLIENT, 'src/generated/persisted-documents.json') } }),
        mkdtemp(join(tmpdir(), 'mini-sphere-client-pack-')),
      ]);
    });
    afterAll(async () => {
      await t?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('holds only its build and manifest, and captures and recalls from plain Node by name', async () => {
      await run(process.execPath, [join(ROOT, 'scripts/build-client.mjs')], { cwd: ROOT });
      const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
        cwd: CLIENT,
      });
      const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
      const files = info!.files.map((f) => f.path).sort();
      expect(files).toContain('dist/index.js');
      expect(files).toContain('dist/index.d.ts');
      expect(files).toContain('dist/caches.js');
      expect(files).toContain('dist/caches.d.ts');
      expect(files.filter((f) => !f.startsWith('dist/'))).toEqual([
        'package.json',
        'src/generated/persisted-documents.json',
      ]);

      // Installed as npm would, next to its dependencies (this repository's copies, not downloads).
      const project = join(dir, 'project');
      const installed = join(project, 'node_modules/mini-sphere-client');
      await mkdir(installed, { recursive: true });
      await run('tar', ['-xzf', join(dir, info!.filename), '--strip-components=1', '-C', installed]);
      const pkg = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as Record<string, object>;
      const deps = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {}), 'ws'];
      for (const dep of deps) {
        const at = join(project, 'node_modules', dep);
        await mkdir(dirname(at), { recursive: true });
        await symlink(join(ROOT, 'node_modules', dep), at, 'dir');
      }
      await writeFile(join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }));
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
  });
});
