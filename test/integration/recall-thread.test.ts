import Database from 'libsql';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeTaskDb } from '../../src/db/read-task.ts';
import { runTask } from '../../src/retrieval/read-tasks.ts';
import { type EmbeddingsServer, httpEmbeddingsConfig, startEmbeddingsServer } from '../helpers/embeddings-server.ts';
import { captureId, linkEdge } from '../helpers/operations.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * With reader threads, recall runs on one of them whole (its reads and its ranking), and only
 * its answer comes back to the thread that serves every request; without, it runs there.
 * Either way the answer is the same.
 */

const ASOF = '2026-06-01T00:00:00.000Z';
const RECALL_EXPLAINED = `query ($q: String!, $filter: RecallFilter, $full: Boolean) {
  recall(query: $q, topK: 6, hops: 2, asOf: "${ASOF}", filter: $filter, full: $full, countRecall: false) {
    queryUsed candidates usedChars budgetChars timeRange { phrase } omitted { reason }
    hits { rank score snippet truncated arms hop via { type }
      entry { content kind tags freshness }
      explain { keywordRank bm25 graphScore rrf match coverage decay recallBoost importance tagOverlap final } }
  }
}`;

const QUESTIONS: { q: string; filter?: Record<string, unknown>; full?: boolean }[] = [
  { q: 'why did the deploy fail' },
  { q: 'staging database migration', filter: { tags: ['infra'] } },
  { q: 'what happened last week with the deploy' },
  { q: 'rollback', full: true },
  { q: 'nothing matches zyzzyva' },
];

const servers: TestServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** The same small workspace on a server with `readers` reader threads; the answers to QUESTIONS. */
async function answers(readers: number, opts: { embeddings?: EmbeddingsServer; query?: string } = {}) {
  const config = {
    readerThreads: readers,
    ...(opts.embeddings ? httpEmbeddingsConfig(opts.embeddings, 'thread-test') : {}),
  };
  const t = await startTestServer({ config });
  servers.push(t);
  const ws = { workspace: 'threads' };
  const long = `The rollback plan for the deploy. ${'Step by step we restore the previous release. '.repeat(400)}`;
  const ids = [
    await captureId(
      t,
      { content: 'The deploy failed on Friday: the staging database migration timed out', tags: ['infra'] },
      ws,
    ),
    await captureId(
      t,
      { content: 'We moved the staging database to a larger volume after the migration', tags: ['infra'] },
      ws,
    ),
    await captureId(t, { content: 'Deploys run from the main branch every afternoon', kind: 'PROCEDURAL' }, ws),
    await captureId(t, { content: long, kind: 'PROCEDURAL' }, ws),
    await captureId(t, { content: 'Lunch is at noon on Fridays' }, ws),
  ];
  await linkEdge(t, { src: ids[1], dst: ids[0], type: 'CAUSED_BY' }, ws);
  await linkEdge(t, { src: ids[3], dst: ids[2], type: 'RELATES_TO' }, ws);
  await t.server.semantic()?.settled();
  t.resetQueries();
  const out = [];
  for (const { q, filter, full } of QUESTIONS) {
    out.push((await t.gqlOk(opts.query ?? RECALL_EXPLAINED, { q, filter, full }, ws)).recall);
  }
  return { out, queries: [...t.queries] };
}

describe('recall on a reader thread', () => {
  it('answers exactly as recall on the request thread does, and runs no statement there', async () => {
    const pooled = await answers(2);
    const here = await answers(0);
    expect(pooled.out).toEqual(here.out);
    // The answers are real ones: hits, a time range, a whole text where asked.
    expect(pooled.out[0].hits.length).toBeGreaterThan(1);
    expect(pooled.out[2].timeRange).toEqual({ phrase: 'last week' });
    expect(pooled.out[3].hits[0].snippet.length).toBeGreaterThan(10_000);
    // On the request thread, recall's statements pass its query listener; on a reader thread none do.
    const ftsHere = here.queries.filter((q) => /entries_fts|impact_/.test(q));
    expect(ftsHere.length).toBeGreaterThan(0);
    expect(pooled.queries.filter((q) => /entries_fts|impact_/.test(q))).toEqual([]);
  });

  describe('with the vector arm', () => {
    // Its search runs on the request thread, where the matrix is; the rest of recall on a
    // reader thread, with what the search found.
    let endpoint: EmbeddingsServer;
    beforeAll(async () => {
      endpoint = await startEmbeddingsServer();
    }, 300_000);
    afterAll(() => endpoint?.close());

    it('answers exactly as on the request thread, cosines and all, and ranks nothing there', async () => {
      const query = RECALL_EXPLAINED.replace(
        'queryUsed',
        'queryUsed vectorArm { model searched withoutVector skipped }',
      ).replace('tagOverlap final', 'tagOverlap vectorRank cosine final');
      const pooled = await answers(2, { embeddings: endpoint, query });
      const here = await answers(0, { embeddings: endpoint, query });
      expect(pooled.out).toEqual(here.out);
      expect(pooled.out[0].vectorArm).toEqual({ model: 'thread-test', searched: 5, withoutVector: 0, skipped: null });
      // Cosines were given: the candidates' vectors were read on the thread.
      const cosines = pooled.out.flatMap((o) =>
        o.hits.map((h: { explain: { cosine: number | null } }) => h.explain.cosine),
      );
      expect(cosines.filter((c) => typeof c === 'number').length).toBeGreaterThan(3);
      expect(here.queries.filter((q) => /entries_fts|impact_/.test(q)).length).toBeGreaterThan(0);
      expect(pooled.queries.filter((q) => /entries_fts|impact_/.test(q))).toEqual([]);
    });
  });

  it('runs each recall through on the thread, in one turn of its loop, where the request thread takes turns', async () => {
    const t = await startTestServer({ config: { readerThreads: 0 } });
    servers.push(t);
    const ws = { workspace: 'turns' };
    for (const content of ['The deploy failed on Friday', 'The deploy was rolled back', 'Deploys run daily']) {
      await captureId(t, { content }, ws);
    }
    // The task module as a reader thread runs it, on a read-only connection to the file.
    const db = new Database(t.dbPath('turns'), { timeout: 0 });
    db.exec('PRAGMA query_only = ON');
    const connection = { key: 77_001, path: t.dbPath('turns'), timeout: 1_000, db };
    try {
      const recall = { input: { query: 'deploy friday', topK: 3 }, now: new Date(), vector: null };
      let turned = false;
      setImmediate(() => {
        turned = true;
      });
      const there = (await runTask('recall', connection, recall)) as { hits: { entry: { content: string } }[] };
      expect(turned).toBe(false);
      expect(there.hits[0]!.entry.content).toBe('The deploy failed on Friday');
      // The request thread's recall gives the loop its turns: the same answer, after other callbacks ran.
      const here = await t.gqlOk(
        '{ recall(query: "deploy friday", topK: 3, countRecall: false) { hits { entry { content } } } }',
        {},
        ws,
      );
      expect(here.recall.hits.map((h: { entry: { content: string } }) => h.entry.content)).toEqual(
        there.hits.map((h) => h.entry.content),
      );
    } finally {
      closeTaskDb(connection.key);
      db.close();
    }
  });

  it('keeps the codes of errors found on the thread', async () => {
    const t = await startTestServer({ config: { readerThreads: 2 } });
    servers.push(t);
    await captureId(t, { content: 'something to recall' }, { workspace: 'codes' });
    const tags = Array.from({ length: 33 }, (_, i) => `t${i}`);
    const res = await t.gql(RECALL_EXPLAINED, { q: 'something', filter: { tags } }, { workspace: 'codes' });
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    const fine = await t.gqlOk(RECALL_EXPLAINED, { q: 'something' }, { workspace: 'codes' });
    expect(fine.recall.hits).toHaveLength(1);
  });
});
