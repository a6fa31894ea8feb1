import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPEND, captureId, FORGET, LINK, UPDATE } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';
import { checkFtsIntegrity, dumpWorkspace } from '../helpers/workspace-db.ts';
import { collect, wsClient } from '../helpers/ws.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

describe('forget', () => {
  it('leaves no trace in any read, keeps earlier events by id and logs FORGOTTEN', async () => {
    const ws = freshWorkspace('forget');
    const opts = { workspace: ws };
    const capture = (content: string, tags: string[]) => captureId(srv, { content, tags }, opts);
    const doomed = await capture('The quokka ledger lives in the basement', ['only-doomed', 'shared']);
    const keep1 = await capture('Ledger backups are weekly', ['shared']);
    const keep2 = await capture('Basement access needs a badge', ['other']);
    await srv.gqlOk(APPEND, { id: doomed, addition: 'and the annex' }, opts);
    await srv.gqlOk(UPDATE, { id: keep1, content: 'Ledger backups are daily' }, opts);
    await srv.gqlOk(LINK, { input: { src: doomed, dst: keep1, type: 'RELATES_TO' } }, opts);
    await srv.gqlOk(LINK, { input: { src: keep2, dst: doomed, type: 'CAUSED_BY' } }, opts);
    await srv.gqlOk(LINK, { input: { src: keep1, dst: keep2, type: 'CAUSED_BY', weight: 0.5 } }, opts);
    const lastSeq = (await srv.gqlOk('{ eventLog(limit: 1000) { seq } }', {}, opts)).eventLog.at(-1).seq as number;

    const res = await srv.gqlOk(FORGET, { id: doomed }, opts);
    expect(res.forget).toEqual({ forgottenId: doomed, forgotten: true });

    const reads = await srv.gqlOk(
      `query ($id: ID!, $keep1: ID!, $keep2: ID!) {
        entry(id: $id) { id }
        recent(n: 200) { id }
        tags { tag count }
        stats { entries edges tags revisions edgesByType { key count } }
        all: count
        shared: count(tag: "shared")
        doomedTag: count(tag: "only-doomed")
        k1: connections(id: $keep1) { entry { id } }
        k2: entry(id: $keep2) { connections { entry { id } } }
        graphView(seedIds: [$keep1, $keep2], hops: 3) { nodes { entry { id } } edges { src dst } truncated }
        recall(query: "quokka ledger basement annex", topK: 50, hops: 3) { hits { entry { id } } candidates }
        brief { text recent { id } important { id } }
      }`,
      { id: doomed, keep1, keep2 },
      opts,
    );
    expect(reads.entry).toBeNull();
    expect(reads.recent.map((e: { id: string }) => e.id)).toEqual([keep2, keep1]);
    expect(reads.tags).toEqual([
      { tag: 'other', count: 1 },
      { tag: 'shared', count: 1 },
    ]);
    expect(reads.stats).toMatchObject({ entries: 2, edges: 1, tags: 2, revisions: 1 });
    expect(reads.stats.edgesByType).toEqual([{ key: 'CAUSED_BY', count: 1 }]);
    expect(reads.all).toBe(2);
    expect(reads.shared).toBe(1);
    expect(reads.doomedTag).toBe(0);
    expect(reads.k1).toEqual([{ entry: { id: keep2 } }]);
    expect(reads.k2.connections).toEqual([{ entry: { id: keep1 } }]);
    expect(reads.graphView.nodes.map((n: { entry: { id: string } }) => n.entry.id).sort()).toEqual(
      [keep1, keep2].sort(),
    );
    expect(reads.graphView.edges).toEqual([{ src: keep1, dst: keep2 }]);
    const recalled = reads.recall.hits.map((h: { entry: { id: string } }) => h.entry.id);
    expect(recalled).not.toContain(doomed);
    expect(recalled.length).toBeGreaterThan(0);
    expect(reads.brief.text).not.toContain(doomed);
    expect(reads.brief.text).not.toContain('quokka');
    expect([...reads.brief.recent, ...reads.brief.important].map((e: { id: string }) => e.id)).not.toContain(doomed);

    const log = await srv.gqlOk(
      '{ eventLog(limit: 1000) { seq type entryId entry { id } edge { src dst } } }',
      {},
      opts,
    );
    // An event's edge is history: its ends' ids stay after one of them is forgotten.
    const linked = log.eventLog.filter((e: { type: string }) => e.type === 'LINKED');
    expect(linked.map((e: { edge: unknown }) => e.edge)).toEqual([
      { src: doomed, dst: keep1 },
      { src: keep2, dst: doomed },
      { src: keep1, dst: keep2 },
    ]);
    // Asking for a forgotten end is NOT_FOUND, said so; the edge between the others is whole.
    const ends = await srv.gql('{ eventLog(limit: 1000) { type edge { source { id } target { id } } } }', {}, opts);
    const codes = (ends.errors ?? []).map((e) => e.extensions?.code);
    expect(codes).toEqual(['NOT_FOUND', 'NOT_FOUND']);
    for (const e of ends.errors ?? []) expect(e.message).toMatch(/no longer exists: it was forgotten/);
    const linkedEnds = ends.data?.eventLog.filter((e: { type: string }) => e.type === 'LINKED');
    expect(linkedEnds.map((e: { edge: unknown }) => e.edge)).toEqual([
      null,
      null,
      { source: { id: keep1 }, target: { id: keep2 } },
    ]);
    const forgotten = log.eventLog.at(-1);
    expect(forgotten).toEqual({ seq: lastSeq + 1, type: 'FORGOTTEN', entryId: doomed, entry: null, edge: null });
    // The same in a subscription's replay.
    const client = wsClient(srv.wsUrl, { workspace: ws });
    const replay = collect(client, 'subscription { events(sinceSeq: 0) { seq type edge { source { id } } } }');
    const replayed = await replay.until((xs) => xs.length >= forgotten.seq);
    replay.dispose();
    await client.dispose();
    expect(replay.errors.map((e) => (e as { extensions?: { code?: string } }).extensions?.code)).toEqual(['NOT_FOUND']);
    expect(replayed.filter((e) => e.type === 'LINKED').map((e) => e.edge)).toEqual([
      null,
      { source: { id: keep2 } },
      { source: { id: keep1 } },
    ]);
    const aboutDoomed = log.eventLog.filter((e: { entryId: string | null }) => e.entryId === doomed);
    // CAPTURED, APPENDED, LINKED (doomed is the RELATES_TO src or not: count those by entryId) and FORGOTTEN.
    expect(aboutDoomed.map((e: { type: string }) => e.type).slice(0, 2)).toEqual(['CAPTURED', 'APPENDED']);
    for (const e of aboutDoomed) expect(e.entry).toBeNull();
    // Events of other entries still resolve theirs.
    const k2Captured = log.eventLog.find((e: { entryId: string; type: string }) => e.entryId === keep2);
    expect(k2Captured.entry).toEqual({ id: keep2 });

    const dump = await dumpWorkspace(srv.dbPath(ws));
    const mentions = JSON.stringify([dump.entries, dump.tags, dump.edges, dump.revisions]);
    expect(mentions).not.toContain(doomed);
    expect(mentions).not.toContain('quokka');
    expect(dump.ftsRows).toBe(2);
    await checkFtsIntegrity(srv.dbPath(ws));
    const fts = await srv.gqlOk('{ recall(query: "quokka") { hits { entry { id } } } }', {}, opts);
    expect(fts.recall.hits).toEqual([]);

    const again = await srv.gql(FORGET, { id: doomed }, opts);
    expect(again.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const append = await srv.gql(
      'mutation ($id: ID!) { append(input: { id: $id, addition: "x" }) { entry { id } } }',
      { id: doomed },
      opts,
    );
    expect(append.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const view = await srv.gql('query ($id: ID!) { graphView(seedIds: [$id]) { truncated } }', { id: doomed }, opts);
    expect(view.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});
