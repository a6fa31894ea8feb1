import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureId } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

const RECALL = `query($q: String!, $count: Boolean) {
  recall(query: $q, topK: 5, countRecall: $count) { hits { entry { id } } }
}`;

async function recallCounts(ws: string, ids: string[]): Promise<number[]> {
  // Recall's bookkeeping is written shortly after its answer: let it land first.
  await (await srv.server.registry.get(ws)).bookkeeper.flush();
  const data = await srv.gqlOk<{ nodes: { recallCount: number }[] }>(
    'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Entry { recallCount } } }',
    { ids },
    { workspace: ws },
  );
  return data.nodes.map((n) => n.recallCount);
}

describe('recall counts', () => {
  it('counts each hit once per recall by default, and not at all with countRecall: false', async () => {
    const ws = freshWorkspace('count');
    const ids = [
      await captureId(srv, { content: 'The lighthouse keeper logs every passing ship.' }, { workspace: ws }),
      await captureId(srv, { content: 'A lighthouse lamp turns twice a minute.' }, { workspace: ws }),
      await captureId(srv, { content: 'Unrelated: the bakery opens at six.' }, { workspace: ws }),
    ];

    for (let i = 0; i < 3; i++) {
      const data = await srv.gqlOk(RECALL, { q: 'lighthouse', count: false }, { workspace: ws });
      expect(data.recall.hits).toHaveLength(2);
    }
    expect(await recallCounts(ws, ids)).toEqual([0, 0, 0]);

    await srv.gqlOk(RECALL, { q: 'lighthouse' }, { workspace: ws });
    await srv.gqlOk(RECALL, { q: 'lighthouse', count: true }, { workspace: ws });
    expect(await recallCounts(ws, ids)).toEqual([2, 2, 0]);
  });
});
