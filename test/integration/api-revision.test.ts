import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureId, FORGET } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';
import { dumpWorkspace } from '../helpers/workspace-db.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

const errorsAt = (res: {
  errors?: readonly { path?: readonly (string | number)[]; extensions?: { code?: unknown } }[];
}) => (res.errors ?? []).map((e) => [e.path, e.extensions?.code]);

describe('a failing root field answers null with its own error', () => {
  it('connections and graphView for an unknown or foreign id are null with NOT_FOUND; siblings keep their data', async () => {
    const ws = freshWorkspace('rev-null');
    const other = freshWorkspace('rev-null-other');
    const own = await captureId(srv, { content: 'Kept beside the failures' }, { workspace: ws });
    const foreign = await captureId(srv, { content: 'Lives in another workspace' }, { workspace: other });
    for (const id of ['no-such-entry', foreign]) {
      const res = await srv.gql(
        `query ($id: ID!) {
          recent(n: 5) { id }
          connections(id: $id) { cursor }
          graphView(seedIds: [$id]) { truncated }
          entry(id: $id) { id }
        }`,
        { id },
        { workspace: ws },
      );
      expect(res.data).toEqual({ recent: [{ id: own }], connections: null, graphView: null, entry: null });
      expect(errorsAt(res).sort()).toEqual([
        [['connections'], 'NOT_FOUND'],
        [['graphView'], 'NOT_FOUND'],
      ]);
    }
  });

  it('each mutation of a document reports its own result or error', async () => {
    const ws = freshWorkspace('rev-each');
    const id = await captureId(srv, { content: 'Status goes canonical' }, { workspace: ws });
    const res = await srv.gql(
      `mutation ($id: ID!) {
        missing: append(input: { id: "no-such-entry", addition: "more" }) { entry { id } }
        status: setStatus(input: { id: $id, status: CANONICAL }) { entry { id status } }
        again: update(input: { id: "no-such-entry", content: "x" }) { entry { id } }
      }`,
      { id },
      { workspace: ws },
    );
    expect(res.data).toEqual({ missing: null, status: { entry: { id, status: 'CANONICAL' } }, again: null });
    expect(errorsAt(res)).toEqual([
      [['missing'], 'NOT_FOUND'],
      [['again'], 'NOT_FOUND'],
    ]);
    expect((await dumpWorkspace(srv.dbPath(ws))).entries.map((e) => e.status)).toEqual(['CANONICAL']);
  });
});

describe('mutation payloads', () => {
  it('link answers the edge and both entries as the write left them; unlink the removed edge id', async () => {
    const ws = freshWorkspace('rev-link');
    const opts = { workspace: ws };
    const a = await captureId(srv, { content: 'Edge source' }, opts);
    const b = await captureId(srv, { content: 'Edge target' }, opts);
    // The entries' connections are read before the link in the same document: the payload must not answer that stale read.
    const linked = await srv.gqlOk(
      `mutation ($a: ID!, $b: ID!) {
        before: setStatus(input: { id: $a, status: ACTIVE }) { entry { connections { edge { id } } } }
        link(input: { src: $a, dst: $b, type: CAUSED_BY, weight: 0.4 }) {
          edge { id src dst type weight }
          source { id connections { edge { id } entry { id } } }
          target { id connections { edge { id } entry { id } } }
        }
      }`,
      { a, b },
      opts,
    );
    expect(linked.before.entry.connections).toEqual([]);
    const edge = linked.link.edge;
    expect(edge).toMatchObject({ src: a, dst: b, type: 'CAUSED_BY', weight: 0.4 });
    expect(linked.link.source).toEqual({ id: a, connections: [{ edge: { id: edge.id }, entry: { id: b } }] });
    expect(linked.link.target).toEqual({ id: b, connections: [{ edge: { id: edge.id }, entry: { id: a } }] });

    const UNLINK = `mutation ($a: ID!, $b: ID!) {
      unlink(input: { src: $a, dst: $b, type: CAUSED_BY }) {
        removedEdgeId source { id connections { cursor } } target { id connections { cursor } }
      }
    }`;
    const removed = (await srv.gqlOk(UNLINK, { a, b }, opts)).unlink;
    expect(removed).toEqual({
      removedEdgeId: edge.id,
      source: { id: a, connections: [] },
      target: { id: b, connections: [] },
    });
    expect((await srv.gqlOk(UNLINK, { a, b }, opts)).unlink.removedEdgeId).toBeNull();
    expect((await dumpWorkspace(srv.dbPath(ws))).edges).toEqual([]);
  });

  it('forget answers forgottenId; Entry.connections are Neighbor objects', async () => {
    const ws = freshWorkspace('rev-forget');
    const opts = { workspace: ws };
    const a = await captureId(srv, { content: 'Neighbor one' }, opts);
    const b = await captureId(srv, { content: 'Neighbor two' }, opts);
    await srv.gqlOk(
      'mutation ($input: LinkInput!) { link(input: $input) { edge { id } } }',
      {
        input: { src: a, dst: b, type: 'RELATES_TO' },
      },
      opts,
    );
    const read = await srv.gqlOk('query ($a: ID!) { entry(id: $a) { connections { __typename } } }', { a }, opts);
    expect(read.entry.connections).toEqual([{ __typename: 'Neighbor' }]);
    expect((await srv.gqlOk(FORGET, { id: a }, opts)).forget).toEqual({ forgottenId: a, forgotten: true });
    expect((await dumpWorkspace(srv.dbPath(ws))).entries.map((e) => e.id)).toEqual([b]);
  });

  it('runStalenessPass takes an optional input and answers its report; a bad limit refuses the document', async () => {
    const ws = freshWorkspace('rev-pass');
    const opts = { workspace: ws };
    await captureId(srv, { content: 'A default-volatility note' }, opts);
    const pass = await srv.gqlOk('mutation { runStalenessPass { report { scanned reclassified } } }', {}, opts);
    expect(pass.runStalenessPass.report).toEqual({ scanned: 1, reclassified: 1 });
    const bad = await srv.gql(
      `mutation { c: capture(input: { content: "not written" }) { outcome } runStalenessPass(input: { limit: 0 }) { report { scanned } } }`,
      {},
      opts,
    );
    expect(bad.data).toBeNull();
    expect(errorsAt(bad)).toEqual([[['runStalenessPass'], 'BAD_USER_INPUT']]);
    expect((await dumpWorkspace(srv.dbPath(ws))).entries).toHaveLength(1);
  });
});
