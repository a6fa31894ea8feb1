import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../helpers/cli.ts';
import { type HranaTestServer, startHranaServer } from '../helpers/hrana-server.ts';
import { APPEND, CAPTURE, FORGET, LINK, RECALL } from '../helpers/operations.ts';
import { type Data, startTestServer } from '../helpers/server.ts';
import { dumpWorkspace } from '../helpers/workspace-db.ts';

/** A server process with a 1 MB quota per workspace; an empty workspace's file is about 200 KB. */
let server: ServerProcess;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-quota-'));
  server = await startServerProcess({ SPHERE_DATA_DIR: dataDir, SPHERE_MAX_WORKSPACE_MB: '1' });
});
afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Answer {
  data?: Data | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

async function gql(
  workspace: string,
  query: string,
  variables: Record<string, unknown> = {},
  url = server.url,
): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as Answer;
}
async function ok(workspace: string, query: string, variables: Record<string, unknown> = {}): Promise<Data> {
  const answer = await gql(workspace, query, variables);
  expect(answer.errors).toBeUndefined();
  return answer.data!;
}

const STATS = '{ stats { entries sizeBytes quotaBytes } }';
const QUOTA = 1024 * 1024;

/** 40,000 characters of words no other entry shares, so the full-text index grows with each. */
const bulky = (i: number) =>
  Array.from({ length: 4_000 }, (_, k) => `w${i.toString(36)}x${k.toString(36)}`)
    .join(' ')
    .slice(0, 40_000);

describe('storage quota (SPHERE_MAX_WORKSPACE_MB)', () => {
  it('refuses writes past the quota with QUOTA_EXCEEDED and stores nothing; reads and forget still work, and forget makes room', async () => {
    const ws = 'full';
    const first = (await ok(ws, STATS)).stats;
    expect(first).toMatchObject({ entries: 0, quotaBytes: QUOTA });
    expect(first.sizeBytes).toBeGreaterThan(0);
    expect(first.sizeBytes).toBeLessThan(QUOTA);

    const ids: string[] = [];
    let refused: Answer | null = null;
    // 40 KB of text stores as well over 80 KB: the quota is reached in far fewer than 40 writes.
    for (let i = 0; i < 40 && !refused; i++) {
      const answer = await gql(ws, CAPTURE, { input: { content: bulky(i) } });
      if (answer.errors) refused = answer;
      else ids.push(answer.data!.capture.entry.id);
    }
    expect(refused?.errors?.[0]?.extensions?.code, JSON.stringify(refused)).toBe('QUOTA_EXCEEDED');
    expect(refused?.errors?.[0]?.message).toMatch(/of its 1\.0 MB quota \(SPHERE_MAX_WORKSPACE_MB\)/);
    expect(refused?.data).toEqual({ capture: null });
    expect(ids.length).toBeGreaterThan(2);
    // Small writes still fit until the last few KB are taken.
    let small = 0;
    for (; small < 1_000; small++) {
      const answer = await gql(ws, CAPTURE, { input: { content: `Short note ${small}` } });
      if (answer.errors) {
        expect(answer.errors[0]?.extensions?.code).toBe('QUOTA_EXCEEDED');
        break;
      }
    }
    expect(small).toBeLessThan(1_000);

    // Nothing of a refused write is stored, whatever the write.
    const before = await dumpWorkspace(join(dataDir, `${ws}.db`));
    const refusals = await Promise.all([
      gql(ws, CAPTURE, { input: { content: bulky(100) } }),
      gql(ws, APPEND, { id: ids[0], addition: bulky(101) }),
      gql(ws, LINK, {
        input: { src: ids[0], dst: ids[1], type: 'RELATES_TO', metadata: { note: 'x'.repeat(15_000) } },
      }),
    ]);
    for (const r of refusals) expect(r.errors?.[0]?.extensions?.code, JSON.stringify(r.errors)).toBe('QUOTA_EXCEEDED');
    const after = await dumpWorkspace(join(dataDir, `${ws}.db`));
    expect(after).toEqual(before);

    // Reads answer, and stats shows the size against the quota.
    const stats = (await ok(ws, STATS)).stats;
    expect(stats.entries).toBe(ids.length + small);
    expect(stats.quotaBytes).toBe(QUOTA);
    // A refusal follows a read of the real size (plus estimates of writes still in flight):
    // the last writes admitted leave less than a few of their estimates free.
    expect(stats.sizeBytes).toBeGreaterThan(QUOTA * 0.75);
    expect(stats.sizeBytes).toBeLessThanOrEqual(QUOTA);
    const recalled = (await ok(ws, RECALL, { q: 'w1x1' })).recall.hits;
    expect(recalled.length).toBeGreaterThan(0);

    // Forget works on a full workspace, and what it frees is room for new writes.
    for (const id of ids.slice(0, Math.ceil(ids.length / 2))) {
      expect((await ok(ws, FORGET, { id })).forget.forgotten).toBe(true);
    }
    const freed = (await ok(ws, STATS)).stats;
    expect(freed.sizeBytes).toBeLessThan(stats.sizeBytes);
    const again = await gql(ws, CAPTURE, { input: { content: 'A short note after making room' } });
    expect(again.errors).toBeUndefined();
    expect(again.data?.capture.entry.id).toEqual(expect.any(String));

    // Another workspace has a quota of its own.
    expect((await gql('other', CAPTURE, { input: { content: bulky(200) } })).errors).toBeUndefined();
  });
});

describe('the quota by mode, and of hosted databases', () => {
  it('token mode has 1024 MB unless SPHERE_MAX_WORKSPACE_MB says otherwise (0: none); open mode none', async () => {
    for (const [maxWorkspaceMb, quota] of [
      [null, 1024 * 1024 * 1024],
      [0, null],
      [2.5, 2.5 * 1024 * 1024],
    ] as const) {
      const t = await startTestServer({ config: { maxWorkspaceMb } });
      try {
        expect((await t.gqlOk(STATS, {}, { workspace: 'open' })).stats.quotaBytes).toBe(maxWorkspaceMb ? quota : null);
        const { token } = await (await t.server.control()).createToken('tok', 'agent');
        const stats = await t.gqlOk(STATS, {}, { headers: { authorization: `Bearer ${token}` } });
        expect(stats.stats.quotaBytes).toBe(quota);
      } finally {
        await t.stop();
      }
    }
  });

  it('a hosted database counts its own pages: writes past the quota are refused there too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mini-sphere-quota-hosted-'));
    let hrana: HranaTestServer | null = null;
    let hosted: ServerProcess | null = null;
    try {
      hrana = await startHranaServer({ dir: join(dir, 'hosted'), token: 'quota-secret' });
      hosted = await startServerProcess({
        SPHERE_DATA_DIR: join(dir, 'data'),
        SPHERE_DB_URL: hrana.urlTemplate,
        SPHERE_DB_AUTH_TOKEN: 'quota-secret',
        SPHERE_CONTROL_DB_URL: hrana.url('_control'),
        SPHERE_MAX_WORKSPACE_MB: '1',
      });
      const url = hosted.url;
      let refused: Answer | null = null;
      let stored = 0;
      for (let i = 0; i < 40 && !refused; i++) {
        const answer = await gql('remote', CAPTURE, { input: { content: bulky(i) } }, url);
        if (answer.errors) refused = answer;
        else stored++;
      }
      expect(refused?.errors?.[0]?.extensions?.code, JSON.stringify(refused)).toBe('QUOTA_EXCEEDED');
      expect(stored).toBeGreaterThan(2);
      const stats = (await gql('remote', STATS, {}, url)).data?.stats;
      expect(stats).toMatchObject({ entries: stored, quotaBytes: QUOTA });
      expect(stats?.sizeBytes).toBeGreaterThan(QUOTA / 2);
      expect(stats?.sizeBytes).toBeLessThanOrEqual(QUOTA);
    } finally {
      if (hosted) {
        hosted.child.kill('SIGTERM');
        await hosted.exited;
      }
      await hrana?.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
