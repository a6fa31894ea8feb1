import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE, captureId, LINK } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';
import { dumpWorkspace } from '../helpers/workspace-db.ts';

const READS = `{
  recent(n: 200) { id content }
  tags { tag count }
  stats { entries edges tags revisions }
  count
  eventLog { seq entryId }
  recall(query: "shared secret words") { hits { entry { id } } }
}`;

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

async function seed(ws: string, label: string) {
  const cap = (content: string, tags: string[]) => captureId(srv, { content, tags }, { workspace: ws });
  const a = await cap(`shared secret words from ${label} one`, [`${label}-tag`, 'common']);
  const b = await cap(`shared secret words from ${label} two`, ['common']);
  await srv.gqlOk(LINK, { input: { src: a, dst: b, type: 'CAUSED_BY' } }, { workspace: ws });
  return { a, b };
}

describe('workspace isolation', () => {
  it('two workspaces never see each other’s entries, edges, tags, stats or events', async () => {
    const wa = freshWorkspace('iso');
    const wb = freshWorkspace('iso');
    const A = await seed(wa, 'alpha');
    const B = await seed(wb, 'beta');
    // The same content in both workspaces is STORED in each: dedup never crosses workspaces.
    const dup = await srv.gqlOk(
      CAPTURE,
      { input: { content: 'shared secret words from alpha one' } },
      { workspace: wb },
    );
    expect(dup.capture.outcome).toBe('STORED');

    const ra = await srv.gqlOk(READS, {}, { workspace: wa });
    const rb = await srv.gqlOk(READS, {}, { workspace: wb });
    expect(ra.recent.map((e: { id: string }) => e.id)).toEqual([A.b, A.a]);
    expect(rb.recent.map((e: { id: string }) => e.id)).toEqual([dup.capture.entry.id, B.b, B.a]);
    expect(ra.tags).toEqual([
      { tag: 'common', count: 2 },
      { tag: 'alpha-tag', count: 1 },
    ]);
    expect(rb.tags).toEqual([
      { tag: 'common', count: 2 },
      { tag: 'beta-tag', count: 1 },
    ]);
    expect(ra.stats).toEqual({ entries: 2, edges: 1, tags: 2, revisions: 0 });
    expect(rb.stats).toEqual({ entries: 3, edges: 1, tags: 2, revisions: 0 });
    expect(ra.count).toBe(2);
    expect(ra.eventLog.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3]);
    expect(rb.eventLog.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4]);
    const aIds = new Set([A.a, A.b]);
    for (const e of rb.eventLog) expect(aIds.has(e.entryId)).toBe(false);
    for (const h of ra.recall.hits) expect(aIds.has(h.entry.id)).toBe(true);
    for (const h of rb.recall.hits) expect(aIds.has(h.entry.id)).toBe(false);

    // Separate database files.
    expect(existsSync(srv.dbPath(wa))).toBe(true);
    expect(existsSync(srv.dbPath(wb))).toBe(true);
  });

  it('an id of workspace B used in A behaves exactly like an unknown id', async () => {
    const wa = freshWorkspace('iso');
    const wb = freshWorkspace('iso');
    const A = await seed(wa, 'alpha');
    const B = await seed(wb, 'beta');
    const beforeA = await dumpWorkspace(srv.dbPath(wa));
    const beforeB = await dumpWorkspace(srv.dbPath(wb));
    const opts = { workspace: wa };

    const entry = await srv.gqlOk('query ($id: ID!) { entry(id: $id) { id } }', { id: B.a }, opts);
    expect(entry.entry).toBeNull();

    const attempts: [string, Record<string, unknown>][] = [
      ['mutation ($id: ID!) { append(input: { id: $id, addition: "x" }) { entry { id } } }', { id: B.a }],
      ['mutation ($id: ID!) { update(input: { id: $id, content: "x" }) { entry { id } } }', { id: B.a }],
      ['mutation ($id: ID!) { setStatus(input: { id: $id, status: STALE }) { entry { id } } }', { id: B.a }],
      ['mutation ($id: ID!) { forget(input: { id: $id }) { forgottenId } }', { id: B.a }],
      [LINK, { input: { src: A.a, dst: B.a, type: 'RELATES_TO' } }],
      [LINK, { input: { src: B.a, dst: A.a, type: 'CAUSED_BY' } }],
      [
        'mutation ($s: ID!, $d: ID!) { unlink(input: { src: $s, dst: $d, type: CAUSED_BY }) { removedEdgeId } }',
        { s: B.a, d: B.b },
      ],
      [CAPTURE, { input: { content: 'replacement', replaces: B.a } }],
      ['query ($id: ID!) { graphView(seedIds: [$id]) { truncated } }', { id: B.a }],
      ['query ($id: ID!, $a: ID!) { graphView(seedIds: [$a, $id]) { truncated } }', { id: B.a, a: A.a }],
      ['query ($id: ID!) { connections(id: $id) { direction } }', { id: B.a }],
    ];
    for (const [query, variables] of attempts) {
      const viaB = await srv.gql(query, variables, opts);
      const unknown = await srv.gql(
        query,
        JSON.parse(JSON.stringify(variables).replaceAll(B.a, '01900000-0000-7000-8000-00000000abcd')),
        opts,
      );
      expect(viaB.errors?.[0]?.extensions?.code, query).toBe('NOT_FOUND');
      expect(unknown.errors?.[0]?.extensions?.code, query).toBe('NOT_FOUND');
      expect(viaB.data).toEqual(unknown.data);
    }
    expect(await dumpWorkspace(srv.dbPath(wa))).toEqual(beforeA);
    expect(await dumpWorkspace(srv.dbPath(wb))).toEqual(beforeB);
  });

  it('without a header, requests use the workspace `default`', async () => {
    const res = await srv.gqlOk(CAPTURE, { input: { content: 'in the default workspace' } });
    expect(res.capture.outcome).toBe('STORED');
    expect(existsSync(srv.dbPath('default'))).toBe(true);
    const viaHeader = await srv.gqlOk('{ recent { id } }', {}, { workspace: 'default' });
    expect(viaHeader.recent).toEqual([{ id: res.capture.entry.id }]);
  });

  it('rejects an invalid workspace header with BAD_USER_INPUT and creates no file outside the data dir', async () => {
    const parent = dirname(srv.dataDir);
    const parentBefore = new Set(readdirSync(parent));
    const dataBefore = readdirSync(srv.dataDir).sort();
    const bad = ['../x', 'a/b', '%2e%2e', '..', 'UPPER', 'Mixed-case', '-leading-dash', 'a'.repeat(64), 'a b', 'a.db'];
    for (const workspace of bad) {
      for (const query of ['{ count }', 'mutation { capture(input: { content: "escape" }) { outcome } }']) {
        const res = await srv.gql(query, undefined, { workspace });
        expect(res.status, workspace).toBeLessThan(500);
        expect(res.data ?? null, workspace).toBeNull();
        expect(res.errors?.[0]?.extensions?.code, workspace).toBe('BAD_USER_INPUT');
        expect(JSON.stringify(res.errors)).not.toMatch(/\n\s+at /);
      }
    }
    expect(readdirSync(srv.dataDir).sort()).toEqual(dataBefore);
    const created = readdirSync(parent).filter((f) => !parentBefore.has(f));
    expect(created.filter((f) => /^x\.db|^b\.db|\.db$/.test(f))).toEqual([]);
    expect(existsSync(join(srv.dataDir, 'a'))).toBe(false);
    expect(existsSync(join(parent, 'x.db'))).toBe(false);

    // Valid edge cases are accepted: 63 characters, digits first, inner dashes.
    for (const workspace of ['a'.repeat(63), '0-ok', 'ok-9']) {
      const res = await srv.gql('{ count }', undefined, { workspace });
      expect(res.errors, workspace).toBeUndefined();
      expect(res.data?.count).toBe(0);
    }
  });
});
