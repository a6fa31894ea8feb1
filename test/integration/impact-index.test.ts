import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntryKind, EntryStatus } from '../../src/contract/enums.ts';
import type { Db } from '../../src/db/client.ts';
import { drizzleFor, locateWorkspace } from '../../src/db/client.ts';
import { checkImpactIndex, type ImpactShape, rebuildImpactIndex } from '../../src/db/impact-index.ts';
import { type OpenedDatabase, openDatabase } from '../../src/db/open.ts';
import { entries } from '../../src/db/schema.ts';
import { captureEntry } from '../../src/memory/capture.ts';
import { contentHash } from '../../src/memory/model.ts';
import { appendEntry, forgetEntry, updateEntry } from '../../src/memory/revise.ts';
import { type ImpactPlan, searchKeywordByImpact } from '../../src/retrieval/impact.ts';
import { searchKeyword } from '../../src/retrieval/keyword.ts';
import { buildPrefilter, type PrefilterInput } from '../../src/retrieval/prefilter.ts';
import { buildMatchExpression } from '../../src/retrieval/query.ts';
import { runCli } from '../helpers/cli.ts';

/**
 * The impact index must give the keyword arm exactly what FTS5's exhaustive ranking gives
 * (same ids, order and bm25 to the last bit) whenever it stops early, on a corpus with
 * frequent words, rare words, repeated words, identical texts (ties broken by rowid) and
 * excluded statuses, and it must stay so through every kind of write.
 */

/** A small deterministic generator (the corpus is the same on every run). */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 4_294_967_296;
  };
}

const RARE = Array.from({ length: 120 }, (_, i) => `rare${String.fromCharCode(97 + (i % 26))}${Math.floor(i / 26)}x`);
/** Word, share of documents it appears in: the first two in over half of them (idf floored at 1e-6 by FTS5). */
const COMMON: [string, number][] = [
  ['alpha', 0.93],
  ['beta', 0.9],
  ['gamma', 0.3],
  ['delta', 0.12],
  ['epsilon', 0.06],
  ['running', 0.08],
  ['runs', 0.05],
];
const FILLER = ['the', 'of', 'and', 'some', 'words', 'here', 'more', 'text'];

function makeText(next: () => number): string {
  const words: string[] = [];
  for (const [w, share] of COMMON) {
    if (next() < share) for (let k = next() < 0.2 ? 3 : next() < 0.4 ? 2 : 1; k > 0; k--) words.push(w);
  }
  for (let k = Math.floor(next() * 4); k > 0; k--) words.push(RARE[Math.floor(next() * RARE.length)]!);
  for (let k = Math.floor(next() * 20); k > 0; k--) words.push(FILLER[Math.floor(next() * FILLER.length)]!);
  for (let i = words.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [words[i], words[j]] = [words[j]!, words[i]!];
  }
  return words.join(' ') || 'the';
}

const STATUSES: EntryStatus[] = ['ACTIVE', 'ACTIVE', 'ACTIVE', 'STALE', 'DEPRECATED'];
const KINDS: EntryKind[] = ['SEMANTIC', 'EPISODIC', 'DOCUMENT'];
/** Lists for terms in 40+ documents, heads of 25 postings: short enough that stopping early is often wrong. */
const SMALL: ImpactShape = { frequentMinDocs: 40, frequentShare: 0.01, headPostings: 25 };
/**
 * The index may work up to as much as FTS5 whole (three times its default), so that most
 * queries of so small a corpus take the early path and are checked against FTS5.
 */
const GENEROUS = { workShare: 1 };
/**
 * The same with a first round of a few candidates: on so small a corpus most rankings then
 * go on past it, and tighten their bounds by intersecting the listed words' documents.
 */
const IN_SMALL_ROUNDS = { workShare: 1, firstRound: 4 };

let dir: string;
let opened: OpenedDatabase;
let db: Db;
let seq = 0;

/** `count` entries with plain inserts; every 7th repeats an earlier text exactly (a tie in bm25). */
async function seedCorpus(count: number, seed: number): Promise<void> {
  const next = rng(seed);
  const texts: string[] = [];
  const rows = Array.from({ length: count }, () => {
    seq++;
    const text = seq % 7 === 0 && texts.length > 0 ? texts[Math.floor(next() * texts.length)]! : makeText(next);
    texts.push(text);
    return {
      id: `e-${String(seq).padStart(6, '0')}`,
      content: text,
      contentHash: contentHash(`${text} ${seq}`),
      kind: KINDS[seq % KINDS.length]!,
      status: STATUSES[Math.floor(next() * STATUSES.length)]!,
      volatility: 'EVOLVING' as const,
      volatilitySource: 'caller' as const,
      importance: 0.5,
      claimTag: 'UNKNOWN' as const,
      createdAt: 1_700_000_000_000 + seq,
      updatedAt: 1_700_000_000_000 + seq,
    };
  });
  await opened.writer.run(async ({ db }) => {
    for (let i = 0; i < rows.length; i += 200) await db.insert(entries).values(rows.slice(i, i + 200));
  });
}

const QUERIES: string[][] = [
  ['alpha'],
  ['gamma'],
  ['delta'],
  ['gamma', 'delta'],
  ['alpha', 'beta'],
  ['alpha', 'beta', 'gamma', 'delta', 'epsilon'],
  ['running'],
  ['running', 'runs', 'gamma'],
  ...RARE.slice(0, 24).map((r, i) => [r, COMMON[i % COMMON.length]![0]]),
  ...RARE.slice(24, 36).map((r, i) => [COMMON[i % 4]![0], r, RARE[(i * 7) % RARE.length]!, 'delta']),
];
const FILTERS: PrefilterInput[] = [{}, { kinds: ['EPISODIC'] }, { statuses: ['STALE', 'DEPRECATED'] }];

/** Every query at several limits and filters: the fast path either declines or matches FTS5 exactly. */
async function compareAll(plan: Partial<ImpactPlan> = GENEROUS): Promise<{ fast: number; total: number }> {
  let fast = 0;
  let total = 0;
  for (const terms of QUERIES) {
    for (const filter of FILTERS) {
      for (const limit of [5, 20, 100]) {
        const prefilter = buildPrefilter(filter);
        const exhaustive = await searchKeyword(db, buildMatchExpression(terms)!, prefilter, limit);
        const early = await searchKeywordByImpact(db, terms, prefilter, limit, plan);
        total++;
        if (early === null) continue;
        fast++;
        expect({ terms, filter, limit, hits: early }).toEqual({ terms, filter, limit, hits: exhaustive });
      }
    }
  }
  return { fast, total };
}

async function indexProblems(): Promise<string[]> {
  const report = await opened.db.transaction(async (tx) => checkImpactIndex(tx, 1_000));
  expect(report.terms).toBeGreaterThan(0);
  return report.problems;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sphere-impact-'));
  opened = await openDatabase(locateWorkspace('impact', { dataDir: dir, dbUrl: null, dbAuthToken: null }), {
    workspace: 'impact',
    onCommit: () => {},
  });
  db = opened.db;
  await seedCorpus(1_500, 1);
  const built = await opened.writer.run(({ db }) => rebuildImpactIndex(db, SMALL));
  expect(built.terms).toBeGreaterThanOrEqual(COMMON.length);
}, 120_000);

afterAll(async () => {
  await opened?.writer.close();
  opened?.client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the impact index', () => {
  it('ranks exactly as the exhaustive keyword arm whenever it stops early, and often does', async () => {
    const { fast, total } = await compareAll();
    expect(fast).toBeGreaterThan(total / 3);
    expect(await indexProblems()).toEqual([]);
  }, 120_000);

  it('ranks exactly so too when rankings go on past their first round and tighten their bounds', async () => {
    const { fast, total } = await compareAll(IN_SMALL_ROUNDS);
    expect(fast).toBeGreaterThan(total / 3);
  }, 120_000);

  it('runs its statements under a few texts, whatever words the queries list', async () => {
    // A reader connection keeps every statement text it ran prepared: one text for each
    // combination of listed words would fill that cache with statements used once.
    const texts = new Set<string>();
    const counted = drizzleFor(opened.client, (query) => texts.add(query));
    let ranked = 0;
    for (const terms of QUERIES) {
      const early = await searchKeywordByImpact(counted, terms, buildPrefilter({}), 20, IN_SMALL_ROUNDS);
      if (early !== null) ranked++;
    }
    expect(ranked).toBeGreaterThan(QUERIES.length / 3);
    const scoring = [...texts].filter((t) => t.includes('FROM impact_docs'));
    // One text for each number of listed words a query holds (1 to 5 here).
    expect(scoring.length).toBeGreaterThan(0);
    expect(scoring.length).toBeLessThanOrEqual(5);
    expect(texts.size).toBeLessThan(20);
  }, 120_000);

  it('looks a query word up under the term FTS5 stores (stemmed)', async () => {
    const [running] = await db.all<{ id: number }>(sql`SELECT id FROM impact_terms WHERE term = 'run'`);
    expect(running).toBeDefined();
    const early = await searchKeywordByImpact(db, ['runs'], buildPrefilter({}), 10, GENEROUS);
    expect(early).toEqual(await searchKeyword(db, '"runs"', buildPrefilter({}), 10));
  });

  it('leaves a query to FTS5 whole when the index would do more than its share of the work', async () => {
    // "delta" is in ~180 entries and its head holds the heaviest: settling its best 20 takes a
    // good part of them. With a hundredth of FTS5's work to spend the index gives up before
    // reading anything; with the default share it answers, exactly as FTS5 does.
    const prefilter = buildPrefilter({});
    const whole = await searchKeyword(db, '"delta"', prefilter, 20);
    expect(await searchKeywordByImpact(db, ['delta'], prefilter, 20, GENEROUS)).toEqual(whole);
    expect(await searchKeywordByImpact(db, ['delta'], prefilter, 20)).toEqual(whole);
    expect(await searchKeywordByImpact(db, ['delta'], prefilter, 20, { workShare: 0.01 })).toBeNull();
  });

  it('stays in step through captures, appends, updates, forgets and plain deletes', async () => {
    const next = rng(7);
    const ids = (await db.all<{ id: string }>(sql`SELECT id FROM entries ORDER BY n`)).map((r) => r.id);
    await opened.writer.run(async (scope) => {
      for (let i = 0; i < 60; i++) await captureEntry(scope, { content: `${makeText(next)} capture ${i}` });
      for (let i = 0; i < 40; i++) await updateEntry(scope, ids[i * 11]!, makeText(next));
      for (let i = 0; i < 30; i++) await appendEntry(scope, ids[i * 13 + 3]!, 'gamma gamma delta');
      for (let i = 0; i < 40; i++) await forgetEntry(scope, ids[i * 17 + 5]!);
      await scope.db.run(sql`DELETE FROM entries WHERE n % 29 = 0`);
    });
    await seedCorpus(200, 3);
    expect(await indexProblems()).toEqual([]);
    const { fast } = await compareAll();
    expect(fast).toBeGreaterThan(0);
  }, 120_000);

  it('is checked by check, rebuilt by reindex, and never carried by export and import', async () => {
    // A lost posting and a wrong count, as a bug or a hand edit would leave them.
    await opened.writer.run(async ({ db }) => {
      // check samples the least frequent terms (and one at random): break the rarest.
      await db.run(sql`DELETE FROM impact_postings WHERE (term, n) IN (
        SELECT term, max(n) FROM impact_postings WHERE term = (SELECT term FROM impact_terms ORDER BY docs LIMIT 1))`);
      await db.run(sql`UPDATE impact_terms SET docs = docs + 1 WHERE term = 'delta'`);
    });
    // The CLI opens the same file: let go of it first.
    await opened.writer.close();
    opened.client.close();
    const env = { SPHERE_DATA_DIR: dir };
    const file = join(dir, 'impact.jsonl');
    const exported = await runCli(['export', '--workspace', 'impact', '--out', file], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).not.toMatch(/impact_/);
    const imported = await runCli(['import', '--workspace', 'copy', '--create', file, '--json'], env);
    expect(imported.code, imported.stderr).toBe(0);
    const broken = await runCli(['check', '--workspace', 'impact', '--json'], env);
    expect(broken.code).toBe(1);
    const problems = (JSON.parse(broken.stdout) as { impact: { problems: string[] } }).impact.problems;
    expect(problems.join('\n')).toMatch(/misses 1 and has 0 postings/);
    expect(problems.join('\n')).toMatch(/"delta" counts/);
    const reindexed = await runCli(['reindex', '--workspace', 'impact'], env);
    expect(reindexed.code, reindexed.stderr).toBe(0);
    for (const ws of ['impact', 'copy']) {
      const check = await runCli(['check', '--workspace', ws, '--json'], env);
      expect(check.code, check.stdout + check.stderr).toBe(0);
      const report = JSON.parse(check.stdout) as { ok: boolean; impact: { problems: string[] } };
      expect(report.impact.problems).toEqual([]);
    }
    opened = await openDatabase(locateWorkspace('impact', { dataDir: dir, dbUrl: null, dbAuthToken: null }), {
      workspace: 'impact',
      onCommit: () => {},
    });
    db = opened.db;
    // Reindex chose the terms with the default shape: none is frequent enough in so small a
    // corpus, so the index is empty and every query goes to FTS5.
    const terms = await db.all<{ term: string }>(sql`SELECT term FROM impact_terms ORDER BY term`);
    expect(terms.map((t) => t.term)).toEqual([]);
    const { fast } = await compareAll();
    expect(fast).toBe(0);
  }, 240_000);
});
