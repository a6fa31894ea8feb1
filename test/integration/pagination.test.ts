import type { InArgs } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, drizzleFor, openClient } from '../../src/db/client.ts';
import { listEntries } from '../../src/retrieval/entry-page.ts';
import { CAPTURE, LINK } from '../helpers/operations.ts';
import { type Data, freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

const PAGE = `query ($first: Int, $after: String, $last: Int, $before: String, $filter: EntryFilter, $orderBy: EntryOrder) {
  entries(first: $first, after: $after, last: $last, before: $before, filter: $filter, orderBy: $orderBy) {
    edges { cursor node { id content } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    totalCount
  }
}`;

interface Seeded {
  i: number;
  id: string;
  createdAt: number;
  updatedAt: number;
  observedAt: number | null;
  kind: string;
  status: string;
  tags: string[];
}

type Field = 'CREATED_AT' | 'UPDATED_AT' | 'OBSERVED_AT';
type Dir = 'ASC' | 'DESC';

let srv: TestServer;
const WS = freshWorkspace('pages');
const seeded: Seeded[] = [];
const DAY = 86_400_000;

/** Runs up to 25 mutations in one document (mutations run in order, so entries are stored in this order). */
async function batch(ws: string, op: string, vars: Record<string, unknown>[]): Promise<Data[]> {
  const out: Data[] = [];
  for (let s = 0; s < vars.length; s += 25) {
    const chunk = vars.slice(s, s + 25);
    const [head, body] = splitOp(op);
    const defs = chunk.flatMap((_, k) => head.map((d) => d.replace('$', `$v${k}_`)));
    const fields = chunk.map((_, k) => `m${k}: ${body.replace(/\$(\w+)/g, `$v${k}_$1`)}`);
    const variables = Object.fromEntries(
      chunk.flatMap((v, k) => Object.entries(v).map(([name, value]) => [`v${k}_${name}`, value])),
    );
    const data = await srv.gqlOk(`mutation (${defs.join(', ')}) { ${fields.join('\n')} }`, variables, {
      workspace: ws,
    });
    out.push(...chunk.map((_, k) => data[`m${k}`]));
  }
  return out;
}

/** `mutation ($a: T!, $b: U) { field(...) { ... } }` → (['$a: T!', '$b: U'], 'field(...) { ... }'). */
function splitOp(op: string): [string[], string] {
  const m = /^mutation \(([^)]*)\) \{ ([\s\S]*) \}$/.exec(op.trim());
  if (!m?.[1] || !m[2]) throw new Error(`cannot batch ${op}`);
  return [m[1].split(',').map((s) => s.trim()), m[2]];
}

const CAPTURE_FULL =
  'mutation ($input: CaptureInput!) { capture(input: $input) { entry { id createdAt updatedAt observedAt } } }';
const UPDATE_AT =
  'mutation ($id: ID!, $content: String!) { update(input: { id: $id, content: $content }) { entry { id updatedAt } } }';

function sortKey(e: Seeded, field: Field): number {
  if (field === 'CREATED_AT') return e.createdAt;
  if (field === 'UPDATED_AT') return e.updatedAt;
  return e.observedAt ?? e.createdAt;
}

/** The expected order: the sort key, ties by storage order, both in the direction asked. */
function expected(list: readonly Seeded[], field: Field, dir: Dir): string[] {
  const sign = dir === 'ASC' ? 1 : -1;
  return [...list].sort((a, b) => sign * (sortKey(a, field) - sortKey(b, field) || a.i - b.i)).map((e) => e.id);
}

async function page(vars: Record<string, unknown>, ws = WS): Promise<Data> {
  return (await srv.gqlOk(PAGE, vars, { workspace: ws })).entries;
}

async function walkForward(vars: Record<string, unknown>, size: number): Promise<{ ids: string[]; pages: Data[] }> {
  const ids: string[] = [];
  const pages: Data[] = [];
  let after: string | null = null;
  for (let guard = 0; guard < 1_000; guard++) {
    const p = await page({ ...vars, first: size, after });
    pages.push(p);
    ids.push(...p.edges.map((e: Data) => e.node.id));
    if (!p.pageInfo.hasNextPage) break;
    after = p.pageInfo.endCursor;
  }
  return { ids, pages };
}

async function walkBackward(vars: Record<string, unknown>, size: number): Promise<{ ids: string[]; pages: Data[] }> {
  const ids: string[] = [];
  const pages: Data[] = [];
  let before: string | null = null;
  for (let guard = 0; guard < 1_000; guard++) {
    const p = await page({ ...vars, last: size, before });
    pages.push(p);
    ids.unshift(...p.edges.map((e: Data) => e.node.id));
    if (!p.pageInfo.hasPreviousPage) break;
    before = p.pageInfo.startCursor;
  }
  return { ids, pages };
}

beforeAll(async () => {
  srv = await startTestServer();
  const inputs = Array.from({ length: 230 }, (_, i) => ({
    content: `entry number ${i}`,
    kind: i % 5 === 0 ? 'EPISODIC' : 'SEMANTIC',
    status: i % 10 === 0 ? 'DEPRECATED' : 'ACTIVE',
    tags: [...(i % 2 === 0 ? ['even'] : []), ...(i % 3 === 0 ? ['Three'] : [])],
    // Observed times out of storage order, with repeats; every third entry has none.
    observedAt: i % 3 === 1 ? null : new Date(Date.UTC(2020, 0, 1) + ((i * 37) % 50) * DAY).toISOString(),
  }));
  const stored = await batch(
    WS,
    CAPTURE_FULL,
    inputs.map((input) => ({ input })),
  );
  stored.forEach((r, i) => {
    const e = r.entry;
    const input = inputs[i] as (typeof inputs)[number];
    seeded.push({
      i,
      id: e.id,
      createdAt: Date.parse(e.createdAt),
      updatedAt: Date.parse(e.updatedAt),
      observedAt: e.observedAt ? Date.parse(e.observedAt) : null,
      kind: input.kind,
      status: input.status,
      tags: input.tags.map((t) => t.toLowerCase()),
    });
  });
  // Updated times out of storage order: every seventh entry, newest index first.
  const updated = seeded.filter((e) => e.i % 7 === 0).reverse();
  const res = await batch(
    WS,
    UPDATE_AT,
    updated.map((e) => ({ id: e.id, content: `entry number ${e.i}, revised` })),
  );
  updated.forEach((e, k) => {
    e.updatedAt = Date.parse(res[k]?.entry.updatedAt);
  });
}, 120_000);

afterAll(async () => {
  await srv?.stop();
});

const ORDERS: [Field, Dir][] = (['CREATED_AT', 'UPDATED_AT', 'OBSERVED_AT'] as const).flatMap((f) =>
  (['DESC', 'ASC'] as const).map((d): [Field, Dir] => [f, d]),
);

describe('entries: a keyset-paged listing', () => {
  it.each(ORDERS)('walks %s %s forward and backward over 230 entries, each once, in order', async (field, dir) => {
    const orderBy = { field, direction: dir };
    const want = expected(seeded, field, dir);
    const fwd = await walkForward({ orderBy }, 23);
    expect(fwd.ids).toEqual(want);
    expect(fwd.pages).toHaveLength(10);
    expect(fwd.pages[0]?.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
    expect(fwd.pages[5]?.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    expect(fwd.pages[9]?.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    for (const p of fwd.pages) expect(p.totalCount).toBe(230);
    const back = await walkBackward({ orderBy }, 23);
    expect(back.ids).toEqual(want);
    expect(back.pages[0]?.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(back.pages.at(-1)?.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
  });

  it('reads every page from its order’s index: no sort of the table, no scan past a cursor', async () => {
    // Each statement a page runs, with its arguments, explained on the workspace's own file.
    const statements: { sql: string; args: unknown[] }[] = [];
    const client = await openClient({ url: `file:${srv.dbPath(WS)}`, local: true });
    try {
      const db = drizzleFor(client, (sql, args) => statements.push({ sql, args })) as unknown as Db;
      for (const [field, direction] of ORDERS) {
        const orderBy = { field, direction };
        const first = await listEntries(db, { first: 20, orderBy }, { text: false });
        const cursor = first.pageInfo.endCursor!;
        await listEntries(db, { first: 20, after: cursor, orderBy }, { text: false });
        await listEntries(db, { last: 20, before: cursor, orderBy }, { text: false });
      }
      expect(statements.length).toBeGreaterThanOrEqual(ORDERS.length * 4);
      for (const { sql, args } of statements) {
        const plan = await client.execute({ sql: `EXPLAIN QUERY PLAN ${sql}`, args: args as InArgs });
        const steps = plan.rows.map((r) => String(r.detail));
        expect(steps.join(' | '), sql).toMatch(
          /^(SCAN|SEARCH) e USING INDEX entries_(created|updated|observed_order)_idx/,
        );
        expect(steps.join(' | '), sql).not.toMatch(/TEMP B-TREE|^SCAN e$/);
      }
    } finally {
      client.close();
    }
  });

  it('defaults to 50 entries, newest first by creation, every status included', async () => {
    const p = await page({});
    expect(p.edges.map((e: Data) => e.node.id)).toEqual(expected(seeded, 'CREATED_AT', 'DESC').slice(0, 50));
    expect(p.totalCount).toBe(230);
    expect(p.pageInfo.startCursor).toBe(p.edges[0].cursor);
    expect(p.pageInfo.endCursor).toBe(p.edges[49].cursor);
  });

  it('takes first with before and last with after as the cursor spec says', async () => {
    const want = expected(seeded, 'CREATED_AT', 'DESC');
    const all = await walkForward({}, 200);
    const cursorOf = (k: number) => all.pages[Math.floor(k / 200)]?.edges[k % 200].cursor;
    const head = await page({ first: 5, before: cursorOf(30) });
    expect(head.edges.map((e: Data) => e.node.id)).toEqual(want.slice(0, 5));
    expect(head.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const tail = await page({ last: 5, after: cursorOf(10) });
    expect(tail.edges.map((e: Data) => e.node.id)).toEqual(want.slice(225));
    expect(tail.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const between = await page({ first: 100, after: cursorOf(10), before: cursorOf(30) });
    expect(between.edges.map((e: Data) => e.node.id)).toEqual(want.slice(11, 30));
    expect(between.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it('filters like recall: kinds, statuses, tags (all of), since/until on observed-or-created time', async () => {
    const cases: [Record<string, unknown>, (e: Seeded) => boolean][] = [
      [{ kinds: ['EPISODIC'] }, (e) => e.kind === 'EPISODIC'],
      [{ statuses: ['DEPRECATED'] }, (e) => e.status === 'DEPRECATED'],
      [{ statuses: ['ACTIVE'] }, (e) => e.status === 'ACTIVE'],
      [{ tags: ['EVEN', 'three'] }, (e) => e.tags.includes('even') && e.tags.includes('three')],
      [
        { since: new Date(Date.UTC(2020, 0, 11)).toISOString(), until: new Date(Date.UTC(2020, 0, 21)).toISOString() },
        (e) => {
          const at = e.observedAt ?? e.createdAt;
          return at >= Date.UTC(2020, 0, 11) && at < Date.UTC(2020, 0, 21);
        },
      ],
      [{ kinds: ['EPISODIC'], tags: ['even'] }, (e) => e.kind === 'EPISODIC' && e.tags.includes('even')],
    ];
    for (const [filter, keep] of cases) {
      const want = expected(seeded.filter(keep), 'OBSERVED_AT', 'ASC');
      expect(want.length).toBeGreaterThan(0);
      const walk = await walkForward({ filter, orderBy: { field: 'OBSERVED_AT', direction: 'ASC' } }, 17);
      expect(walk.ids, JSON.stringify(filter)).toEqual(want);
      expect(walk.pages[0]?.totalCount).toBe(want.length);
    }
    const none = await page({ filter: { tags: ['no-such-tag'] } });
    expect(none).toMatchObject({ edges: [], totalCount: 0 });
    expect(none.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });
  });

  it('refuses malformed and foreign cursors, first with last, and sizes out of range with BAD_USER_INPUT', async () => {
    const first = await page({ first: 3 });
    const cursor: string = first.edges[2].cursor;
    const asc = await page({ first: 3, orderBy: { direction: 'ASC' } });
    const bad = [
      { after: 'not a cursor!' },
      { after: 'eyJub3QiOiJhbiBhcnJheSJ9' },
      { before: Buffer.from('["entries:CREATED_AT:DESC","x",1]').toString('base64url') },
      { after: cursor, orderBy: { direction: 'ASC' } },
      { before: asc.edges[0].cursor },
      { after: cursor, orderBy: { field: 'UPDATED_AT' } },
      { first: 2, last: 2 },
      { first: 0 },
      { first: 201 },
      { last: 0 },
    ];
    for (const vars of bad) {
      const res = await srv.gql(PAGE, vars, { workspace: WS });
      expect(res.status, JSON.stringify(vars)).toBe(200);
      expect(res.errors?.[0]?.extensions?.code, JSON.stringify(vars)).toBe('BAD_USER_INPUT');
      expect(JSON.stringify(res.errors)).not.toMatch(/stack|at .*\.ts/);
    }
    expect((await page({ first: 200 })).totalCount).toBe(230);
  });

  it('counts entries(first) in the query cost', async () => {
    const nested = (n: number) =>
      `{ entries(first: ${n}) { edges { node { connections(first: 200) { entry { connections(first: 30) { direction } } } } } } }`;
    const refused = await srv.gql(nested(200), {}, { workspace: WS });
    expect(refused.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(refused.errors?.[0]?.message).toMatch(/cost/);
    const lastRefused = await srv.gql(nested(1).replace('first: 1)', 'last: 200)'), {}, { workspace: WS });
    expect(lastRefused.errors?.[0]?.message).toMatch(/cost/);
    await srv.gqlOk(nested(1), {}, { workspace: WS });
  });
});

describe('entries under concurrent captures', () => {
  it('a walk of 1,000 entries in pages of 37 sees each entry that existed at its start exactly once', async () => {
    const ws = freshWorkspace('pages-walk');
    const ids = (
      await batch(
        ws,
        CAPTURE,
        Array.from({ length: 1_000 }, (_, i) => ({ input: { content: `walk entry ${i}` } })),
      )
    ).map((r) => r.entry.id as string);
    let walking = true;
    let written = 0;
    const writer = async (w: number) => {
      for (let k = 0; walking; k++) {
        await srv.gqlOk(CAPTURE, { input: { content: `concurrent ${w}-${k}` } }, { workspace: ws });
        written++;
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    const seen: string[] = [];
    let after: string | null = null;
    try {
      for (let guard = 0; guard < 200; guard++) {
        const p = await page({ first: 37, after }, ws);
        seen.push(...p.edges.map((e: Data) => e.node.id));
        if (!p.pageInfo.hasNextPage) break;
        after = p.pageInfo.endCursor;
      }
    } finally {
      walking = false;
      await Promise.all(writers);
    }
    expect(written).toBeGreaterThan(0);
    expect(new Set(seen).size).toBe(seen.length);
    const seenSet = new Set(seen);
    expect(ids.filter((id) => !seenSet.has(id))).toEqual([]);
    // Newest first: the walk began after the seed, so the seeded entries come in reverse.
    expect(seen.filter((id) => ids.includes(id))).toEqual([...ids].reverse());
  }, 180_000);
});

describe('after cursors on revisions, connections and tags', () => {
  it('revisions(after) continues from a revision’s cursor, oldest first', async () => {
    const ws = freshWorkspace('pages-rev');
    const id = (await srv.gqlOk(CAPTURE, { input: { content: 'rev 0' } }, { workspace: ws })).capture.entry.id;
    await batch(
      ws,
      UPDATE_AT,
      [1, 2, 3, 4, 5].map((k) => ({ id, content: `rev ${k}` })),
    );
    const REV = `query ($id: ID!, $first: Int, $after: String) {
      entry(id: $id) { revisions(first: $first, after: $after) { content cursor } } }`;
    const all = (await srv.gqlOk(REV, { id, first: 200 }, { workspace: ws })).entry.revisions;
    expect(all.map((r: Data) => r.content)).toEqual(['rev 0', 'rev 1', 'rev 2', 'rev 3', 'rev 4']);
    const walked: string[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 10; guard++) {
      const got: Data[] = (await srv.gqlOk(REV, { id, first: 2, after }, { workspace: ws })).entry.revisions;
      if (got.length === 0) break;
      walked.push(...got.map((r: Data) => r.content));
      after = got.at(-1)?.cursor;
    }
    expect(walked).toEqual(all.map((r: Data) => r.content));
    const foreign = await srv.gql(REV, { id, after: 'bm9wZQ' }, { workspace: ws });
    expect(foreign.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('reads each entry’s page of revisions alone, whatever the entries hold, with pages of any args in one document', async () => {
    const ws = freshWorkspace('pages-rev-many');
    const capture = async (content: string) =>
      (await srv.gqlOk(CAPTURE, { input: { content } }, { workspace: ws })).capture.entry.id as string;
    const [a, b] = [await capture('a 0'), await capture('b 0')];
    await batch(
      ws,
      UPDATE_AT,
      [1, 2, 3, 4, 5].map((k) => ({ id: a, content: `a ${k}` })),
    );
    await batch(
      ws,
      UPDATE_AT,
      [1, 2, 3].map((k) => ({ id: b, content: `b ${k}` })),
    );
    const second = (
      await srv.gqlOk(
        'query ($id: ID!) { entry(id: $id) { revisions(first: 2) { cursor } } }',
        { id: a },
        { workspace: ws },
      )
    ).entry.revisions[1].cursor as string;
    srv.resetQueries();
    const data = await srv.gqlOk(
      `query ($a: ID!, $b: ID!, $after: String) {
        a: entry(id: $a) { head: revisions(first: 2) { content } rest: revisions(first: 10, after: $after) { content } }
        b: entry(id: $b) { head: revisions(first: 2) { content } rest: revisions(first: 10) { content } }
        recent(n: 5) { revisions(first: 1) { content } }
      }`,
      { a, b, after: second },
      { workspace: ws },
    );
    const contents = (list: Data[]) => list.map((r) => r.content);
    expect(contents(data.a.head)).toEqual(['a 0', 'a 1']);
    expect(contents(data.a.rest)).toEqual(['a 2', 'a 3', 'a 4']);
    expect(contents(data.b.head)).toEqual(['b 0', 'b 1']);
    expect(contents(data.b.rest)).toEqual(['b 0', 'b 1', 'b 2']);
    expect(data.recent.map((e: Data) => contents(e.revisions))).toEqual([['b 0'], ['a 0']]);
    // Pages asked alike are read together, and every read of revisions stops at its page.
    const reads = srv.queries.filter((q) => /\bfrom "revisions"/i.test(q));
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.length).toBeLessThanOrEqual(4);
    for (const q of reads) expect(q).toMatch(/\blimit\b/i);
  });

  it('connections(after) continues in the heaviest-first order, on Entry and at the root', async () => {
    const ws = freshWorkspace('pages-conn');
    const hub = (await srv.gqlOk(CAPTURE, { input: { content: 'hub' } }, { workspace: ws })).capture.entry.id;
    const spokes = (
      await batch(
        ws,
        CAPTURE,
        [0, 1, 2, 3, 4, 5, 6].map((k) => ({ input: { content: `spoke ${k}` } })),
      )
    ).map((r) => r.entry.id as string);
    // Equal weights too, so the order past the weight decides.
    const weights = [0.5, 0.9, 0.5, 0.2, 0.9, 0.5, 1];
    await batch(
      ws,
      LINK,
      spokes.map((dst, k) => ({ input: { src: hub, dst, type: 'RELATES_TO', weight: weights[k] } })),
    );
    const CONN = `query ($id: ID!, $first: Int, $after: String) {
      entry(id: $id) { connections(first: $first, after: $after) { cursor edge { weight } entry { id } } }
      connections(id: $id, first: $first, after: $after) { cursor entry { id } } }`;
    const all = (await srv.gqlOk(CONN, { id: hub, first: 200 }, { workspace: ws })).entry.connections;
    expect(all).toHaveLength(7);
    const walked: string[] = [];
    const walkedRoot: string[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 10; guard++) {
      const got: Data = await srv.gqlOk(CONN, { id: hub, first: 3, after }, { workspace: ws });
      if (got.entry.connections.length === 0) break;
      walked.push(...got.entry.connections.map((c: Data) => c.entry.id));
      walkedRoot.push(...got.connections.map((c: Data) => c.entry.id));
      after = got.entry.connections.at(-1).cursor;
    }
    expect(walked).toEqual(all.map((c: Data) => c.entry.id));
    expect(walkedRoot).toEqual(walked);
    expect(all.map((c: Data) => c.edge.weight)).toEqual([...weights].sort((a, b) => b - a));
    const wrong = await srv.gql(CONN, { id: hub, after: all[0].cursor.slice(0, -3) }, { workspace: ws });
    expect(wrong.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('connections of every type and direction page through exactly the hub’s matching edges', async () => {
    const ws = freshWorkspace('pages-conn-mix');
    const capture = async (content: string) =>
      (await srv.gqlOk(CAPTURE, { input: { content, kind: 'EPISODIC' } }, { workspace: ws })).capture.entry
        .id as string;
    const hub = await capture('hub of many kinds of edges');
    const others = (
      await batch(
        ws,
        CAPTURE,
        Array.from({ length: 12 }, (_, k) => ({ input: { content: `other ${k}`, kind: 'EPISODIC' } })),
      )
    ).map((r) => r.entry.id as string);
    // Out and in, three types, repeated weights (so created_at and the ids decide ties).
    const types = ['RELATES_TO', 'CAUSED_BY', 'FOLLOWS'];
    const links = others.map((other, k) => {
      const out = k % 2 === 0;
      return {
        src: out ? hub : other,
        dst: out ? other : hub,
        type: types[k % 3]!,
        weight: [0.5, 0.8, 0.5, 1][k % 4]!,
      };
    });
    for (const input of links) await srv.gqlOk(LINK, { input }, { workspace: ws });
    const Q = `query ($id: ID!, $type: EdgeType, $direction: Direction, $first: Int, $after: String) {
      entry(id: $id) { connections(type: $type, direction: $direction, first: $first, after: $after) {
        cursor direction entry { id } edge { type weight } } } }`;
    const connectionsOf = async (vars: Record<string, unknown>) =>
      (await srv.gqlOk(Q, { id: hub, ...vars }, { workspace: ws })).entry.connections as Data[];
    for (const type of [null, ...types]) {
      for (const direction of [null, 'OUT', 'IN', 'BOTH']) {
        const expected = links
          .filter((l) => type === null || l.type === type)
          .filter((l) => {
            const dir = l.type === 'RELATES_TO' ? 'BOTH' : l.src === hub ? 'OUT' : 'IN';
            return direction === null || direction === 'BOTH' || dir === 'BOTH' || dir === direction;
          })
          .map((l) => (l.src === hub ? l.dst : l.src));
        const all = await connectionsOf({ type, direction, first: 100 });
        expect(new Set(all.map((c) => c.entry.id)), `${type} ${direction}`).toEqual(new Set(expected));
        const weights = all.map((c) => c.edge.weight);
        expect(weights, `${type} ${direction}`).toEqual([...weights].sort((a, b) => b - a));
        const walked: string[] = [];
        let after: string | null = null;
        for (let guard = 0; guard < 20; guard++) {
          const got = await connectionsOf({ type, direction, first: 2, after });
          if (got.length === 0) break;
          walked.push(...got.map((c) => c.entry.id));
          after = got.at(-1)!.cursor;
        }
        expect(walked, `${type} ${direction}`).toEqual(all.map((c) => c.entry.id));
      }
    }
  });

  it('tags(after) continues in the most-used-first order', async () => {
    const ws = freshWorkspace('pages-tags');
    const tagsOf = (k: number) => ['t-a', 't-b', 't-c', 't-d', 't-e', 't-f'].filter((_, j) => k % (j + 1) === 0);
    await batch(
      ws,
      CAPTURE,
      Array.from({ length: 12 }, (_, k) => ({ input: { content: `tagged ${k}`, tags: tagsOf(k) } })),
    );
    const TAGS = 'query ($first: Int, $after: String) { tags(first: $first, after: $after) { tag count cursor } }';
    const all = (await srv.gqlOk(TAGS, { first: 100 }, { workspace: ws })).tags;
    expect(all.length).toBe(6);
    const walked: string[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 10; guard++) {
      const got: Data[] = (await srv.gqlOk(TAGS, { first: 2, after }, { workspace: ws })).tags;
      if (got.length === 0) break;
      walked.push(...got.map((t: Data) => t.tag));
      after = got.at(-1)?.cursor;
    }
    expect(walked).toEqual(all.map((t: Data) => t.tag));
    const entryCursor = (await page({ first: 1 })).edges[0].cursor;
    const foreign = await srv.gql(TAGS, { after: entryCursor }, { workspace: ws });
    expect(foreign.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});
