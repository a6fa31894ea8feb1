import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE, captureId, LINK } from '../helpers/operations.ts';
import { freshWorkspace, type GqlResponse, startTestServer, type TestServer } from '../helpers/server.ts';
import { checkFtsIntegrity, dumpWorkspace } from '../helpers/workspace-db.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

function expectClean(responses: GqlResponse[]) {
  for (const r of responses) {
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.errors ?? [])).not.toMatch(/busy|locked/i);
    expect(r.errors).toBeUndefined();
  }
}

describe('concurrent writes', () => {
  it('50 captures and 50 links from parallel requests all commit, with a gap-free event log', async () => {
    const ws = freshWorkspace('conc');
    const seeds: string[] = [];
    for (let i = 0; i < 11; i++) {
      seeds.push(await captureId(srv, { content: `seed ${i}` }, { workspace: ws }));
    }
    const pairs: [string, string][] = [];
    for (let i = 0; i < seeds.length && pairs.length < 50; i++) {
      for (let j = i + 1; j < seeds.length && pairs.length < 50; j++) pairs.push([seeds[i]!, seeds[j]!]);
    }
    expect(pairs).toHaveLength(50);

    const captures = Array.from({ length: 50 }, (_, i) =>
      srv.gql(CAPTURE, { input: { content: `concurrent capture ${i}`, tags: [`t${i % 5}`] } }, { workspace: ws }),
    );
    const links = pairs.map(([src, dst], i) =>
      srv.gql(LINK, { input: { src, dst, type: i % 2 ? 'RELATES_TO' : 'CAUSED_BY', weight: 0.5 } }, { workspace: ws }),
    );
    // Reads (and the recall bookkeeping writes they cause) run alongside.
    const reads = Array.from({ length: 10 }, () =>
      srv.gql('{ recall(query: "seed capture") { hits { entry { id } } } stats { entries } }', {}, { workspace: ws }),
    );
    const all = await Promise.all([...captures, ...links, ...reads]);
    expectClean(all);
    expect(all.slice(0, 50).map((r) => r.data?.capture.outcome)).toEqual(Array(50).fill('STORED'));

    const log = await srv.gqlOk('{ eventLog(limit: 1000) { seq type } }', {}, { workspace: ws });
    const seqs = log.eventLog.map((e: { seq: number }) => e.seq);
    expect(seqs).toEqual(Array.from({ length: 111 }, (_, i) => i + 1));
    const types = log.eventLog.map((e: { type: string }) => e.type);
    expect(types.filter((t: string) => t === 'CAPTURED')).toHaveLength(61);
    expect(types.filter((t: string) => t === 'LINKED')).toHaveLength(50);

    const dump = await dumpWorkspace(srv.dbPath(ws));
    expect(dump.entries).toHaveLength(61);
    expect(dump.edges).toHaveLength(50);
    expect(dump.ftsRows).toBe(61);
    await checkFtsIntegrity(srv.dbPath(ws));
  });

  it('parallel writes to several workspaces each keep their own gap-free sequence', async () => {
    const spaces = [freshWorkspace('conc'), freshWorkspace('conc'), freshWorkspace('conc')];
    const all = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        srv.gql(CAPTURE, { input: { content: `entry ${i}` } }, { workspace: spaces[i % 3] }),
      ),
    );
    expectClean(all);
    for (const ws of spaces) {
      const log = await srv.gqlOk('{ eventLog { seq } }', {}, { workspace: ws });
      expect(log.eventLog.map((e: { seq: number }) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    }
  });

  it('the same content captured 20 times at once is stored once and blocked 19 times', async () => {
    const ws = freshWorkspace('conc');
    const all = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        srv.gql(CAPTURE, { input: { content: i % 2 ? 'Racing Writes' : 'racing   writes' } }, { workspace: ws }),
      ),
    );
    expectClean(all);
    const outcomes = all.map((r) => r.data?.capture.outcome).sort();
    expect(outcomes).toEqual([...Array(19).fill('BLOCKED'), 'STORED']);
    expect(new Set(all.map((r) => r.data?.capture.entry.id)).size).toBe(1);
    const log = await srv.gqlOk('{ eventLog { seq outcome } }', {}, { workspace: ws });
    expect(log.eventLog).toEqual([{ seq: 1, outcome: 'STORED' }]);
  });
});
