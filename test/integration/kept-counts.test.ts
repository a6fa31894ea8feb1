import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { APPEND, CAPTURE, FORGET, LINK, UNLINK, UPDATE } from '../helpers/operations.ts';
import { random } from '../helpers/random.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { openWorkspaceDb } from '../helpers/workspace-db.ts';

/**
 * stats, count and tags read counts that triggers keep in step with every write
 * (drizzle/0010_counts.sql). After every kind of write the API has, they must equal the
 * same counts made afresh from the rows; `check` finds counts out of step and `reindex`
 * rebuilds them; an import keeps them too.
 */

const WS = 'counts';
const KINDS = ['SEMANTIC', 'EPISODIC', 'PROCEDURAL', 'PROJECT'];
const TAGS = ['infra', 'db', 'ops', 'people', 'plans'];
const STATS = `{ stats { entries edges tags revisions byKind { key count } byStatus { key count }
  byVolatility { key count } byClaimTag { key count } edgesByType { key count } } }`;

let t: TestServer;
let raw: Client;
const gql = (query: string, variables: Record<string, unknown> = {}, workspace = WS) =>
  t.gqlOk(query, variables, { workspace });

/** What stats and the tag list must say, counted from the rows of the workspace's file. */
async function fresh(client: Client) {
  const one = async (sql: string) => Number((await client.execute(sql)).rows[0]?.[0]);
  const by = async (table: string, column: string) =>
    (
      await client.execute(`SELECT ${column} AS key, count(*) AS count FROM ${table} GROUP BY 1 ORDER BY 2 DESC, 1`)
    ).rows.map((r) => ({ key: String(r.key), count: Number(r.count) }));
  return {
    stats: {
      entries: await one('SELECT count(*) FROM entries'),
      edges: await one('SELECT count(*) FROM edges'),
      tags: await one('SELECT count(DISTINCT tag) FROM tags'),
      revisions: await one('SELECT count(*) FROM revisions'),
      byKind: await by('entries', 'kind'),
      byStatus: await by('entries', 'status'),
      byVolatility: await by('entries', 'volatility'),
      byClaimTag: await by('entries', 'claim_tag'),
      edgesByType: await by('edges', 'type'),
    },
    tags: (await client.execute('SELECT tag, count(*) AS count FROM tags GROUP BY tag ORDER BY 2 DESC, 1')).rows.map(
      (r) => ({ tag: String(r.tag), count: Number(r.count) }),
    ),
  };
}

/** stats, the tag list (in pages of 2) and every single-filter count, as the API answers them. */
async function answered(workspace = WS) {
  const { stats } = await gql(STATS, {}, workspace);
  const tags: { tag: string; count: number; cursor: string }[] = [];
  for (;;) {
    const after = tags.at(-1)?.cursor;
    const page = (
      await gql('query ($after: String) { tags(first: 2, after: $after) { tag count cursor } }', { after }, workspace)
    ).tags as typeof tags;
    if (page.length === 0) break;
    tags.push(...page);
  }
  const counts: Record<string, number> = { all: (await gql('{ count }', {}, workspace)).count as number };
  for (const tag of TAGS) counts[`tag ${tag}`] = (await gql(`{ count(tag: "${tag}") }`, {}, workspace)).count as number;
  for (const kind of KINDS)
    counts[`kind ${kind}`] = (await gql(`{ count(kind: ${kind}) }`, {}, workspace)).count as number;
  for (const s of ['ACTIVE', 'STALE', 'SUPERSEDED', 'DEPRECATED'])
    counts[`status ${s}`] = (await gql(`{ count(status: ${s}) }`, {}, workspace)).count as number;
  return { stats, tags: tags.map(({ tag, count }) => ({ tag, count })), counts };
}

async function expectInStep(client: Client, workspace = WS) {
  const want = await fresh(client);
  const got = await answered(workspace);
  expect(got.stats).toEqual(want.stats);
  expect(got.tags).toEqual(want.tags);
  const count = async (where: string) =>
    Number((await client.execute(`SELECT count(*) FROM entries e WHERE ${where}`)).rows[0]?.[0]);
  expect(got.counts.all).toBe(want.stats.entries);
  for (const tag of TAGS)
    expect(got.counts[`tag ${tag}`]).toBe(
      await count(`EXISTS (SELECT 1 FROM tags WHERE entry_id = e.id AND tag = '${tag}')`),
    );
  for (const kind of KINDS) expect(got.counts[`kind ${kind}`]).toBe(await count(`kind = '${kind}'`));
  for (const s of ['ACTIVE', 'STALE', 'SUPERSEDED', 'DEPRECATED'])
    expect(got.counts[`status ${s}`]).toBe(await count(`status = '${s}'`));
}

beforeAll(async () => {
  t = await startTestServer();
  const rand = random(5);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const ids: string[] = [];
  for (let i = 0; i < 80; i++) {
    const input: Record<string, unknown> = {
      content: `entry ${i} about ${pick(TAGS)} and ${pick(TAGS)}`,
      kind: pick(KINDS),
      tags: TAGS.filter(() => rand() < 0.35),
      volatility: pick(['DURABLE', 'EVOLVING', 'EPHEMERAL']),
      claimTag: pick(['VERIFIED', 'INFERRED', 'UNKNOWN']),
    };
    // Every eighth replaces an earlier entry: that one becomes SUPERSEDED, with an edge.
    if (i % 8 === 7) input.replaces = ids[i - 3];
    const data = await gql(CAPTURE, { input });
    ids.push((data.capture as { entry: { id: string } }).entry.id);
  }
  for (let i = 0; i < 60; i++) {
    const [src, dst] = [pick(ids), pick(ids)];
    if (src === dst) continue;
    await t.gql(LINK, { input: { src, dst, type: pick(['CAUSED_BY', 'RELATES_TO', 'FOLLOWS']) } }, { workspace: WS });
  }
  for (let i = 0; i < 10; i++) {
    await gql('mutation ($id: ID!, $s: EntryStatus!) { setStatus(input: { id: $id, status: $s }) { entry { id } } }', {
      id: ids[i * 3],
      s: pick(['STALE', 'DEPRECATED', 'CANONICAL', 'ACTIVE']),
    });
    await gql(UPDATE, { id: ids[i * 5 + 1], content: `rewritten ${i}` });
    await gql(APPEND, { id: ids[i * 5 + 2], addition: `more ${i}` });
  }
  raw = await openWorkspaceDb(t.dbPath(WS));
  for (const e of (await raw.execute('SELECT src, dst, type FROM edges ORDER BY src, dst LIMIT 3')).rows)
    await gql(UNLINK, { src: e.src, dst: e.dst, type: e.type });
  for (const id of ids.slice(60, 70)) await gql(FORGET, { id });
  // Re-classifies default volatilities and marks over-age entries STALE.
  await gql('mutation { runStalenessPass(input: { limit: 100 }) { report { markedStale reclassified } } }');
}, 120_000);

afterAll(async () => {
  raw?.close();
  await t?.stop();
});

describe('kept counts', () => {
  it('equal the rows after captures, supersessions, links, unlinks, status changes, revisions and forgets', async () => {
    const want = await fresh(raw);
    expect(want.stats.entries).toBe(70);
    expect(want.stats.revisions).toBeGreaterThan(0);
    expect(want.stats.byStatus.map((s) => s.key)).toEqual(expect.arrayContaining(['SUPERSEDED', 'ACTIVE']));
    await expectInStep(raw);
  });

  it('are checked by `check`, rebuilt by `reindex`, and kept by an import', async () => {
    const env = { SPHERE_DATA_DIR: t.dataDir };
    expect((await runCli(['check', '--workspace', WS], env)).code).toBe(0);
    await raw.execute("UPDATE row_counts SET n = n + 3 WHERE dim = 'kind'");
    await raw.execute('DELETE FROM tag_counts WHERE tag = (SELECT tag FROM tag_counts LIMIT 1)');
    const bad = await runCli(['check', '--workspace', WS], env);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/PROBLEM: \d+ kept count\(s\) are out of step with the rows; run reindex/);
    expect((await runCli(['reindex', '--workspace', WS], env)).code).toBe(0);
    expect((await runCli(['check', '--workspace', WS], env)).code).toBe(0);
    await expectInStep(raw);

    const dir = await mkdtemp(join(tmpdir(), 'sphere-counts-'));
    try {
      const file = join(dir, 'counts.jsonl');
      expect((await runCli(['export', '--workspace', WS, '--out', file], env)).code).toBe(0);
      const imported = await runCli(['import', '--workspace', 'counts-copy', '--create', file], env);
      expect(imported.code, imported.stderr).toBe(0);
      const copy = await openWorkspaceDb(t.dbPath('counts-copy'));
      try {
        await expectInStep(copy, 'counts-copy');
        expect((await fresh(copy)).stats).toEqual((await fresh(raw)).stats);
      } finally {
        copy.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
