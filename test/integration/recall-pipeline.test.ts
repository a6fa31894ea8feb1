import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimTag, EdgeType, EntryKind, EntryStatus, Volatility } from '../../src/contract/enums.ts';
import { DomainError } from '../../src/contract/errors.ts';
import { drizzleFor, locateWorkspace, migrateDb, openClient, type RootDb } from '../../src/db/client.ts';
import { edges, entries, tags } from '../../src/db/schema.ts';
import { VectorMatrix } from '../../src/memory/embeddings/vector-index.ts';
import { writeVector } from '../../src/memory/embeddings/vector-store.ts';
import { contentHash } from '../../src/memory/model.ts';
import { edgesAmong, walkGraph } from '../../src/retrieval/graph.ts';
import { searchKeyword } from '../../src/retrieval/keyword.ts';
import { type RecallInput, recallEntries } from '../../src/retrieval/pipeline.ts';
import { RANKING_POLICY } from '../../src/retrieval/policy.ts';
import { buildPrefilter } from '../../src/retrieval/prefilter.ts';

const DAY = 86_400_000;
const NOW = new Date('2026-03-11T12:00:00.000Z');

let dir: string;
let client: Client;
let db: RootDb;
let seq = 0;

interface Seed {
  content: string;
  kind?: EntryKind;
  status?: EntryStatus;
  volatility?: Volatility;
  claimTag?: ClaimTag;
  importance?: number;
  observedAt?: Date | null;
  tags?: string[];
}

/** Inserts an entry with plain drizzle (no domain code) and returns its id. */
async function add(seed: Seed): Promise<string> {
  seq++;
  const id = `e-${String(seq).padStart(4, '0')}`;
  const at = NOW.getTime() - DAY;
  await db.insert(entries).values({
    id,
    content: seed.content,
    contentHash: contentHash(`${seed.content} ${seq}`),
    kind: seed.kind ?? 'SEMANTIC',
    status: seed.status ?? 'ACTIVE',
    volatility: seed.volatility ?? 'EVOLVING',
    volatilitySource: 'caller',
    importance: seed.importance ?? 0.5,
    claimTag: seed.claimTag ?? 'UNKNOWN',
    observedAt: seed.observedAt === undefined ? null : (seed.observedAt?.getTime() ?? null),
    createdAt: at,
    updatedAt: at,
  });
  if (seed.tags?.length) await db.insert(tags).values(seed.tags.map((tag) => ({ entryId: id, tag })));
  return id;
}

async function link(src: string, dst: string, type: EdgeType = 'RELATES_TO', weight = 1): Promise<void> {
  await db.insert(edges).values({ src, dst, type, weight, provenance: 'EXPLICIT', createdAt: 1, updatedAt: 1 });
}

const recall = (input: RecallInput) => recallEntries(db, input, NOW);
const ids = (out: Awaited<ReturnType<typeof recall>>) => out.hits.map((h) => h.entry.id);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'recall-pipeline-'));
  client = await openClient(locateWorkspace('t', { dataDir: dir, dbUrl: null, dbAuthToken: null }));
  db = drizzleFor(client);
  await migrateDb(db);
});

afterAll(() => {
  client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('recall pipeline', () => {
  it('applies prefilters before ranking, even to the best keyword match', async () => {
    const best = await add({ content: 'quasar quasar quasar telemetry', kind: 'PROCEDURAL', tags: ['ops'] });
    const weak = await add({
      content: 'quasar notes and many other unrelated words here',
      kind: 'SEMANTIC',
      tags: ['ops', 'x'],
    });

    const all = await recall({ query: 'quasar telemetry' });
    expect(ids(all)[0]).toBe(best);

    const byKind = await recall({ query: 'quasar telemetry', filter: { kinds: ['SEMANTIC'] } });
    expect(ids(byKind)).toEqual([weak]);
    expect(byKind.candidates).toBe(1);
    expect(byKind.omitted.map((o) => o.entryId)).not.toContain(best);

    expect(ids(await recall({ query: 'quasar', kind: 'PROCEDURAL' }))).toEqual([best]);
    expect(ids(await recall({ query: 'quasar', kind: 'PROCEDURAL', filter: { kinds: ['SEMANTIC'] } }))).toEqual([]);
    expect(ids(await recall({ query: 'quasar', filter: { tags: ['ops', 'x'] } }))).toEqual([weak]);
    expect(ids(await recall({ query: 'quasar', tag: ' X ' }))).toEqual([weak]);
    expect(ids(await recall({ query: 'quasar', filter: { volatilities: ['DURABLE'] } }))).toEqual([]);
    expect(ids(await recall({ query: 'quasar', filter: { claimTags: ['VERIFIED'] } }))).toEqual([]);
    expect(ids(await recall({ query: 'quasar', filter: { statuses: ['STALE'] } }))).toEqual([]);
  });

  it('keeps the keyword arm exact beyond its first window: bm25 order, ties by age, prefilter first', async () => {
    // 260 matches: the 250 best (shortest) are EPISODIC, the 10 weakest SEMANTIC, and pairs
    // of equal text tie on bm25. The limit is 100, so the SEMANTIC ones lie past the window
    // of best matches the arm ranks first.
    const seeds: Seed[] = [];
    for (let i = 0; i < 260; i++) {
      const filler = Array.from({ length: 2 + Math.floor(i / 2) }, () => 'pad').join(' ');
      seeds.push({ content: `zeugma ${filler}`, kind: i < 250 ? 'EPISODIC' : 'SEMANTIC' });
    }
    const added: string[] = [];
    for (const seed of seeds) added.push(await add(seed));
    const limit = RANKING_POLICY.keyword.candidateLimit;
    const reference = async (kinds: EntryKind[] | null) =>
      (
        await db.all<{ id: string }>(sql`
          SELECT e.id AS id FROM entries_fts JOIN entries e ON e.n = entries_fts.rowid
          WHERE entries_fts MATCH '"zeugma"' AND ${buildPrefilter({ kinds })}
          ORDER BY bm25(entries_fts), e.n LIMIT ${limit}`)
      ).map((r) => r.id);

    const all = await searchKeyword(db, '"zeugma"', buildPrefilter({}), limit);
    expect(all.map((h) => h.id)).toEqual(await reference(null));
    expect(all.map((h) => h.id)).toEqual(added.slice(0, limit));
    expect(all.map((h) => h.rank)).toEqual(Array.from({ length: limit }, (_, i) => i + 1));

    const semantic = await searchKeyword(db, '"zeugma"', buildPrefilter({ kinds: ['SEMANTIC'] }), limit);
    expect(semantic.map((h) => h.id)).toEqual(added.slice(250));
    expect(semantic.map((h) => h.id)).toEqual(await reference(['SEMANTIC']));
    for (let i = 1; i < semantic.length; i++) expect(semantic[i]!.bm25).toBeGreaterThanOrEqual(semantic[i - 1]!.bm25);
  });

  it('filters since/until on when the entry happened', async () => {
    const old = await add({ content: 'nebula budget review', observedAt: new Date('2025-06-01T00:00:00Z') });
    const recent = await add({ content: 'nebula budget approved', observedAt: new Date('2026-03-01T00:00:00Z') });
    const since = await recall({ query: 'nebula budget', filter: { since: new Date('2026-01-01T00:00:00Z') } });
    expect(ids(since)).toEqual([recent]);
    const until = await recall({ query: 'nebula budget', filter: { until: new Date('2026-01-01T00:00:00Z') } });
    expect(ids(until)).toEqual([old]);
    const phrase = await recall({ query: 'nebula budget in 2025' });
    expect(phrase.timeRange?.phrase).toBe('in 2025');
    expect(phrase.queryUsed).toBe('nebula budget');
    expect(ids(phrase)).toEqual([old]);
  });

  it('reaches a linked entry at hop 1, not at hop 0', async () => {
    const seed = await add({ content: 'zeppelin migration plan' });
    const neighbour = await add({ content: 'owners: dana and lee; deadline end of quarter' });
    await link(seed, neighbour, 'CAUSED_BY', 0.9);

    const flat = await recall({ query: 'zeppelin migration', hops: 0 });
    expect(ids(flat)).toEqual([seed]);
    expect(flat.hits[0]!.arms).toEqual(['KEYWORD']);

    const walked = await recall({ query: 'zeppelin migration', hops: 1 });
    expect(ids(walked)).toEqual([seed, neighbour]);
    const [s, n] = walked.hits;
    expect(s!.arms).toEqual(['KEYWORD', 'GRAPH']);
    expect(s!.hop).toBe(0);
    expect(s!.via).toBeNull();
    expect(n!.arms).toEqual(['GRAPH']);
    expect(n!.hop).toBe(1);
    expect(n!.via).toMatchObject({ src: seed, dst: neighbour, type: 'CAUSED_BY', weight: 0.9 });
    expect(n!.explain.keywordRank).toBeNull();
    expect(n!.explain.graphScore).toBeCloseTo(RANKING_POLICY.graph.decayPerHop * 0.9);
    // The seed is ranked in the graph arm too, so its neighbour cannot tie with it.
    expect(s!.score).toBeGreaterThan(n!.score);
  });

  it('walks edges against their direction and passes graph-only nodes through the prefilter', async () => {
    const seed = await add({ content: 'gondola incident summary' });
    const cause = await add({ content: 'the cable tensioner was replaced', tags: ['hardware'] });
    const other = await add({ content: 'weekly standup notes', kind: 'EPISODIC' });
    await link(cause, seed, 'CAUSED_BY');
    await link(other, seed, 'RELATES_TO');
    const out = await recall({ query: 'gondola incident', filter: { kinds: ['SEMANTIC'] } });
    expect(ids(out)).toEqual([seed, cause]);
    expect(out.hits[1]!.via).toMatchObject({ src: cause, dst: seed });
  });

  it('never returns DEPRECATED entries unless asked, nor auto-pattern ones', async () => {
    const live = await add({ content: 'walrus feeding schedule' });
    const deprecated = await add({ content: 'walrus walrus feeding schedule schedule', status: 'DEPRECATED' });
    const pattern = await add({ content: 'walrus feeding schedule walrus', tags: ['auto-pattern'] });
    const hiddenNeighbour = await add({ content: 'aquarium staff rota', status: 'DEPRECATED' });
    await link(live, hiddenNeighbour);

    const out = await recall({ query: 'walrus feeding schedule', topK: 10 });
    expect(ids(out)).toEqual([live]);
    expect(out.omitted).toContainEqual({ entryId: pattern, reason: 'auto-pattern' });
    expect(ids(out)).not.toContain(deprecated);
    expect(ids(out)).not.toContain(hiddenNeighbour);

    const asked = await recall({ query: 'walrus feeding schedule', filter: { statuses: ['DEPRECATED', 'ACTIVE'] } });
    expect(ids(asked)).toContain(deprecated);
    expect(ids(asked)).not.toContain(pattern);
  });

  it('ranks a SUPERSEDED entry below its successor', async () => {
    const old = await add({ content: 'the deploy window is friday; deploy window friday evening' });
    const successor = await add({ content: 'deploy window moved to tuesday' });
    await link(successor, old, 'SUPERSEDES');
    const byEdge = await recall({ query: 'deploy window friday' });
    expect(ids(byEdge).indexOf(successor)).toBeLessThan(ids(byEdge).indexOf(old));

    const oldStatus = await add({ content: 'icebreaker budget is 500 icebreaker budget', status: 'SUPERSEDED' });
    const current = await add({ content: 'icebreaker budget is 800' });
    const byStatus = await recall({ query: 'icebreaker budget' });
    expect(ids(byStatus).indexOf(current)).toBeLessThan(ids(byStatus).indexOf(oldStatus));
  });

  it('keeps near-duplicates from filling the top (MMR)', async () => {
    const dupes = [];
    for (let i = 0; i < 5; i++) {
      dupes.push(await add({ content: `kestrel database connection pool exhausted at peak traffic (copy ${i})` }));
    }
    const distinct = await add({ content: 'kestrel database connection pool sizing guide for the reporting service' });
    const out = await recall({ query: 'kestrel database connection pool', topK: 3, hops: 0 });
    expect(out.hits).toHaveLength(3);
    expect(ids(out)).toContain(distinct);
    expect(out.omitted.some((o) => o.reason === 'mmr-diversity')).toBe(true);
    // score is relevance before diversity: the distinct entry scores lower than a dropped duplicate.
    const distinctHit = out.hits.find((h) => h.entry.id === distinct)!;
    expect(distinctHit.score).toBe(distinctHit.explain.final);
    expect(distinctHit.score).toBeLessThan(
      out.hits[2]!.entry.id === distinct ? out.hits[1]!.score : out.hits[2]!.score,
    );
    expect(out.hits.map((h) => h.rank)).toEqual([1, 2, 3]);
  });

  it('never lets FTS5 syntax through, whatever the query', async () => {
    await add({ content: 'near column and or not syntax words' });
    const queries = [
      '"',
      '*',
      '-',
      'NEAR(',
      'col:x',
      'AND (',
      ')',
      '^',
      'a OR',
      '"unterminated',
      'content:near',
      'NOT',
      '{a b}',
      "it's",
      '*near*',
      'near/3',
      '+-*/',
      'x AND',
      '""""',
      "'",
    ];
    for (const query of queries) {
      await expect(recall({ query }), query).resolves.toMatchObject({ query });
    }
    expect(ids(await recall({ query: 'NEAR(column' }))).toHaveLength(1);
  });

  it('lists a time-only query newest first, with no keyword arm', async () => {
    const days = ['2026-03-03', '2026-03-05', '2026-03-04', '2026-03-09'];
    const made = [];
    for (const d of days) made.push(await add({ content: `ferry log ${d}`, observedAt: new Date(`${d}T10:00:00Z`) }));
    const out = await recall({ query: 'last week', topK: 10 });
    expect(out.timeRange).toEqual({
      from: new Date('2026-03-02T00:00:00Z'),
      to: new Date('2026-03-09T00:00:00Z'),
      phrase: 'last week',
    });
    expect(out.queryUsed).toBe('');
    expect(ids(out)).toEqual([made[1], made[2], made[0]]);
    expect(out.hits.every((h) => h.arms.length === 0)).toBe(true);
    const withStopWords = await recall({ query: 'what did we do last week?', topK: 10 });
    expect(ids(withStopWords)).toEqual(ids(out));
  });

  it('reports explain, snippets and the policy version', async () => {
    await add({ content: `${'background '.repeat(600)}the heron protocol handshake ${'trailing '.repeat(600)}` });
    const out = await recall({ query: 'heron handshake' });
    expect(out.policyVersion).toBe(RANKING_POLICY.version);
    expect(out.budgetChars).toBe(12_000);
    const hit = out.hits[0]!;
    expect(hit.truncated).toBe(true);
    expect(hit.snippet).toContain('heron');
    expect(out.usedChars).toBe(out.hits.reduce((n, h) => n + h.snippet.length, 0));
    expect(hit.explain).toMatchObject({ keywordRank: 1, vectorRank: null, final: hit.score });
    expect(hit.explain.bm25).toBeGreaterThan(0);
    const full = await recall({ query: 'heron handshake', full: true });
    expect(full.budgetChars).toBeNull();
    expect(full.hits[0]!.snippet).toBe(full.hits[0]!.entry.content);
  });

  it('rejects out-of-range input as BAD_USER_INPUT', async () => {
    const bad: RecallInput[] = [
      { query: '' },
      { query: 'x'.repeat(1_001) },
      { query: 'x', topK: 0 },
      { query: 'x', topK: 51 },
      { query: 'x', hops: 4 },
      { query: 'x', hops: -1 },
      { query: 'x', asOf: new Date('nope') },
      { query: 'x', filter: { since: new Date(Number.NaN) } },
    ];
    for (const input of bad) {
      await expect(recall(input)).rejects.toSatisfy((e) => e instanceof DomainError && e.code === 'BAD_USER_INPUT');
    }
  });
});

describe('the vector arm', () => {
  const model = { model: 'test-axes', dim: 3 };
  const axis = (...v: number[]) => Float32Array.from(v);

  /** Stores each entry's vector (as capture would) and recalls with `query` as the query's vector. */
  async function withVectors(vectors: [id: string, v: Float32Array][], query: Float32Array, input: RecallInput) {
    for (const [id, v] of vectors) {
      const [row] = await db.select().from(entries).where(sql`${entries.id} = ${id}`);
      expect(await writeVector(db, model, { entryId: id, contentHash: row!.contentHash, docs: 1, vector: v })).toBe(
        true,
      );
    }
    const matrix = new VectorMatrix(model);
    return recallEntries(db, input, NOW, {
      model: model.model,
      embedQuery: async () => query,
      vectors: async () => {
        await matrix.refresh(db);
        return matrix;
      },
    });
  }

  it('leaves the best keyword matches in their order and adds its own finds after them', async () => {
    // Two equal keyword matches (the older first); the vector arm ranks the second first and
    // has more entries nearer the query than the first, so the first is not among its ranks.
    const first = await add({ content: 'zephyr lantern repair shop' });
    const second = await add({ content: 'zephyr lantern repair kit' });
    const unworded = await add({ content: 'violet harbour ferry timetable' });
    const others: string[] = [];
    for (let i = 0; i < RANKING_POLICY.vector.candidateLimit * 2; i++)
      others.push(await add({ content: `pebble ${i}` }));
    const input = { query: 'zephyr lantern repair', topK: 5 };
    expect(ids(await recall(input))).toEqual([first, second]);
    const out = await withVectors(
      [
        [first, axis(0, 1, 0)],
        // Nearest the query, and far enough from the unworded one (cosine 0.42) that MMR
        // does not hold the two for the same memory.
        [second, axis(0.906, 0.423, 0)],
        [unworded, axis(0.766, -0.643, 0)],
        ...others.map((id): [string, Float32Array] => [id, axis(0.5, 0, 0.87)]),
      ],
      axis(1, 0, 0),
      input,
    );
    expect(out.hits.slice(0, 3).map((h) => h.entry.id)).toEqual([first, second, unworded]);
    expect(out.hits[0]!.explain.vectorRank).toBeNull();
    expect(out.hits[1]!.explain.vectorRank).toBe(1);
    expect(out.hits[2]!.arms).toEqual(['VECTOR']);
  });

  it('lends no neighbour support or coverage through INFERRED links, which it would count twice', async () => {
    const best = await add({ content: 'quokka marmalade' });
    const inferred = await add({ content: 'quokka notes' });
    const explicit = await add({ content: 'quokka diary' });
    await db.insert(edges).values([
      { src: inferred, dst: best, type: 'RELATES_TO', weight: 0.9, provenance: 'INFERRED', createdAt: 1, updatedAt: 1 },
      { src: explicit, dst: best, type: 'RELATES_TO', weight: 0.9, provenance: 'EXPLICIT', createdAt: 1, updatedAt: 1 },
    ]);
    const input = { query: 'quokka marmalade', hops: 0 };
    const coverage = (out: Awaited<ReturnType<typeof recall>>) =>
      Object.fromEntries(out.hits.map((h) => [h.entry.id, h.explain.coverage]));
    // Keyword-only, both links count: half the query in the entry, the other half next to it.
    expect(coverage(await recall(input))).toMatchObject({ [inferred]: 2.5, [explicit]: 2.5 });
    const out = await withVectors(
      [best, inferred, explicit].map((id): [string, Float32Array] => [id, axis(0, 0, 1)]),
      axis(0, 0, 1),
      input,
    );
    expect(coverage(out)).toMatchObject({ [inferred]: 2, [explicit]: 2.5 });
    expect(ids(out).indexOf(explicit)).toBeLessThan(ids(out).indexOf(inferred));
  });
});

describe('walkGraph', () => {
  it('handles cycles and both directions, keeping each node at its nearest hop', async () => {
    const a = await add({ content: 'cycle a' });
    const b = await add({ content: 'cycle b' });
    const c = await add({ content: 'cycle c' });
    await link(a, b, 'FOLLOWS', 0.5);
    await link(b, c, 'FOLLOWS');
    await link(c, a, 'CAUSED_BY', 0.8);
    const walk = await walkGraph(db, [a], 3, { checkTruncation: true });
    expect(walk.truncated).toBe(false);
    expect(walk.nodes.map((n) => [n.id, n.hop])).toEqual([
      [a, 0],
      [c, 1],
      [b, 1],
    ]);
    expect(walk.nodes[1]!.score).toBeCloseTo(0.6 * 0.8);
    expect(walk.nodes[1]!.viaEdge).toMatchObject({ src: c, dst: a, type: 'CAUSED_BY' });
    expect(await edgesAmong(db, [a, b, c])).toHaveLength(3);
  });

  it('is not truncated when only hops stop it', async () => {
    const [a, b, c] = [
      await add({ content: 'chain a' }),
      await add({ content: 'chain b' }),
      await add({ content: 'chain c' }),
    ];
    await link(a, b);
    await link(b, c);
    const walk = await walkGraph(db, [a], 1, { checkTruncation: true });
    expect(walk.nodes.map((n) => n.id)).toEqual([a, b]);
    expect(walk.truncated).toBe(false);
    expect((await walkGraph(db, [a], 0, { checkTruncation: true })).nodes.map((n) => n.id)).toEqual([a]);
  });

  it('follows the heaviest edges first and says when the fanout or the cap left nodes out', async () => {
    const hub = await add({ content: 'hub' });
    const spokes = [];
    for (let i = 0; i < 10; i++) {
      const s = await add({ content: `spoke ${i}` });
      spokes.push(s);
      // Alternate directions: the fanout counts edges both ways.
      if (i % 2) await link(hub, s, 'RELATES_TO', (i + 1) / 10);
      else await link(s, hub, 'CAUSED_BY', (i + 1) / 10);
    }
    const walk = await walkGraph(db, [hub], 1, { fanout: 8, nodeCap: 50, checkTruncation: true });
    expect(walk.nodes).toHaveLength(9);
    expect(walk.truncated).toBe(true);
    expect(walk.nodes.map((n) => n.id)).not.toContain(spokes[0]);
    expect(walk.nodes.map((n) => n.id)).not.toContain(spokes[1]);
    expect(walk.nodes[1]!.id).toBe(spokes[9]);

    const capped = await walkGraph(db, [hub], 1, { fanout: 8, nodeCap: 4, checkTruncation: true });
    expect(capped.nodes).toHaveLength(4);
    expect(capped.truncated).toBe(true);

    const wide = await walkGraph(db, [hub], 1, { fanout: 10, nodeCap: 50, checkTruncation: true });
    expect(wide.nodes).toHaveLength(11);
    expect(wide.truncated).toBe(false);
  });
});
