import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

const CAPTURE = `mutation ($input: CaptureInput!) { capture(input: $input) { entry { id } } }`;

describe('filters by importance', () => {
  let srv: TestServer;
  const ws = freshWorkspace('importance');
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    srv = await startTestServer();
    for (const [name, importance] of [
      ['low', 0.1],
      ['mid', 0.5],
      ['high', 0.95],
    ] as const) {
      const data = await srv.gqlOk(
        CAPTURE,
        { input: { content: `Rollout note ${name}: the canary runs first.`, importance } },
        { workspace: ws },
      );
      ids[name] = data.capture.entry.id;
    }
  });
  afterAll(() => srv?.stop());

  it('in the entries listing, bounds included', async () => {
    const list = async (filter: Record<string, unknown>) =>
      (
        await srv.gqlOk(
          'query ($f: EntryFilter) { entries(first: 10, filter: $f) { totalCount edges { node { id } } } }',
          { f: filter },
          { workspace: ws },
        )
      ).entries;
    const atLeastHalf = await list({ minImportance: 0.5 });
    expect(atLeastHalf.totalCount).toBe(2);
    expect(new Set(atLeastHalf.edges.map((e: { node: { id: string } }) => e.node.id))).toEqual(
      new Set([ids.mid, ids.high]),
    );
    expect((await list({ minImportance: 0.2, maxImportance: 0.5 })).edges).toEqual([{ node: { id: ids.mid } }]);
  });

  it('in recall', async () => {
    const data = await srv.gqlOk(
      '{ recall(query: "rollout canary", filter: { maxImportance: 0.4 }) { hits { entry { id } } } }',
      {},
      { workspace: ws },
    );
    expect(data.recall.hits).toEqual([{ entry: { id: ids.low } }]);
  });

  it('refuses a bound outside 0 to 1 with BAD_USER_INPUT', async () => {
    const res = await srv.gql(
      '{ entries(first: 1, filter: { minImportance: 2 }) { totalCount } }',
      {},
      { workspace: ws },
    );
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toBe('minImportance must be between 0 and 1');
  });
});
