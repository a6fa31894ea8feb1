import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureId, UNLINK } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';
import { dumpWorkspace } from '../helpers/workspace-db.ts';

const KINDS = ['EPISODIC', 'SEMANTIC', 'PROCEDURAL', 'PERSON', 'PROJECT', 'DOCUMENT'] as const;
type Kind = (typeof KINDS)[number];
const EDGE_TYPES = [
  'RELATES_TO',
  'SUPERSEDES',
  'CAUSED_BY',
  'DECIDED',
  'ABOUT_PERSON',
  'PART_OF_PROJECT',
  'FOLLOWS',
  'DOCUMENT_OF',
] as const;
type EdgeType = (typeof EDGE_TYPES)[number];

/** CONTRACT §5, written out independently of the implementation. */
function gateAllows(type: EdgeType, src: Kind, dst: Kind): boolean {
  switch (type) {
    case 'DECIDED':
      return src === 'EPISODIC';
    case 'FOLLOWS':
      return src === 'EPISODIC' && dst === 'EPISODIC';
    case 'ABOUT_PERSON':
      return dst === 'PERSON';
    case 'PART_OF_PROJECT':
      return dst === 'PROJECT';
    case 'DOCUMENT_OF':
      return src === 'DOCUMENT';
    default:
      return true;
  }
}

const LINK = `mutation ($input: LinkInput!) {
  link(input: $input) { edge { src dst type weight provenance metadata source { id } target { id } } }
}`;
const CONNECTIONS = `query ($id: ID!, $direction: Direction, $type: EdgeType) {
  entry(id: $id) { status freshness connections(direction: $direction, type: $type) {
    direction entry { id } edge { src dst type weight provenance metadata } } }
}`;

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

let counter = 0;
async function capture(ws: string, kind: Kind = 'SEMANTIC'): Promise<string> {
  counter += 1;
  return captureId(srv, { content: `${kind} entry ${counter}`, kind }, { workspace: ws });
}

const link = (ws: string, input: Record<string, unknown>) => srv.gql(LINK, { input }, { workspace: ws });
const linkOk = async (ws: string, input: Record<string, unknown>) =>
  (await srv.gqlOk(LINK, { input }, { workspace: ws })).link.edge;
const connections = async (ws: string, id: string, direction?: string, type?: string) =>
  (await srv.gqlOk(CONNECTIONS, { id, direction, type }, { workspace: ws })).entry;

describe('kind gates', () => {
  it('every edge type accepts exactly the kinds CONTRACT §5 allows; a rejection is EDGE_KIND_MISMATCH and writes nothing', async () => {
    const ws = freshWorkspace('gate');
    const byKind = new Map<Kind, [string, string]>();
    for (const kind of KINDS) byKind.set(kind, [await capture(ws, kind), await capture(ws, kind)]);

    const cases = EDGE_TYPES.flatMap((type) =>
      KINDS.flatMap((s) => KINDS.map((d) => ({ type, s, d, allowed: gateAllows(type, s, d) }))),
    );
    const rejected = cases.filter((c) => !c.allowed);
    const before = await dumpWorkspace(srv.dbPath(ws));
    await Promise.all(
      rejected.map(async ({ type, s, d }) => {
        const res = await link(ws, { src: byKind.get(s)![0], dst: byKind.get(d)![1], type });
        expect(res.data, `${type} ${s}→${d}`).toEqual({ link: null });
        expect(res.errors?.[0]?.extensions?.code, `${type} ${s}→${d}`).toBe('EDGE_KIND_MISMATCH');
      }),
    );
    // DECIDED 5 × 6 source kinds, FOLLOWS all but EPISODIC→EPISODIC, ABOUT_PERSON / PART_OF_PROJECT 6 × 5,
    // DOCUMENT_OF 5 × 6.
    expect(rejected).toHaveLength(30 + 35 + 30 + 30 + 30);
    expect(await dumpWorkspace(srv.dbPath(ws))).toEqual(before);

    const accepted = cases.filter((c) => c.allowed);
    expect(accepted).toHaveLength(8 * 36 - 155);
    await Promise.all(
      accepted.map(async ({ type, s, d }) => {
        const res = await link(ws, { src: byKind.get(s)![0], dst: byKind.get(d)![1], type });
        expect(res.errors, `${type} ${s}→${d}`).toBeUndefined();
        expect(res.data?.link.edge.type).toBe(type);
      }),
    );
    const stats = await srv.gqlOk('{ stats { edges edgesByType { key count } } }', {}, { workspace: ws });
    expect(stats.stats.edges).toBe(accepted.length);
    const byType = Object.fromEntries(
      stats.stats.edgesByType.map((c: { key: string; count: number }) => [c.key, c.count]),
    );
    expect(byType).toEqual({
      RELATES_TO: 36,
      SUPERSEDES: 36,
      CAUSED_BY: 36,
      DECIDED: 6,
      FOLLOWS: 1,
      ABOUT_PERSON: 6,
      PART_OF_PROJECT: 6,
      DOCUMENT_OF: 6,
    });
  });

  it('link with an unknown endpoint is NOT_FOUND', async () => {
    const ws = freshWorkspace('gate');
    const a = await capture(ws);
    for (const input of [
      { src: a, dst: 'missing', type: 'RELATES_TO' },
      { src: 'missing', dst: a, type: 'CAUSED_BY' },
    ]) {
      const res = await link(ws, input);
      expect(res.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    }
    expect((await dumpWorkspace(srv.dbPath(ws))).edges).toEqual([]);
  });
});

describe('RELATES_TO is symmetric', () => {
  it('link(a,b) then link(b,a) is one edge with src < dst, BOTH from either side', async () => {
    const ws = freshWorkspace('sym');
    const x = await capture(ws);
    const y = await capture(ws);
    const [lo, hi] = x < y ? [x, y] : [y, x];
    const first = await linkOk(ws, { src: hi, dst: lo, type: 'RELATES_TO', weight: 0.5 });
    expect([first.src, first.dst]).toEqual([lo, hi]);
    expect([first.source.id, first.target.id]).toEqual([lo, hi]);
    const second = await linkOk(ws, { src: lo, dst: hi, type: 'RELATES_TO', weight: 0.25 });
    expect([second.src, second.dst, second.weight]).toEqual([lo, hi, 0.5]);

    const dump = await dumpWorkspace(srv.dbPath(ws));
    expect(dump.edges).toHaveLength(1);
    expect(dump.edges[0]).toMatchObject({ src: lo, dst: hi, type: 'RELATES_TO' });

    for (const [me, other] of [
      [lo, hi],
      [hi, lo],
    ] as const) {
      const c = await connections(ws, me);
      expect(c.connections).toHaveLength(1);
      expect(c.connections[0]).toMatchObject({ direction: 'BOTH', entry: { id: other }, edge: { src: lo, dst: hi } });
    }
  });

  it('re-linking keeps the max weight, the stronger provenance and merges metadata keys', async () => {
    const ws = freshWorkspace('sym');
    const a = await capture(ws);
    const b = await capture(ws);
    await linkOk(ws, { src: a, dst: b, type: 'RELATES_TO', weight: 0.4, provenance: 'INFERRED', metadata: { x: 1 } });
    let e = await linkOk(ws, {
      src: b,
      dst: a,
      type: 'RELATES_TO',
      weight: 0.3,
      provenance: 'SYSTEM',
      metadata: { y: 'two' },
    });
    expect(e).toMatchObject({ weight: 0.4, provenance: 'INFERRED', metadata: { x: 1, y: 'two' } });
    e = await linkOk(ws, { src: a, dst: b, type: 'RELATES_TO', weight: 0.9, metadata: { x: 3 } });
    expect(e).toMatchObject({ weight: 0.9, provenance: 'EXPLICIT', metadata: { x: 3, y: 'two' } });
    e = await linkOk(ws, { src: b, dst: a, type: 'RELATES_TO', weight: 0.1, provenance: 'INFERRED' });
    expect(e).toMatchObject({ weight: 0.9, provenance: 'EXPLICIT', metadata: { x: 3, y: 'two' } });

    // The same rules for a directed type; SYSTEM never overrides INFERRED.
    await linkOk(ws, { src: a, dst: b, type: 'CAUSED_BY', weight: 0.2, provenance: 'INFERRED' });
    e = await linkOk(ws, {
      src: a,
      dst: b,
      type: 'CAUSED_BY',
      weight: 0.6,
      provenance: 'SYSTEM',
      metadata: { k: true },
    });
    expect(e).toMatchObject({ src: a, dst: b, weight: 0.6, provenance: 'INFERRED', metadata: { k: true } });

    const dump = await dumpWorkspace(srv.dbPath(ws));
    expect(dump.edges).toHaveLength(2);
    const events = await srv.gqlOk('{ eventLog { type } }', {}, { workspace: ws });
    expect(events.eventLog.filter((x: { type: string }) => x.type === 'LINKED')).toHaveLength(6);
  });

  it('unlink works in either order for RELATES_TO; a missing edge has no removed id', async () => {
    const ws = freshWorkspace('sym');
    const a = await capture(ws);
    const b = await capture(ws);
    const unlink = async (src: string, dst: string, type: string) =>
      (await srv.gqlOk(UNLINK, { src, dst, type }, { workspace: ws })).unlink.removedEdgeId !== null;

    await linkOk(ws, { src: a, dst: b, type: 'RELATES_TO' });
    expect(await unlink(b, a, 'RELATES_TO')).toBe(true);
    expect(await unlink(a, b, 'RELATES_TO')).toBe(false);
    await linkOk(ws, { src: b, dst: a, type: 'RELATES_TO' });
    expect(await unlink(b, a, 'RELATES_TO')).toBe(true);
    expect((await dumpWorkspace(srv.dbPath(ws))).edges).toEqual([]);

    // Directed edges are not symmetric.
    await linkOk(ws, { src: a, dst: b, type: 'CAUSED_BY' });
    expect(await unlink(b, a, 'CAUSED_BY')).toBe(false);
    expect(await unlink(a, b, 'RELATES_TO')).toBe(false);
    expect((await dumpWorkspace(srv.dbPath(ws))).edges).toHaveLength(1);
    expect(await unlink(a, b, 'CAUSED_BY')).toBe(true);

    const events = await srv.gqlOk('{ eventLog { type } }', {}, { workspace: ws });
    expect(events.eventLog.map((x: { type: string }) => x.type)).toEqual([
      'CAPTURED',
      'CAPTURED',
      'LINKED',
      'UNLINKED',
      'LINKED',
      'UNLINKED',
      'LINKED',
      'UNLINKED',
    ]);
  });
});

describe('SUPERSEDES and directions', () => {
  it('a SUPERSEDES link marks its target SUPERSEDED', async () => {
    const ws = freshWorkspace('dir');
    const newer = await capture(ws);
    const older = await capture(ws);
    await linkOk(ws, { src: newer, dst: older, type: 'SUPERSEDES', provenance: 'EXPLICIT' });
    expect(await connections(ws, older)).toMatchObject({ status: 'SUPERSEDED', freshness: 'SUPERSEDED' });
    expect(await connections(ws, newer)).toMatchObject({ status: 'ACTIVE', freshness: 'CURRENT' });
  });

  it('a SUPERSEDES edge that would close a cycle of any length is SUPERSEDES_CYCLE and writes nothing', async () => {
    const ws = freshWorkspace('ring');
    const [a, b, c, d, e] = [
      await capture(ws),
      await capture(ws),
      await capture(ws),
      await capture(ws),
      await capture(ws),
    ];
    await linkOk(ws, { src: a, dst: b, type: 'SUPERSEDES' });
    await linkOk(ws, { src: b, dst: c, type: 'SUPERSEDES' });
    const before = await dumpWorkspace(srv.dbPath(ws));
    const ring = await link(ws, { src: c, dst: a, type: 'SUPERSEDES' });
    expect(ring.data).toEqual({ link: null });
    expect(ring.errors?.[0]?.extensions).toMatchObject({ code: 'SUPERSEDES_CYCLE', field: 'dst' });
    expect(ring.errors?.[0]?.message).toMatch(new RegExp(`${a} already supersedes ${c}, directly or through a chain`));
    expect(await dumpWorkspace(srv.dbPath(ws))).toEqual(before);

    // Five long, closed from the far end; another type between the same entries is no supersession.
    await linkOk(ws, { src: c, dst: d, type: 'SUPERSEDES' });
    await linkOk(ws, { src: d, dst: e, type: 'SUPERSEDES' });
    expect((await link(ws, { src: e, dst: a, type: 'SUPERSEDES' })).errors?.[0]?.extensions?.code).toBe(
      'SUPERSEDES_CYCLE',
    );
    await linkOk(ws, { src: e, dst: a, type: 'CAUSED_BY' });
    // A second successor and a shortcut down the chain close nothing.
    await linkOk(ws, { src: a, dst: c, type: 'SUPERSEDES' });
    await linkOk(ws, { src: a, dst: e, type: 'SUPERSEDES' });
    // With the chain cut, the edge that closed it is no cycle any more.
    await srv.gqlOk(UNLINK, { src: b, dst: c, type: 'SUPERSEDES' }, { workspace: ws });
    await srv.gqlOk(UNLINK, { src: a, dst: c, type: 'SUPERSEDES' }, { workspace: ws });
    await linkOk(ws, { src: c, dst: a, type: 'SUPERSEDES' });
    expect((await link(ws, { src: e, dst: c, type: 'SUPERSEDES' })).errors?.[0]?.extensions?.code).toBe(
      'SUPERSEDES_CYCLE',
    );
  });

  it('links sent at once that together would close a ring: the last one written is refused', async () => {
    for (let round = 0; round < 3; round++) {
      const ws = freshWorkspace('race');
      const ids = [await capture(ws), await capture(ws), await capture(ws)];
      const results = await Promise.all(
        ids.map((src, i) => link(ws, { src, dst: ids[(i + 1) % 3], type: 'SUPERSEDES' })),
      );
      const codes = results.map((r) => r.errors?.[0]?.extensions?.code ?? 'OK');
      expect(
        codes.filter((c) => c === 'OK'),
        codes.join(),
      ).toHaveLength(2);
      expect(
        codes.filter((c) => c === 'SUPERSEDES_CYCLE'),
        codes.join(),
      ).toHaveLength(1);
      expect((await dumpWorkspace(srv.dbPath(ws))).edges).toHaveLength(2);
    }
  });

  it('connections(direction: OUT | IN) filters directed edges and always includes RELATES_TO', async () => {
    const ws = freshWorkspace('dir');
    const me = await capture(ws);
    const outTo = await capture(ws);
    const inFrom = await capture(ws);
    const sym = await capture(ws);
    await linkOk(ws, { src: me, dst: outTo, type: 'CAUSED_BY', weight: 0.9 });
    await linkOk(ws, { src: inFrom, dst: me, type: 'CAUSED_BY', weight: 0.8 });
    await linkOk(ws, { src: sym, dst: me, type: 'RELATES_TO', weight: 0.7 });

    const view = async (direction?: string, type?: string) =>
      (await connections(ws, me, direction, type)).connections.map(
        (c: { direction: string; entry: { id: string } }) => [c.direction, c.entry.id],
      );
    // Heaviest first.
    expect(await view()).toEqual([
      ['OUT', outTo],
      ['IN', inFrom],
      ['BOTH', sym],
    ]);
    expect(await view('BOTH')).toEqual(await view());
    expect(await view('OUT')).toEqual([
      ['OUT', outTo],
      ['BOTH', sym],
    ]);
    expect(await view('IN')).toEqual([
      ['IN', inFrom],
      ['BOTH', sym],
    ]);
    expect(await view('IN', 'CAUSED_BY')).toEqual([['IN', inFrom]]);
    expect(await view('OUT', 'RELATES_TO')).toEqual([['BOTH', sym]]);

    const top = await srv.gqlOk(
      'query ($id: ID!) { connections(id: $id) { direction entry { id } } }',
      { id: me },
      { workspace: ws },
    );
    expect(top.connections).toHaveLength(3);
  });
});
