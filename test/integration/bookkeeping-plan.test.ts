import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { BOOKKEEPING_SQL } from '../../src/memory/bookkeeping.ts';
import { buildServer, type MiniSphereServer } from '../../src/server/server.ts';
import { CAPTURE } from '../helpers/operations.ts';
import { openWorkspaceDb } from '../helpers/workspace-db.ts';

let server: MiniSphereServer;
let url: string;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-bookkeeping-'));
  server = buildServer(loadConfig({}, { port: 0, host: '127.0.0.1', dataDir, logLevel: 'silent' }));
  ({ url } = await server.start());
});
afterAll(async () => {
  await server?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('the writes that reads cause (recall counts, lazy staleness)', () => {
  // They run on the write thread every embedded workspace shares: one that reads the whole
  // table delays every other workspace's writes for as long (75 ms at 100k entries).
  it('find their rows by id, never through an index of a status or kind', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-workspace': 'plans' },
        body: JSON.stringify({ query: CAPTURE, variables: { input: { content: `entry ${i} about deploys` } } }),
      });
      expect(res.status).toBe(200);
    }
    const db = await openWorkspaceDb(join(dataDir, 'plans.db'));
    try {
      const ids = JSON.stringify((await db.execute('SELECT id FROM entries')).rows.map((r) => r.id));
      for (const [name, statement] of Object.entries(BOOKKEEPING_SQL)) {
        const args = name === 'recalled' ? [1, ids] : [ids];
        const plan = (await db.execute({ sql: `EXPLAIN QUERY PLAN ${statement}`, args })).rows.map((r) =>
          String(r.detail),
        );
        const onEntries = plan.filter((d) => /\bentries\b/.test(d));
        expect(onEntries, `${name}: ${plan.join(' | ')}`).toHaveLength(1);
        expect(onEntries[0], name).toMatch(/^SEARCH entries USING (COVERING )?INDEX entries_id_unique \(id=\?\)/);
      }
    } finally {
      db.close();
    }
  });
});
