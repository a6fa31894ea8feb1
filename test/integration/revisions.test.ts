import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORGET, RECALL } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';
import { checkFtsIntegrity, dumpWorkspace } from '../helpers/workspace-db.ts';

const CAPTURE = 'mutation ($input: CaptureInput!) { capture(input: $input) { outcome entry { id updatedAt } } }';
const APPEND = `mutation ($id: ID!, $addition: String!) {
  append(input: { id: $id, addition: $addition }) { entry { id content contentHash updatedAt revisions { content op at } } }
}`;
const UPDATE = `mutation ($id: ID!, $content: String!) {
  update(input: { id: $id, content: $content }) { entry { id content contentHash updatedAt revisions { content op at } } }
}`;

const sha256 = (s: string) =>
  createHash('sha256').update(s.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase(), 'utf8').digest('hex');

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

async function capture(ws: string, content: string): Promise<{ id: string; updatedAt: string }> {
  return (await srv.gqlOk(CAPTURE, { input: { content } }, { workspace: ws })).capture.entry;
}

async function recallIds(ws: string, q: string): Promise<string[]> {
  const data = await srv.gqlOk(RECALL, { q, topK: 50, hops: 0 }, { workspace: ws });
  return data.recall.hits.map((h: { entry: { id: string } }) => h.entry.id);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('append and update', () => {
  it('keep every earlier content in revisions, oldest first, with its op', async () => {
    const ws = freshWorkspace('rev');
    const e = await capture(ws, 'Version one');
    await sleep(5);
    const a = (await srv.gqlOk(APPEND, { id: e.id, addition: 'More detail' }, { workspace: ws })).append.entry;
    expect(a.content).toBe('Version one\n\nMore detail');
    expect(a.contentHash).toBe(sha256('Version one\n\nMore detail'));
    expect(a.updatedAt > e.updatedAt).toBe(true);
    expect(a.revisions).toEqual([{ content: 'Version one', op: 'APPEND', at: a.updatedAt }]);

    await sleep(5);
    const u = (await srv.gqlOk(UPDATE, { id: e.id, content: 'Version two' }, { workspace: ws })).update.entry;
    expect(u.content).toBe('Version two');
    expect(u.contentHash).toBe(sha256('Version two'));
    expect(u.updatedAt > a.updatedAt).toBe(true);

    const last = (await srv.gqlOk(APPEND, { id: e.id, addition: 'Tail' }, { workspace: ws })).append.entry;
    expect(last.content).toBe('Version two\n\nTail');
    expect(last.revisions.map((r: { content: string; op: string }) => [r.op, r.content])).toEqual([
      ['APPEND', 'Version one'],
      ['UPDATE', 'Version one\n\nMore detail'],
      ['APPEND', 'Version two'],
    ]);

    const dump = await dumpWorkspace(srv.dbPath(ws));
    expect(dump.entries[0]?.content_hash).toBe(sha256('Version two\n\nTail'));
    expect(dump.revisions.map((r) => r.op)).toEqual(['APPEND', 'UPDATE', 'APPEND']);
    const events = await srv.gqlOk('{ eventLog { seq type entryId } }', {}, { workspace: ws });
    expect(events.eventLog).toEqual([
      { seq: 1, type: 'CAPTURED', entryId: e.id },
      { seq: 2, type: 'APPENDED', entryId: e.id },
      { seq: 3, type: 'UPDATED', entryId: e.id },
      { seq: 4, type: 'APPENDED', entryId: e.id },
    ]);
  });

  it('the recomputed hash takes part in dedup: capturing the updated content is BLOCKED', async () => {
    const ws = freshWorkspace('rev');
    const e = await capture(ws, 'Original words');
    await srv.gqlOk(UPDATE, { id: e.id, content: 'Fresh words' }, { workspace: ws });
    const dup = await srv.gqlOk(CAPTURE, { input: { content: 'FRESH   words' } }, { workspace: ws });
    expect(dup.capture.outcome).toBe('BLOCKED');
    const old = await srv.gqlOk(CAPTURE, { input: { content: 'original words' } }, { workspace: ws });
    expect(old.capture.outcome).toBe('STORED');
  });

  it('append and update of an unknown id are NOT_FOUND', async () => {
    const ws = freshWorkspace('rev');
    await capture(ws, 'Present');
    const before = await dumpWorkspace(srv.dbPath(ws));
    const a = await srv.gql(APPEND, { id: 'missing', addition: 'x' }, { workspace: ws });
    expect(a.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const u = await srv.gql(UPDATE, { id: 'missing', content: 'x' }, { workspace: ws });
    expect(u.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(await dumpWorkspace(srv.dbPath(ws))).toEqual(before);
  });

  it('the FTS index stays in step through a mixed workload', async () => {
    const ws = freshWorkspace('rev');
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await capture(ws, `alpha note number ${i} about zebras`)).id);
    // Appends, updates and forgets interleaved, some of them concurrent.
    await Promise.all([
      srv.gqlOk(APPEND, { id: ids[0], addition: 'giraffes appear here' }, { workspace: ws }),
      srv.gqlOk(UPDATE, { id: ids[1], content: 'only pelicans now' }, { workspace: ws }),
      srv.gqlOk(FORGET, { id: ids[2] }, { workspace: ws }),
      srv.gqlOk(APPEND, { id: ids[3], addition: 'more giraffes' }, { workspace: ws }),
      srv.gqlOk(UPDATE, { id: ids[4], content: 'walruses replace everything' }, { workspace: ws }),
      srv.gqlOk(FORGET, { id: ids[5] }, { workspace: ws }),
      capture(ws, 'a late capture about pelicans'),
    ]);
    await srv.gqlOk(UPDATE, { id: ids[3], content: 'kangaroos only' }, { workspace: ws });
    await srv.gqlOk(APPEND, { id: ids[1], addition: 'and ostriches' }, { workspace: ws });

    await expect(checkFtsIntegrity(srv.dbPath(ws))).resolves.toBeUndefined();
    const dump = await dumpWorkspace(srv.dbPath(ws));
    expect(dump.entries).toHaveLength(11);
    expect(dump.ftsRows).toBe(11);

    expect(new Set(await recallIds(ws, 'giraffes'))).toEqual(new Set([ids[0]]));
    expect(new Set(await recallIds(ws, 'ostriches'))).toEqual(new Set([ids[1]]));
    expect(await recallIds(ws, 'walruses')).toEqual([ids[4]]);
    expect(await recallIds(ws, 'kangaroos')).toEqual([ids[3]]);
    // Words that only the old contents or forgotten entries had are gone from the index.
    const zebras = new Set(await recallIds(ws, 'zebras'));
    expect(zebras).toEqual(new Set([ids[0], ...ids.slice(6)]));
    expect((await recallIds(ws, 'pelicans')).length).toBe(2);
  });

  it('the integrity check does catch an index out of step (the helper can fail)', async () => {
    const ws = freshWorkspace('rev');
    await capture(ws, 'some words to index');
    const { openWorkspaceDb } = await import('../helpers/workspace-db.ts');
    const db = await openWorkspaceDb(srv.dbPath(ws));
    try {
      // Bypass the triggers' partner: delete the index row only.
      await db.execute(
        "INSERT INTO entries_fts(entries_fts, rowid, content) SELECT 'delete', n, content FROM entries LIMIT 1",
      );
    } finally {
      db.close();
    }
    await expect(checkFtsIntegrity(srv.dbPath(ws))).rejects.toThrow();
  });
});
