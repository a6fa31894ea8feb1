import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPEND, captureId, FORGET, UNLINK } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

/** LINK that also answers the edge's global id and weight. */
const LINK_ID = 'mutation ($input: LinkInput!) { link(input: $input) { edge { id src dst type weight } } }';

const NODE = `query ($id: ID!) {
  node(id: $id) {
    __typename
    id
    ... on Entry { content }
    ... on Edge { src dst type weight }
    ... on Revision { content op }
  }
}`;

const NODES = `query ($ids: [ID!]!) {
  nodes(ids: $ids) {
    __typename
    id
    ... on Entry { content }
    ... on Edge { type weight source { id } }
    ... on Revision { content }
  }
}`;

const REVISIONS = 'query ($id: ID!) { entry(id: $id) { revisions { id content } } }';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

async function linkId(ws: string, input: Record<string, unknown>): Promise<string> {
  return (await srv.gqlOk(LINK_ID, { input }, { workspace: ws })).link.edge.id;
}

async function node(ws: string, id: string) {
  return (await srv.gqlOk(NODE, { id }, { workspace: ws })).node;
}

/** An entry with one revision (from an append), and its revision ids. */
async function revised(ws: string, content: string): Promise<{ id: string; revisionIds: string[] }> {
  const id = await captureId(srv, { content }, { workspace: ws });
  await srv.gqlOk(APPEND, { id, addition: 'and more' }, { workspace: ws });
  const data = await srv.gqlOk(REVISIONS, { id }, { workspace: ws });
  return { id, revisionIds: data.entry.revisions.map((r: { id: string }) => r.id) };
}

describe('node and nodes', () => {
  it('find an entry by its own id, an edge and a revision by theirs', async () => {
    const ws = freshWorkspace('node');
    const a = await captureId(srv, { content: 'node entry a' }, { workspace: ws });
    const { id: b, revisionIds } = await revised(ws, 'node entry b');
    const edgeId = await linkId(ws, { src: a, dst: b, type: 'CAUSED_BY', weight: 0.4 });

    expect(await node(ws, a)).toEqual({ __typename: 'Entry', id: a, content: 'node entry a' });
    expect(await node(ws, edgeId)).toEqual({
      __typename: 'Edge',
      id: edgeId,
      src: a,
      dst: b,
      type: 'CAUSED_BY',
      weight: 0.4,
    });
    expect(revisionIds).toHaveLength(1);
    expect(await node(ws, revisionIds[0]!)).toEqual({
      __typename: 'Revision',
      id: revisionIds[0],
      content: 'node entry b',
      op: 'APPEND',
    });
    // No id of one type is an id of another.
    expect(new Set([a, b, edgeId, revisionIds[0]]).size).toBe(4);
  });

  it('an edge keeps its id through re-linking, unlink and link again, and either order of RELATES_TO', async () => {
    const ws = freshWorkspace('node');
    const a = await captureId(srv, { content: 'stable edge a' }, { workspace: ws });
    const b = await captureId(srv, { content: 'stable edge b' }, { workspace: ws });
    const first = await linkId(ws, { src: a, dst: b, type: 'CAUSED_BY', weight: 0.3 });
    const relinked = await linkId(ws, { src: a, dst: b, type: 'CAUSED_BY', weight: 0.9, metadata: { k: 1 } });
    expect(relinked).toBe(first);
    expect((await node(ws, first)).weight).toBe(0.9);

    await srv.gqlOk(UNLINK, { src: a, dst: b, type: 'CAUSED_BY' }, { workspace: ws });
    expect(await node(ws, first)).toBeNull();
    expect(await linkId(ws, { src: a, dst: b, type: 'CAUSED_BY', weight: 0.5 })).toBe(first);
    expect((await node(ws, first)).weight).toBe(0.5);

    const ab = await linkId(ws, { src: a, dst: b, type: 'RELATES_TO' });
    const ba = await linkId(ws, { src: b, dst: a, type: 'RELATES_TO' });
    expect(ba).toBe(ab);
    expect(ab).not.toBe(first);
    expect((await node(ws, ab)).type).toBe('RELATES_TO');
  });

  it('ids of what forget removed resolve to null', async () => {
    const ws = freshWorkspace('node');
    const a = await captureId(srv, { content: 'forgotten soon' }, { workspace: ws });
    const { id: b, revisionIds } = await revised(ws, 'forgotten with revision');
    const edgeId = await linkId(ws, { src: a, dst: b, type: 'CAUSED_BY' });
    await srv.gqlOk(FORGET, { id: b }, { workspace: ws });
    const data = await srv.gqlOk(NODES, { ids: [a, b, edgeId, revisionIds[0]] }, { workspace: ws });
    expect(data.nodes.map((n: { id: string } | null) => n?.id ?? null)).toEqual([a, null, null, null]);
  });

  it('unknown, malformed and foreign ids are null, never an error', async () => {
    const ws = freshWorkspace('node');
    const other = freshWorkspace('node');
    const a = await captureId(srv, { content: 'home entry a' }, { workspace: ws });
    const { id: b, revisionIds } = await revised(ws, 'home entry b');
    const edgeId = await linkId(ws, { src: a, dst: b, type: 'CAUSED_BY' });
    await captureId(srv, { content: 'the other workspace exists' }, { workspace: other });

    const foreign = [a, b, edgeId, revisionIds[0]!];
    const malformed = [
      '',
      '!!!',
      'x'.repeat(5_000),
      b64('Edge:'),
      b64('Edge:[1,2,3]'),
      b64(`Edge:["${a}","${b}","NOT_A_TYPE"]`),
      b64(`Edge:["${a}","${b}","CAUSED_BY"`),
      `${edgeId}==`,
      b64(`Edge: ["${a}","${b}","CAUSED_BY"]`),
      b64('Revision:["x",-1]'),
      b64('Revision:["x",1.5]'),
      b64(`Revision:["${b}",999999]`),
      b64(`Edge:["${b}","${a}","CAUSED_BY"]`),
      '00000000-0000-7000-8000-000000000000',
    ];
    for (const id of malformed) {
      const res = await srv.gql(NODE, { id }, { workspace: ws });
      expect(res.errors, id).toBeUndefined();
      expect(res.data?.node, id).toBeNull();
    }
    const res = await srv.gql(NODES, { ids: foreign }, { workspace: other });
    expect(res.errors).toBeUndefined();
    expect(res.data?.nodes).toEqual([null, null, null, null]);
    // The same ids still resolve at home.
    const home = await srv.gqlOk(NODES, { ids: foreign }, { workspace: ws });
    expect(home.nodes.map((n: { __typename: string }) => n.__typename)).toEqual(['Entry', 'Entry', 'Edge', 'Revision']);
  });

  it('nodes keeps the order of its ids, with null where none, and refuses more than 100', async () => {
    const ws = freshWorkspace('node');
    const a = await captureId(srv, { content: 'ordered a' }, { workspace: ws });
    const b = await captureId(srv, { content: 'ordered b' }, { workspace: ws });
    const edgeId = await linkId(ws, { src: a, dst: b, type: 'CAUSED_BY' });
    const data = await srv.gqlOk(NODES, { ids: [b, 'nope', edgeId, a, b] }, { workspace: ws });
    expect(data.nodes).toEqual([
      { __typename: 'Entry', id: b, content: 'ordered b' },
      null,
      { __typename: 'Edge', id: edgeId, type: 'CAUSED_BY', weight: 1, source: { id: a } },
      { __typename: 'Entry', id: a, content: 'ordered a' },
      { __typename: 'Entry', id: b, content: 'ordered b' },
    ]);

    const hundred = Array.from({ length: 100 }, (_, i) => (i % 2 ? a : `missing-${i}`));
    expect((await srv.gqlOk(NODES, { ids: hundred }, { workspace: ws })).nodes).toHaveLength(100);
    const res = await srv.gql(NODES, { ids: [...hundred, a] }, { workspace: ws });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toMatch(/at most 100 ids/);
  });

  it('nodes of 50 ids costs one statement per type, as nodes of 5 does', async () => {
    const ws = freshWorkspace('node');
    const ids: string[] = [];
    for (let i = 0; i < 17; i += 1) {
      const { id, revisionIds } = await revised(ws, `batched entry ${i}`);
      ids.push(id, revisionIds[0]!);
    }
    for (let i = 0; i < 16; i += 1)
      ids.push(await linkId(ws, { src: ids[2 * i], dst: ids[2 * i + 2], type: 'CAUSED_BY' }));
    expect(ids).toHaveLength(50);

    const statementsFor = async (batch: string[]) => {
      await new Promise((r) => setTimeout(r, 100));
      srv.resetQueries();
      const data = await srv.gqlOk(
        'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }',
        { ids: batch },
        { workspace: ws },
      );
      expect(data.nodes.map((n: { id: string }) => n.id)).toEqual(batch);
      return [...srv.queries];
    };
    const small = await statementsFor([ids[0]!, ids[1]!, ids[40]!, ids[2]!, ids[3]!]);
    const large = await statementsFor(ids);
    // One read of entries, one of edges, one of revisions.
    expect(small).toHaveLength(3);
    expect(large).toHaveLength(3);
  });

  it('Stats and Brief name the caller’s workspace as their key', async () => {
    const ws = freshWorkspace('node');
    await captureId(srv, { content: 'stats key' }, { workspace: ws });
    const data = await srv.gqlOk(
      '{ stats { workspace entries } brief { workspace stats { workspace } } }',
      {},
      {
        workspace: ws,
      },
    );
    expect(data).toEqual({ stats: { workspace: ws, entries: 1 }, brief: { workspace: ws, stats: { workspace: ws } } });
    const fallback = await srv.gqlOk('{ stats { workspace } }');
    expect(fallback.stats.workspace).toBe('default');
  });
});
