import type { Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECURSIVE_WALK_SQL } from '../../bench/perf/recursive-walk.ts';
import { drizzleFor, type RootDb } from '../../src/db/client.ts';
import { STORED_FANOUT, walkGraph } from '../../src/retrieval/graph.ts';
import { runCli } from '../helpers/cli.ts';
import { captureId, FORGET, LINK, UNLINK } from '../helpers/operations.ts';
import { random } from '../helpers/random.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { openWorkspaceDb } from '../helpers/workspace-db.ts';

/**
 * Graph walks read each entry's heaviest edges from entry_neighbours, which triggers keep
 * in step with edges. These tests drive every kind of edge change through the API and
 * compare the stored lists with lists derived afresh, and the walk with the same walk as
 * one recursive CTE over the edges table (RECURSIVE_WALK_SQL).
 */

let t: TestServer;
let raw: Client;
let db: RootDb;
const WS = 'graph';
const ids: string[] = [];

const gql = (query: string, variables: Record<string, unknown>) => t.gqlOk(query, variables, { workspace: WS });
const relate = (src: string, dst: string, weight: number) =>
  gql(LINK, { input: { src, dst, type: 'RELATES_TO', weight } });

/** Stored lists that differ from lists derived from edges now, both ways. */
async function outOfStep(): Promise<number> {
  const r = await raw.execute(`
    SELECT (SELECT count(*) FROM (
      SELECT entry_id, top FROM entry_neighbours
      EXCEPT SELECT entry_id, top FROM entry_neighbour_lists WHERE top <> '[]'))
    + (SELECT count(*) FROM (
      SELECT entry_id, top FROM entry_neighbour_lists WHERE top <> '[]'
      EXCEPT SELECT entry_id, top FROM entry_neighbours)) AS n`);
  return Number(r.rows[0]?.n);
}

async function stored(id: string): Promise<[string, string, number, string][] | null> {
  const r = await raw.execute({ sql: 'SELECT top FROM entry_neighbours WHERE entry_id = ?', args: [id] });
  return r.rows[0] ? JSON.parse(String(r.rows[0].top)) : null;
}

beforeAll(async () => {
  t = await startTestServer();
  for (let i = 0; i < 60; i++) ids.push(await captureId(t, { content: `graph node ${i}` }, { workspace: WS }));
  raw = await openWorkspaceDb(t.dbPath(WS));
  db = drizzleFor(raw);
});

afterAll(async () => {
  raw?.close();
  await t?.stop();
});

describe('entry neighbour lists', () => {
  it('keep the heaviest edges of each entry in step through link, relink, unlink and forget', async () => {
    const [hub, ...spokes] = ids.slice(0, 12) as [string, ...string[]];
    // Eleven edges on the hub, some tied on weight: the list keeps the 8 heaviest, ties oldest first.
    const weights = [0.5, 0.9, 0.5, 0.2, 0.7, 0.5, 0.3, 0.9, 0.1, 0.5, 0.6];
    for (const [i, w] of weights.entries()) await relate(hub, spokes[i]!, w);
    expect(await outOfStep()).toBe(0);
    const top = (await stored(hub))!;
    expect(top).toHaveLength(STORED_FANOUT);
    expect(top.map((s) => Number(s[3]))).toEqual([0.9, 0.9, 0.7, 0.6, 0.5, 0.5, 0.5, 0.5]);
    expect(top.map((s) => s[0]).slice(0, 2)).toEqual([spokes[1], spokes[7]]);
    expect(await stored(spokes[3]!)).toHaveLength(1);

    // Strengthening an edge moves it up; the weakest one listed drops out.
    await relate(hub, spokes[8]!, 0.95);
    expect((await stored(hub))![0]![0]).toBe(spokes[8]);
    expect(await outOfStep()).toBe(0);

    await gql(UNLINK, { src: hub, dst: spokes[3], type: 'RELATES_TO' });
    expect(await stored(spokes[3]!)).toBeNull();
    expect(await outOfStep()).toBe(0);

    // Forgetting an entry removes its edges, its own list, and it from its neighbours' lists.
    await gql(FORGET, { id: spokes[8] });
    expect(await stored(spokes[8]!)).toBeNull();
    expect((await stored(hub))!.map((s) => s[0])).not.toContain(spokes[8]);
    expect(await outOfStep()).toBe(0);
  });

  it('walk the graph exactly as the recursive CTE does: same nodes, hops and scores', async () => {
    const next = random(7);
    const pool = ids.slice(12);
    for (let i = 0; i < 150; i++) {
      const a = pool[Math.floor(next() * pool.length)]!;
      const b = pool[Math.floor(next() * pool.length)]!;
      if (a === b) continue;
      // Few distinct weights, so ties are common.
      await relate(a, b, Math.ceil(next() * 4) / 4);
    }
    expect(await outOfStep()).toBe(0);
    for (const fanout of [3, STORED_FANOUT, STORED_FANOUT + 2]) {
      for (const seed of pool) {
        for (const hops of [1, 3]) {
          const expected = (await raw.execute({ sql: RECURSIVE_WALK_SQL, args: [seed, 0.6, fanout, hops, 21] })).rows;
          const walk = await walkGraph(db, [seed], hops, { fanout, nodeCap: 20 });
          expect(walk.truncated).toBe(expected.length > 20);
          expect(walk.nodes.map((n) => [n.id, n.hop, n.score])).toEqual(
            expected.slice(0, 20).map((r) => [r.id, r.hop, r.score]),
          );
          // Where two edges give a node the same best score either may be named; it must
          // be a real edge from a node one hop nearer that gives exactly that score.
          const byId = new Map(walk.nodes.map((n) => [n.id, n]));
          for (const n of walk.nodes.filter((x) => x.hop > 0)) {
            const via = n.viaEdge!;
            const from = byId.get(via.src === n.id ? via.dst : via.src);
            const parent =
              from ??
              (await walkGraph(db, [seed], hops, { fanout, nodeCap: 1000 })).nodes.find(
                (x) => x.id === (via.src === n.id ? via.dst : via.src),
              );
            expect(parent?.hop).toBe(n.hop - 1);
            expect(parent!.score * 0.6 * via.weight).toBe(n.score);
          }
        }
      }
    }
  });

  it('are checked by `check` and rebuilt by `reindex`', async () => {
    const env = { SPHERE_DATA_DIR: t.dataDir };
    expect((await runCli(['check', '--workspace', WS], env)).code).toBe(0);
    await raw.execute({ sql: 'DELETE FROM entry_neighbours WHERE entry_id = ?', args: [ids[0]!] });
    await raw.execute({ sql: `UPDATE entry_neighbours SET top = '[]' WHERE entry_id = ?`, args: [ids[1]!] });
    const bad = await runCli(['check', '--workspace', WS], env);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/PROBLEM: 2 neighbour list\(s\) are out of step with edges; run reindex/);
    expect((await runCli(['reindex', '--workspace', WS], env)).code).toBe(0);
    expect(await outOfStep()).toBe(0);
    expect((await runCli(['check', '--workspace', WS], env)).code).toBe(0);
  });
});
