import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, drizzleFor, openClient } from '../../src/db/client.ts';
import { graphView, graphViewHere } from '../../src/retrieval/graph-view.ts';
import { captureId, LINK, UPDATE } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';
import { openWorkspaceDb } from '../helpers/workspace-db.ts';

const DAY = 86_400_000;

const VIEW = `query ($seeds: [ID!]!, $hops: Int) {
  graphView(seedIds: $seeds, hops: $hops) { truncated nodes { hop score entry { id } } edges { src dst type weight } }
}`;

interface View {
  truncated: boolean;
  nodes: { hop: number; score: number; entry: { id: string } }[];
  edges: { src: string; dst: string; type: string; weight: number }[];
}

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

/** A generated graph in its own workspace: named nodes, then edges by name. */
async function makeGraph(names: string[], edges: [string, string, number, string?][]) {
  const ws = freshWorkspace('graph');
  const ids = new Map<string, string>();
  await Promise.all(
    names.map(async (name) => {
      ids.set(name, await captureId(srv, { content: `node ${name} of ${ws}` }, { workspace: ws }));
    }),
  );
  const names2 = new Map([...ids].map(([name, id]) => [id, name]));
  await Promise.all(
    edges.map(([a, b, weight, type = 'CAUSED_BY']) =>
      srv.gqlOk(LINK, { input: { src: ids.get(a), dst: ids.get(b), type, weight } }, { workspace: ws }),
    ),
  );
  const id = (name: string) => {
    const v = ids.get(name);
    if (!v) throw new Error(`no node ${name}`);
    return v;
  };
  const view = async (seeds: string[], hops?: number) => {
    const res = await srv.gql<{ graphView: View }>(VIEW, { seeds: seeds.map(id), hops }, { workspace: ws });
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    const v = res.data!.graphView;
    const nodeNames = v.nodes.map((n) => names2.get(n.entry.id)!);
    // No node twice, whatever cycles there are.
    expect(new Set(nodeNames).size).toBe(nodeNames.length);
    // Edges are exactly the edges among the returned nodes.
    const inView = new Set(v.nodes.map((n) => n.entry.id));
    const expectedEdges = edges
      .map(([a, b, w, type = 'CAUSED_BY']) => {
        const [s, d] = type === 'RELATES_TO' && id(b) < id(a) ? [id(b), id(a)] : [id(a), id(b)];
        return `${s}>${d}:${type}:${w}`;
      })
      .filter((k) => {
        const [s, rest] = k.split('>') as [string, string];
        return inView.has(s) && inView.has(rest.split(':')[0]!);
      })
      .sort();
    expect(v.edges.map((e) => `${e.src}>${e.dst}:${e.type}:${e.weight}`).sort()).toEqual(expectedEdges);
    return {
      truncated: v.truncated,
      names: new Set(nodeNames),
      hop: new Map(v.nodes.map((n) => [names2.get(n.entry.id)!, n.hop])),
      score: new Map(v.nodes.map((n) => [names2.get(n.entry.id)!, n.score])),
      nodes: v.nodes,
      edges: v.edges,
    };
  };
  return { ws, id, view };
}

const range = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);

describe('graphView', () => {
  it('follows at most 8 edges per node, heaviest first, and says truncated when fanout left nodes out', async () => {
    const leaves = range(12, 'l');
    // l1 is lightest, l12 heaviest; distinct weights. A heavy edge l12—l11 and a light edge l12—l1.
    const g = await makeGraph(
      ['hub', ...leaves],
      [
        ...leaves.map((l, i): [string, string, number] => [i % 2 ? 'hub' : l, i % 2 ? l : 'hub', (i + 1) / 13]),
        ['l12', 'l11', 0.95, 'RELATES_TO'],
        ['l12', 'l1', 0.97],
      ],
    );
    const v = await g.view(['hub'], 1);
    expect(v.names).toEqual(new Set(['hub', ...range(12, 'l').slice(4)]));
    expect(v.truncated).toBe(true);
    expect(v.hop.get('hub')).toBe(0);
    expect(v.score.get('hub')).toBe(1);
    expect(v.hop.get('l12')).toBe(1);
    expect(v.score.get('l12')).toBeCloseTo(0.6 * (12 / 13), 6);
    // The l12—l11 edge is among returned nodes and shows although the walk did not use it.
    expect(v.edges.some((e) => e.type === 'RELATES_TO')).toBe(true);
    // hops 0: the seed alone, never truncated.
    const zero = await g.view(['hub'], 0);
    expect(zero.names).toEqual(new Set(['hub']));
    expect(zero.truncated).toBe(false);
    expect(zero.edges).toEqual([]);
  });

  it('exactly 8 neighbours is not truncated; hops default to 1', async () => {
    const leaves = range(8, 'l');
    const g = await makeGraph(
      ['hub', 'far', ...leaves],
      [...leaves.map((l, i): [string, string, number] => ['hub', l, (i + 1) / 10]), ['l1', 'far', 0.5]],
    );
    const v = await g.view(['hub']);
    expect(v.names).toEqual(new Set(['hub', ...leaves]));
    // `far` is only reachable at hop 2: stopping at hops is not truncation.
    expect(v.truncated).toBe(false);
    const two = await g.view(['hub'], 2);
    expect(two.names).toEqual(new Set(['hub', 'far', ...leaves]));
    expect(two.hop.get('far')).toBe(2);
    expect(two.score.get('far')).toBeCloseTo(0.36 * 0.1 * 0.5, 6);
    expect(two.truncated).toBe(false);
  });

  it('respects hops 0..3 on a chain and walks both directions', async () => {
    // a → b ← c → d ← e → f : directions alternate, the walk ignores them.
    const g = await makeGraph(
      ['a', 'b', 'c', 'd', 'e', 'f'],
      [
        ['a', 'b', 1],
        ['c', 'b', 0.9],
        ['c', 'd', 0.8],
        ['e', 'd', 0.7, 'RELATES_TO'],
        ['e', 'f', 0.6],
      ],
    );
    const expected = [['a'], ['a', 'b'], ['a', 'b', 'c'], ['a', 'b', 'c', 'd']];
    for (let hops = 0; hops <= 3; hops++) {
      const v = await g.view(['a'], hops);
      expect(v.names, `hops ${hops}`).toEqual(new Set(expected[hops]));
      expect(v.truncated, `hops ${hops}`).toBe(false);
      expect([...v.hop.entries()].every(([name, hop]) => hop === 'abcd'.indexOf(name))).toBe(true);
    }
    // From the middle, both directions at once.
    const mid = await g.view(['d'], 2);
    expect(mid.names).toEqual(new Set(['b', 'c', 'd', 'e', 'f']));
  });

  it('cycles do not loop and keep each node at its nearest hop', async () => {
    const g = await makeGraph(
      ['a', 'b', 'c', 'd'],
      [
        ['a', 'b', 0.9],
        ['b', 'c', 0.9],
        ['c', 'a', 0.9],
        ['c', 'd', 0.5],
        ['d', 'a', 0.4, 'RELATES_TO'],
      ],
    );
    const v = await g.view(['a'], 3);
    expect(v.names).toEqual(new Set(['a', 'b', 'c', 'd']));
    expect(Object.fromEntries(v.hop)).toEqual({ a: 0, b: 1, c: 1, d: 1 });
    expect(v.nodes).toHaveLength(4);
    expect(v.edges).toHaveLength(5);
    expect(v.truncated).toBe(false);
  });

  it('caps the view at 50 nodes and then says truncated', async () => {
    // A tree: root, 8 children, 8 grandchildren each (73 nodes within 2 hops).
    const kids = range(8, 'k');
    const grand = kids.flatMap((k) => range(8, `${k}g`));
    const g = await makeGraph(
      ['root', ...kids, ...grand],
      [
        ...kids.map((k): [string, string, number] => ['root', k, 1]),
        ...grand.map((x): [string, string, number] => [x.split('g')[0]!, x, 0.5]),
      ],
    );
    const one = await g.view(['root'], 1);
    expect(one.names.size).toBe(9);
    expect(one.truncated).toBe(false);
    const two = await g.view(['root'], 2);
    expect(two.nodes).toHaveLength(50);
    expect(two.truncated).toBe(true);
    // Nearest first: the root and all its children are kept.
    for (const name of ['root', ...kids]) expect(two.names.has(name)).toBe(true);
    const three = await g.view(['root'], 3);
    expect(three.nodes).toHaveLength(50);
    expect(three.truncated).toBe(true);
    expect(three).toEqual(two);
    // Past the cap after two hops, a third could only add nodes that sort after fifty
    // others: the walk stops there. The seed's existence comes with its edges, and the
    // seed's row with the other nodes': its edges, its children's, then one batch (which
    // this log of single statements does not list) of the edges among the nodes and the
    // nodes' rows. The server reads on a reader thread, so the statements are counted on a
    // client of the file that reads where it is called, with what VIEW's selection reads.
    const queries: string[] = [];
    const client = await openClient({ url: `file:${srv.dbPath(g.ws)}`, local: true });
    try {
      const direct = await graphViewHere(
        drizzleFor(client, (q) => queries.push(q)) as unknown as Db,
        [g.id('root')],
        3,
        { entries: ['id'], edgeColumns: ['weight'] },
      );
      expect(direct.nodes).toHaveLength(50);
      expect(queries, queries.join('\n')).toHaveLength(2);
    } finally {
      client.close();
    }
  });

  it('applies the fanout at every hop, not only at the seeds', async () => {
    const bs = range(9, 'b');
    const g = await makeGraph(
      ['s', 'a', ...bs],
      [['s', 'a', 1], ...bs.map((b, i): [string, string, number] => ['a', b, (i + 1) / 10])],
    );
    const v = await g.view(['s'], 2);
    // Whether or not the edge back to s counts toward a's 8, the lightest b1 is left out.
    expect(v.names.has('b1')).toBe(false);
    expect(v.names.has('b9')).toBe(true);
    expect(v.names.size).toBeGreaterThanOrEqual(9);
    expect(v.truncated).toBe(true);
    const one = await g.view(['s'], 1);
    expect(one.names).toEqual(new Set(['s', 'a']));
    expect(one.truncated).toBe(false);
  });

  it('is not truncated when a node the fanout skipped is reached another way', async () => {
    const leaves = range(9, 'l');
    const g = await makeGraph(
      ['hub', 'other', ...leaves],
      [...leaves.map((l, i): [string, string, number] => ['hub', l, (i + 1) / 10]), ['other', 'l1', 0.5]],
    );
    const v = await g.view(['hub', 'other'], 1);
    expect(v.names).toEqual(new Set(['hub', 'other', ...leaves]));
    expect(v.truncated).toBe(false);
    const alone = await g.view(['hub'], 1);
    expect(alone.names.has('l1')).toBe(false);
    expect(alone.truncated).toBe(true);
  });

  it('rejects unknown seeds (NOT_FOUND), more than 50 seeds and hops outside 0..3 (BAD_USER_INPUT)', async () => {
    const g = await makeGraph(range(51, 'n'), []);
    const all = range(51, 'n').map(g.id);
    const run = (seeds: string[], hops?: number) => srv.gql(VIEW, { seeds, hops }, { workspace: g.ws });
    const code = (r: Awaited<ReturnType<typeof run>>) => r.errors?.[0]?.extensions?.code;

    expect(code(await run([all[0]!, 'unknown-id']))).toBe('NOT_FOUND');
    expect(code(await run(all))).toBe('BAD_USER_INPUT');
    expect(code(await run(all.slice(0, 50)))).toBeUndefined();
    expect(code(await run([all[0]!], 4))).toBe('BAD_USER_INPUT');
    expect(code(await run([all[0]!], -1))).toBe('BAD_USER_INPUT');
  });
});

describe('graphView reads only the columns its selection needs', () => {
  /** Introspected fields of a type: name, and whether it is an object (needs a selection). */
  async function fieldsOf(type: string): Promise<{ name: string; leaf: boolean }[]> {
    type T = { kind: string; ofType: T | null };
    const data = await srv.gqlOk<{ __type: { fields: { name: string; type: T }[] } }>(
      `query ($t: String!) { __type(name: $t) { fields { name type { kind ofType { kind ofType { kind ofType { kind } } } } } } }`,
      { t: type },
    );
    const named = (t: T): string => (t.ofType ? named(t.ofType) : t.kind);
    return data.__type.fields.map((f) => ({ name: f.name, leaf: ['SCALAR', 'ENUM'].includes(named(f.type)) }));
  }
  /** How a test selects a field: itself, or with a selection of its own for an object. */
  const OBJECT_SELECTIONS: Record<string, string> = {
    revisions: 'revisions { content cursor op }',
    connections: 'connections { cursor direction edge { src dst type weight } }',
    source: 'source { id content }',
    target: 'target { id content }',
    classification: 'classification { kind volatility importance model at }',
    conflicts: 'conflicts { entry { id } newer relation reason confidence model at }',
  };
  const select = (f: { name: string; leaf: boolean }) => {
    if (f.leaf) return f.name;
    const own = OBJECT_SELECTIONS[f.name];
    if (!own) throw new Error(`give the object field ${f.name} a selection in this test`);
    return own;
  };

  /** A small graph whose entries and edges have every optional field set somewhere. */
  async function richGraph() {
    const ws = freshWorkspace('columns');
    const opts = { workspace: ws };
    const a = await captureId(
      srv,
      {
        content: 'Ana chose libSQL for the map',
        kind: 'PERSON',
        source: 'standup',
        evidenceRef: 'doc://7',
        observedAt: '2026-01-02T03:04:05.000Z',
        importance: 0.9,
        claimTag: 'VERIFIED',
        tags: ['Infra', 'db'],
        volatility: 'EPHEMERAL',
      },
      opts,
    );
    const b = await captureId(srv, { content: 'the first plan for the map' }, opts);
    await srv.gqlOk(UPDATE, { id: b, content: 'the second plan for the map' }, opts);
    const c = await captureId(srv, { content: 'the plan that replaced it', replaces: b }, opts);
    const d = await captureId(srv, { content: 'what followed the plan', status: 'CANONICAL' }, opts);
    const link = (src: string, dst: string, type: string, weight: number, metadata?: unknown) =>
      srv.gqlOk(LINK, { input: { src, dst, type, weight, metadata } }, opts);
    await link(a, b, 'CAUSED_BY', 0.7, { why: 'a meeting', n: 2 });
    await link(a, c, 'RELATES_TO', 0.4);
    await link(c, d, 'CAUSED_BY', 0.9, { order: [1, 2] });
    await link(d, a, 'CAUSED_BY', 0.2);
    // a's freshness then depends on its volatility and age: AGING (5 of its 7 days old).
    const db = await openWorkspaceDb(srv.dbPath(ws));
    try {
      await db.execute({ sql: 'UPDATE entries SET updated_at = ? WHERE id = ?', args: [Date.now() - 5 * DAY, a] });
    } finally {
      db.close();
    }
    return { ws, ids: [a, b, c, d] };
  }

  it('answers every Entry and Edge field as the whole rows do', async () => {
    const g = await richGraph();
    const opts = { workspace: g.ws };
    const fresh = await srv.gqlOk<{ entry: { freshness: string } }>(
      'query ($id: ID!) { entry(id: $id) { freshness } }',
      { id: g.ids[0] },
      opts,
    );
    expect(fresh.entry.freshness).toBe('AGING');
    const entryFields = await fieldsOf('Entry');
    const edgeFields = await fieldsOf('Edge');
    expect(entryFields.length).toBeGreaterThan(15);
    const { graphView: all } = await srv.gqlOk<{ graphView: { edges: { id: string }[] } }>(
      'query ($s: [ID!]!) { graphView(seedIds: $s, hops: 3) { nodes { entry { id } } edges { id } } }',
      { s: [g.ids[0]] },
      opts,
    );
    expect(all.edges).toHaveLength(5);

    for (const field of entryFields) {
      const sel = select(field);
      const view = await srv.gqlOk<{ graphView: { nodes: { entry: { id: string } }[] } }>(
        `query ($s: [ID!]!) { graphView(seedIds: $s, hops: 3) { nodes { entry { id ${sel} } } } }`,
        { s: [g.ids[0]] },
        opts,
      );
      expect(view.graphView.nodes).toHaveLength(4);
      // The same entries read whole, by the loader, in an operation of their own.
      const aliases = g.ids.map((id, i) => `e${i}: entry(id: "${id}") { id ${sel} }`).join(' ');
      const whole = await srv.gqlOk<Record<string, { id: string }>>(`{ ${aliases} }`, {}, opts);
      const byId = new Map(Object.values(whole).map((e) => [e.id, e]));
      for (const node of view.graphView.nodes) expect(node.entry, field.name).toEqual(byId.get(node.entry.id));
    }

    for (const field of edgeFields) {
      const sel = select(field);
      const view = await srv.gqlOk<{ graphView: { edges: { id: string }[] } }>(
        `query ($s: [ID!]!) { graphView(seedIds: $s, hops: 3) { edges { id ${sel} } } }`,
        { s: [g.ids[0]] },
        opts,
      );
      const aliases = all.edges.map((e, i) => `e${i}: node(id: "${e.id}") { ... on Edge { id ${sel} } }`).join(' ');
      const whole = await srv.gqlOk<Record<string, { id: string }>>(`{ ${aliases} }`, {}, opts);
      const byId = new Map(Object.values(whole).map((e) => [e.id, e]));
      expect(view.graphView.edges).toHaveLength(5);
      for (const edge of view.graphView.edges) expect(edge, field.name).toEqual(byId.get(edge.id));
    }
  });

  it('follows fragments and aliases, and leaves other fields of the operation whole rows', async () => {
    const g = await richGraph();
    const [a, b] = g.ids as [string, string];
    const doc = `
      fragment E on Entry { id k: kind }
      query ($s: [ID!]!, $b: ID!) {
        graphView(seedIds: $s, hops: 2) {
          nodes { entry { ...E __typename ... on Entry { importance } } }
          edges { __typename ... on Edge { w: weight } src dst source { content } }
        }
        entry(id: $b) { id content freshness revisions { content } tags }
      }`;
    const data = await srv.gqlOk<{
      graphView: { nodes: { entry: Record<string, unknown> }[]; edges: Record<string, unknown>[] };
      entry: Record<string, unknown>;
    }>(doc, { s: [a], b }, { workspace: g.ws });
    const nodeA = data.graphView.nodes.find((n) => n.entry.id === a)!.entry;
    expect(nodeA).toEqual({ id: a, k: 'PERSON', __typename: 'Entry', importance: 0.9 });
    // An edge's source, read through the loader after the view read some columns of it, is the whole entry.
    const ab = data.graphView.edges.find((e) => e.src === a && e.dst === b);
    expect(ab).toEqual({
      __typename: 'Edge',
      w: 0.7,
      src: a,
      dst: b,
      source: { content: 'Ana chose libSQL for the map' },
    });
    expect(data.entry).toEqual({
      id: b,
      content: 'the second plan for the map',
      freshness: 'SUPERSEDED',
      revisions: [{ content: 'the first plan for the map' }],
      tags: [],
    });
  });

  it('reads the columns it is given and no others, on the workspace file', async () => {
    const g = await richGraph();
    const [a] = g.ids as [string];
    const client = await openClient({ url: `file:${srv.dbPath(g.ws)}`, local: true });
    try {
      const db = drizzleFor(client) as unknown as Db;
      const some = await graphView(db, [a], 3, {
        entries: ['kind', 'importance'],
        edgeColumns: ['weight', 'metadata'],
      });
      const whole = await graphView(db, [a], 3, { entries: true });
      expect(some.nodes.map((n) => n.id)).toEqual(whole.nodes.map((n) => n.id));
      for (const [i, node] of some.nodes.entries()) {
        const full = whole.nodes[i]!.entry!;
        expect(node.entry).toEqual({ id: full.id, kind: full.kind, importance: full.importance });
      }
      expect(some.edges).toEqual(
        whole.edges.map(({ src, dst, type, weight, metadata }) => ({ src, dst, type, weight, metadata })),
      );
      expect(some.edges.find((e) => e.src === a && e.type === 'CAUSED_BY' && e.weight === 0.7)?.metadata).toEqual({
        why: 'a meeting',
        n: 2,
      });
      const bare = await graphView(db, [a], 3);
      expect(bare.nodes.every((n) => n.entry === undefined)).toBe(true);
    } finally {
      client.close();
    }
  });

  it('answers the same on a reader thread as where it is called, errors included', async () => {
    const g = await richGraph();
    const [a, b] = g.ids as [string, string];
    const file = { url: `file:${srv.dbPath(g.ws)}`, local: true };
    const threaded = await openClient(file, { readers: 1 });
    const here = await openClient(file);
    try {
      const there = drizzleFor(threaded) as unknown as Db;
      const local = drizzleFor(here) as unknown as Db;
      for (const options of [
        { entries: true },
        { entries: ['kind', 'importance'] as const, edgeColumns: ['weight'] as const },
        {},
      ]) {
        const view = await graphView(there, [a, b], 2, options);
        expect(view.nodes.length).toBeGreaterThan(2);
        expect(view).toEqual(await graphViewHere(local, [a, b], 2, options));
      }
      // A refusal found on the reader thread keeps its code.
      await expect(graphView(there, [a, 'no-such-entry'], 1)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(graphView(there, [a], 4)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    } finally {
      threaded.close();
      here.close();
    }
  });
});
