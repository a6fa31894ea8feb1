import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureId, LINK } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

const nested = (args: string) => `{
  recent(${args}) {
    id
    tags
    connections { direction edge { type } entry { id tags } }
  }
}`;

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

async function captureAll(ws: string, n: number, label: string, tags: string[]): Promise<string[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const input = { content: `${label} entry number ${i}`, tags: [...tags, `t${i % 3}`] };
      return captureId(srv, input, { workspace: ws });
    }),
  );
}

const link = (ws: string, src: string, dst: string, type: string) =>
  srv.gqlOk(LINK, { input: { src, dst, type } }, { workspace: ws });

/** `n` tagged entries in a ring: each linked to the next (CAUSED_BY) and the one after (RELATES_TO). */
async function ring(n: number): Promise<string> {
  const ws = freshWorkspace('sql');
  const ids = await captureAll(ws, n, 'ring', ['all']);
  await Promise.all(
    ids.flatMap((id, i) => [
      link(ws, id, ids[(i + 1) % n]!, 'CAUSED_BY'),
      link(ws, id, ids[(i + 2) % n]!, 'RELATES_TO'),
    ]),
  );
  return ws;
}

/** `n` cold entries, then `n` hot ones: hot i is linked to cold i and to hot i+1. */
async function hotAndCold(n: number): Promise<string> {
  const ws = freshWorkspace('sql');
  const cold = await captureAll(ws, n, 'cold', ['cold']);
  const hot = await captureAll(ws, n, 'hot', ['hot']);
  await Promise.all(
    hot.flatMap((id, i) => [link(ws, id, cold[i]!, 'CAUSED_BY'), link(ws, id, hot[(i + 1) % n]!, 'RELATES_TO')]),
  );
  return ws;
}

async function statementsFor(ws: string, query: string) {
  // Let deferred bookkeeping (if any) settle, then count only this request.
  await new Promise((r) => setTimeout(r, 100));
  srv.resetQueries();
  const data = await srv.gqlOk(query, {}, { workspace: ws });
  const statements = [...srv.queries];
  const connections = data.recent.reduce((sum: number, e: { connections: unknown[] }) => sum + e.connections.length, 0);
  const tagged = data.recent.every((e: { connections: { entry: { tags: string[] } }[] }) =>
    e.connections.every((c) => c.entry.tags.length === 2),
  );
  return { statements, entries: data.recent.length as number, connections, tagged };
}

/**
 * The statement with its IN lists and its repeated per-entry parts (a page of each entry's
 * connections, UNION ALL) collapsed, so that 5 and 50 ids compare equal.
 */
const shape = (sql: string) =>
  sql
    .split(' UNION ALL ')
    .filter((part, i, parts) => i === 0 || part !== parts[i - 1])
    .join(' UNION ALL ')
    .replace(/\(\?(, \?)*\)/g, '(?…)');

describe('SQL statements per nested query', () => {
  it('recent(n: 50) { tags connections { entry { tags } } } costs 4 statements for 5 or 50 entries', async () => {
    const small = await statementsFor(await ring(5), nested('n: 50'));
    const large = await statementsFor(await ring(50), nested('n: 50'));
    expect(small.entries).toBe(5);
    expect(large.entries).toBe(50);
    // Every ring entry has 4 connections: 2 from it, 2 to it.
    expect(small.connections).toBe(20);
    expect(large.connections).toBe(200);
    expect(large.tagged).toBe(true);
    // recent; tags of the list; edges of the list; the entries at the other ends. Their tags are
    // already in the request's tag loader, since every neighbour is in the list.
    expect(small.statements).toHaveLength(4);
    expect(large.statements).toHaveLength(4);
    expect(large.statements.map(shape)).toEqual(small.statements.map(shape));
    expect(large.statements.map(shape)[3]).toMatch(
      /FROM entries e WHERE e\.id IN \(SELECT value FROM json_each\(\?…\)\)$/,
    );
  });

  it('neighbours outside the list cost one more batch (their tags), still whatever the size', async () => {
    const query = nested('n: 50, tag: "hot"');
    const small = await statementsFor(await hotAndCold(5), query);
    const large = await statementsFor(await hotAndCold(50), query);
    expect(small.entries).toBe(5);
    expect(large.entries).toBe(50);
    // Each hot entry: to its cold entry, to the next hot, from the previous hot.
    expect(large.connections).toBe(150);
    expect(large.tagged).toBe(true);
    // recent(tag:) reads how many entries carry the tag (up to a bound) before the list.
    expect(small.statements).toHaveLength(6);
    expect(large.statements).toHaveLength(6);
    expect(small.statements[0]).toMatch(/^SELECT count\(\*\) AS c FROM \(SELECT 1 FROM "tags"/);
    expect(large.statements.map(shape)).toEqual(small.statements.map(shape));
  });
});

describe('SQL statements of recall and graphView', () => {
  it("recall's hits answer tags and freshness from what recall read: no statement more than for their ids", async () => {
    const ws = freshWorkspace('sql');
    const old = await captureId(
      srv,
      { content: 'the kestrel nests under the bridge', tags: ['birds', 'bridge'] },
      { workspace: ws },
    );
    await captureId(
      srv,
      { content: 'the kestrel moved to the church tower', tags: ['towers', 'birds'] },
      { workspace: ws },
    );
    const newer = await captureId(srv, { content: 'kestrel chicks hatched on the tower' }, { workspace: ws });
    await link(ws, newer, old, 'SUPERSEDES');
    const recall = (fields: string) => `{ recall(query: "kestrel", topK: 5) { hits { entry { ${fields} } } } }`;
    const count = async (query: string) => {
      await new Promise((r) => setTimeout(r, 100));
      srv.resetQueries();
      const data = await srv.gqlOk(query, {}, { workspace: ws });
      return { statements: srv.queries.length, hits: data.recall.hits as { entry: Record<string, unknown> }[] };
    };
    await count(recall('id')); // The workspace's first recall also asks whether it has impact lists.
    const bare = await count(recall('id'));
    const full = await count(recall('id tags freshness'));
    expect(full.statements).toBe(bare.statements);
    const byId = new Map(full.hits.map((h) => [h.entry.id, h.entry]));
    expect(byId.size).toBe(3);
    // Sorted, as the field promises; superseded through the SUPERSEDES edge.
    expect(byId.get(old)).toMatchObject({ tags: ['birds', 'bridge'], freshness: 'SUPERSEDED' });
    expect([...byId.values()].map((e) => e.tags)).toContainEqual(['birds', 'towers']);
    expect(byId.get(newer)).toMatchObject({ tags: [], freshness: 'CURRENT' });
  });

  it("graphView reads its nodes' entries with its edges, however the operation asks for them", async () => {
    const ws = freshWorkspace('sql');
    const ids = await captureAll(ws, 6, 'view', ['v']);
    await Promise.all(ids.slice(1).map((id) => link(ws, ids[0]!, id, 'CAUSED_BY')));
    const plain = `{ graphView(seedIds: ["${ids[0]}"]) { nodes { hop entry { id kind tags } } } }`;
    const fragments = `{ graphView(seedIds: ["${ids[0]}"]) { ...V } }
      fragment V on GraphView { nodes { hop ... on GraphNode { entry { ...E } } } }
      fragment E on Entry { id kind tags }`;
    const runs = [];
    for (const query of [plain, fragments]) {
      srv.resetQueries();
      runs.push({ data: await srv.gqlOk(query, {}, { workspace: ws }), statements: [...srv.queries] });
    }
    expect(runs[1]!.data).toEqual(runs[0]!.data);
    expect(runs[0]!.data.graphView.nodes).toHaveLength(6);
    // The walk's statements and the nodes' tags. The edges among the nodes and the nodes'
    // rows are one batch, which this log of single statements does not list: no entry read is.
    expect(runs[1]!.statements).toEqual(runs[0]!.statements);
    expect(runs[0]!.statements.some((s) => /from "entries" where "?id"? in/i.test(s))).toBe(false);
    expect(runs[0]!.statements.filter((s) => /from "tags"/i.test(s))).toHaveLength(1);
  });
});
