import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, locateWorkspace } from '../../src/db/client.ts';
import { checkImpactIndex, rebuildImpactIndex } from '../../src/db/impact-index.ts';
import { upkeepImpactIndexFully } from '../../src/db/impact-upkeep.ts';
import type { LocalClient } from '../../src/db/local-client.ts';
import { type OpenedDatabase, openDatabase } from '../../src/db/open.ts';
import { captureWrite } from '../../src/memory/capture.ts';
import { searchKeywordByImpact } from '../../src/retrieval/impact.ts';
import { searchKeyword } from '../../src/retrieval/keyword.ts';
import { buildPrefilter, type PrefilterInput } from '../../src/retrieval/prefilter.ts';
import { buildMatchExpression } from '../../src/retrieval/query.ts';
import { runCli } from '../helpers/cli.ts';
import { startHranaServer } from '../helpers/hrana-server.ts';
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

/**
 * So small a corpus is ranked faster by FTS5 whole than its lists could pay for: the index
 * is allowed as much work as FTS5 (three times its default) so that its answers get checked.
 */
const AS_MUCH_AS_FTS5 = { workShare: 1 };

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
          const early = await searchKeywordByImpact(d, terms, prefilter, limit, AS_MUCH_AS_FTS5);
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

describe('a list built by the upkeep', () => {
  const shape = { frequentMinDocs: 40, frequentShare: 0.01, headPostings: 25 };
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'impact-upkeep-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  /** The whole impact index as another process reads it from the file. */
  const snapshot = (file: string) => {
    const d = new Database(file);
    try {
      return {
        meta: d.prepare('SELECT * FROM impact_meta').all(),
        terms: d.prepare('SELECT id, term, threshold, docs FROM impact_terms ORDER BY id').all(),
        postings: d.prepare('SELECT * FROM impact_postings ORDER BY term, impact, n').all(),
        docs: d.prepare('SELECT * FROM impact_docs ORDER BY n').all(),
      };
    } finally {
      d.close();
    }
  };

  /** Captures a corpus, lets the upkeep list its frequent words, and compares them with a rebuild's. */
  async function upkeepThenRebuild(
    opened: OpenedDatabase,
    file: string,
    around: { before(): void; after(listed: string[]): void },
  ): Promise<void> {
    const texts = Array.from({ length: 300 }, () => makeText(next, captured++));
    await Promise.all(texts.map((content) => opened.writer.run(captureWrite({ content }))));
    around.before();
    const listed = await upkeepImpactIndexFully(opened.db, (w) => opened.writer.run(w), shape);
    around.after(listed);
    expect(listed).toEqual(expect.arrayContaining(['alpha', 'beta', 'gamma', 'note']));
    const upkept = snapshot(file);
    expect(upkept.terms.map((t) => (t as { term: string }).term)).toEqual(listed);
    await opened.writer.run(({ db }) => rebuildImpactIndex(db, shape));
    expect(upkept).toEqual(snapshot(file));
  }

  it('runs on the write thread, not on the thread serving requests, and writes what a rebuild writes', async () => {
    const location = locateWorkspace('lists', { dataDir: dir, dbUrl: null, dbAuthToken: null });
    const opened = await openDatabase(location, { workspace: 'lists', onCommit: () => {} });
    try {
      const syncs = () => (opened.client as LocalClient).syncs;
      let before = 0;
      await upkeepThenRebuild(opened, join(dir, 'lists.db'), {
        before: () => {
          before = syncs();
        },
        // Every list was written and synced by the write thread's connection: the request
        // thread's connections committed nothing.
        after: () => expect(syncs()).toBe(before),
      });
    } finally {
      await opened.writer.close();
      opened.client.close();
    }
  }, 120_000);

  it('costs a hosted database two requests a list, and writes what a rebuild writes', async () => {
    const hrana = await startHranaServer({ dir: join(dir, 'hosted'), token: null });
    const location = locateWorkspace('hosted', { dataDir: dir, dbUrl: hrana.urlTemplate, dbAuthToken: null });
    const opened = await openDatabase(location, { workspace: 'hosted', onCommit: () => {} });
    try {
      await upkeepThenRebuild(opened, hrana.dbPath('hosted'), {
        before: () => hrana.resetCounts(),
        after: (listed) => {
          // The scan's reads aside, a list is its reads (BEGIN IMMEDIATE with them) and its statements with COMMIT.
          const writing = hrana.log.filter((r) => r.statements.some((s) => !/^SELECT\b/i.test(s)));
          expect(writing.length).toBe(2 * listed.length);
        },
      });
    } finally {
      await opened.writer.close();
      opened.client.close();
      await hrana.stop();
    }
  }, 120_000);
});
