import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client.ts';
import { checkImpactIndex } from '../../src/db/impact-index.ts';
import { searchKeywordByImpact } from '../../src/retrieval/impact.ts';
import { searchKeyword } from '../../src/retrieval/keyword.ts';
import { buildPrefilter, type PrefilterInput } from '../../src/retrieval/prefilter.ts';
import { buildMatchExpression } from '../../src/retrieval/query.ts';
import { runCli } from '../helpers/cli.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * A workspace that only ever grows by captures gets its impact lists from the server's
 * upkeep once words cross the threshold (here 40 entries, heads of 25 postings, looked at
 * every 100 ms), while captures keep coming; and the keyword arm through those lists ranks
 * exactly as FTS5's exhaustive ranking.
 */

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 4_294_967_296;
  };
}

const COMMON: [string, number][] = [
  ['alpha', 0.9],
  ['beta', 0.6],
  ['gamma', 0.3],
  ['delta', 0.15],
  ['running', 0.12],
  ['epsilon', 0.04],
];
const RARE = Array.from({ length: 40 }, (_, i) => `rare${String.fromCharCode(97 + (i % 26))}${Math.floor(i / 26)}q`);

function makeText(next: () => number, i: number): string {
  const words: string[] = [];
  for (const [w, share] of COMMON) {
    if (next() < share) for (let k = next() < 0.3 ? 3 : 1; k > 0; k--) words.push(w);
  }
  if (next() < 0.5) words.push(RARE[Math.floor(next() * RARE.length)]!);
  for (let k = Math.floor(next() * 12); k > 0; k--) words.push(`filler${Math.floor(next() * 200)}`);
  return `${words.join(' ')} note ${i}`;
}

const CAPTURE = 'mutation ($c: String!) { capture(input: { content: $c }) { outcome } }';

let server: TestServer;
const ws = freshWorkspace('upkeep');
const next = rng(11);
let captured = 0;

async function capture(count: number): Promise<void> {
  const texts = Array.from({ length: count }, () => makeText(next, captured++));
  const lanes = Array.from({ length: 6 }, async (_, lane) => {
    for (let i = lane; i < texts.length; i += 6) {
      const data = await server.gqlOk<{ capture: { outcome: string } }>(CAPTURE, { c: texts[i] }, { workspace: ws });
      expect(data.capture.outcome).toBe('STORED');
    }
  });
  await Promise.all(lanes);
}

const db = async (): Promise<Db> => (await server.server.registry.get(ws)).db;

async function listed(): Promise<string[]> {
  const rows = await (await db()).all<{ term: string }>(sql`SELECT term FROM impact_terms ORDER BY term`);
  return rows.map((r) => r.term);
}

async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
  // Generous: the upkeep runs every 100 ms; this only keeps a broken build from hanging.
  const deadline = Date.now() + 60_000;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  server = await startTestServer({ config: { impact: { minDocs: 40, headPostings: 25, upkeepMs: 100 } } });
});

afterAll(async () => {
  await server?.stop();
});

describe('the impact index upkeep', () => {
  it('gives no word a list while the workspace is under the threshold', async () => {
    await capture(35);
    // Several upkeep passes go by.
    await new Promise((r) => setTimeout(r, 500));
    expect(await listed()).toEqual([]);
  });

  it('lists the words that cross it as captures come in, and keeps them in step', async () => {
    await capture(465);
    // Exactly the words in 40 entries or more, wherever they fall in the vocabulary's
    // order (it is read in slices): no word is within a few entries of that line.
    const frequent = async () =>
      (
        await (await db()).all<{ term: string }>(sql`SELECT term FROM impact_fts_terms WHERE doc >= 40 ORDER BY term`)
      ).map((r) => r.term);
    await until('the frequent words have lists', async () => {
      const words = await listed();
      return words.length > 0 && words.join() === (await frequent()).join();
    });
    expect(await listed()).toEqual(expect.arrayContaining(['alpha', 'beta', 'delta', 'gamma', 'note', 'run']));
    // More captures after the lists exist: the triggers keep them in step.
    await capture(100);
    const words = await listed();
    expect(words).not.toContain('epsilon');
    expect(words.some((w) => w.startsWith('rare'))).toBe(false);
    const report = await (await server.server.registry.get(ws)).db.transaction((tx) => checkImpactIndex(tx, 1_000));
    expect(report.terms).toBe(words.length);
    expect(report.sampled.length).toBe(words.length);
    expect(report.problems).toEqual([]);
  }, 120_000);

  it('ranks through the lists exactly as FTS5 ranks every match', async () => {
    const queries = [
      ['alpha'],
      ['beta'],
      ['alpha', 'beta'],
      ['gamma', 'delta'],
      ['runs', 'gamma', 'alpha'],
      ...RARE.slice(0, 12).map((r, i) => [r, COMMON[i % 5]![0]]),
    ];
    const filters: PrefilterInput[] = [{}, { kinds: ['SEMANTIC'] }, { statuses: ['STALE'] }];
    let fast = 0;
    const d = await db();
    for (const terms of queries) {
      for (const filter of filters) {
        for (const limit of [5, 20]) {
          const prefilter = buildPrefilter(filter);
          const exhaustive = await searchKeyword(d, buildMatchExpression(terms)!, prefilter, limit);
          const early = await searchKeywordByImpact(d, terms, prefilter, limit);
          if (early === null) continue;
          fast++;
          expect({ terms, filter, limit, hits: early }).toEqual({ terms, filter, limit, hits: exhaustive });
        }
      }
    }
    expect(fast).toBeGreaterThan(10);
  }, 120_000);

  it('is also run by maintain, for a server that does not run it', async () => {
    const quiet = await startTestServer({ config: { impact: { minDocs: 40, headPostings: 25, upkeepMs: 0 } } });
    try {
      const other = freshWorkspace('maintain');
      for (let i = 0; i < 120; i++) {
        await quiet.gqlOk(CAPTURE, { c: `alpha beta ${makeText(next, captured++)}` }, { workspace: other });
      }
      const otherDb = (await quiet.server.registry.get(other)).db;
      const lists = () => otherDb.all<{ term: string }>(sql`SELECT term FROM impact_terms`);
      expect(await lists()).toEqual([]);
      const env = { SPHERE_DATA_DIR: quiet.dataDir, SPHERE_IMPACT_MIN_DOCS: '40' };
      const res = await runCli(['maintain', '--workspace', other, '--json'], env);
      expect(res.code, res.stderr).toBe(0);
      const report = JSON.parse(res.stdout) as { impactLists: string[] };
      expect(report.impactLists).toEqual(expect.arrayContaining(['alpha', 'beta', 'note']));
      expect((await lists()).map((r) => r.term).sort()).toEqual([...report.impactLists].sort());
    } finally {
      await quiet.stop();
    }
  }, 120_000);
});
