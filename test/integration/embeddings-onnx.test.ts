import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dot, vectorFromBytes } from '../../src/memory/embeddings/embedder.ts';
import { OnnxEmbedder } from '../../src/memory/embeddings/onnx.ts';
import { NO_PROFILE_SETTINGS, PROFILES } from '../../src/memory/embeddings/profile.ts';
import { startEmbeddingsServer, testModelDir } from '../helpers/embeddings-server.ts';
import { EVENT, FILLER, onnxConfig } from '../helpers/onnx-model.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { openWorkspaceDb } from '../helpers/workspace-db.ts';

// A real sentence model (all-MiniLM-L6-v2, fetched and checked by scripts/fetch-model.sh),
// run in-process by onnxruntime on its own thread.
const model = testModelDir();

const offConfig = { embeddings: { ...onnxConfig(model.dir ?? '').embeddings, kind: 'off' as const } };

const CAPTURE = `mutation ($input: CaptureInput!) { capture(input: $input) { outcome entry { id } } }`;
const RECALL = `query ($q: String!) { recall(query: $q, topK: 10) {
  vectorArm { model searched withoutVector skipped }
  hits { arms score entry { id } explain { keywordRank vectorRank cosine } } } }`;
const STATS = `{ stats { semantic { model profile dim vectors lacking
  thresholds { duplicate similar link linksMax mmrFloor } } } }`;
const CONNECTIONS = `query ($id: ID!) { entry(id: $id) { connections { edge { type provenance weight } entry { id } } } }`;

const PARAPHRASE = 'Jon lost his bank job and then opened a dance studio.';
const RETOLD = 'After the bank let him go, Jon started his own dance studio.';
const UNRELATED = 'My sister adopted a golden retriever puppy named Max.';

type Hit = { arms: string[]; score: number; entry: { id: string }; explain: { cosine: number | null } };

async function captureAll(t: TestServer, workspace: string, texts: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const content of texts)
    ids.push((await t.gqlOk(CAPTURE, { input: { content } }, { workspace })).capture.entry.id);
  return ids;
}

async function storedVector(dbPath: string, entryId: string): Promise<{ model: string; vector: Float32Array }> {
  const db = await openWorkspaceDb(dbPath);
  try {
    const rows = await db.execute({
      sql: 'SELECT model, vector FROM entry_vectors WHERE entry_id = ?',
      args: [entryId],
    });
    const row = rows.rows[0]!;
    return { model: String(row.model), vector: vectorFromBytes(row.vector as ArrayBuffer) };
  } finally {
    db.close();
  }
}

describe.skipIf(!model.dir)('onnx embeddings (all-MiniLM-L6-v2)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: onnxConfig(model.dir!) });
  }, 300_000);
  afterAll(() => t?.stop());

  const recall = async (q: string, workspace: string) =>
    (await t.gqlOk(RECALL, { q }, { workspace })).recall as {
      vectorArm: { model: string; skipped: string | null; withoutVector: number };
      hits: Hit[];
    };

  it('shows the model, its profile and its calibrated thresholds in stats', async () => {
    const ws = 'stats';
    await captureAll(t, ws, [EVENT]);
    await t.server.semantic()?.settled();
    const { semantic } = (await t.gqlOk(STATS, {}, { workspace: ws })).stats;
    expect(semantic).toMatchObject({ profile: 'minilm', dim: 384, vectors: 1, lacking: 0 });
    expect(semantic.model).toMatch(/^all-MiniLM-L6-v2-minilm-/);
    const { similarMax: _, ...thresholds } = PROFILES.minilm.thresholds;
    expect(semantic.thresholds).toEqual(thresholds);
  });

  it('finds an answer that shares no word with the question', async () => {
    const ws = 'nowords';
    const ids = await captureAll(t, ws, [...FILLER, UNRELATED]);
    await t.server.semantic()?.settled();
    const out = await recall('which hound did her sibling get', ws);
    expect(out.vectorArm.skipped).toBeNull();
    expect(out.hits[0]!.entry.id).toBe(ids.at(-1));
    expect(out.hits[0]!.arms).toEqual(['VECTOR']);
  });

  it('ranks keyword and graph hits as keyword-only does: the walk leaves INFERRED links to the vector arm', async () => {
    const ws = 'inferred-walk';
    const [hit, inferred, explicit] = await captureAll(t, ws, [EVENT, UNRELATED, FILLER[2]!]);
    await t.server.semantic()?.settled();
    const LINK = `mutation ($input: LinkInput!) { link(input: $input) { edge { type } } }`;
    const link = (dst: string, provenance: string) =>
      t.gqlOk(LINK, { input: { src: hit, dst, type: 'RELATES_TO', weight: 0.9, provenance } }, { workspace: ws });
    await link(inferred!, 'INFERRED');
    await link(explicit!, 'EXPLICIT');
    const out = await recall('bank job', ws);
    const arms = (id: string) => out.hits.find((h) => h.entry.id === id)?.arms ?? [];
    expect(out.hits[0]!.entry.id).toBe(hit);
    // The cosine already counts in the vector arm; a link made from it is not walked as well.
    expect(arms(inferred!)).not.toContain('GRAPH');
    expect(arms(explicit!)).toContain('GRAPH');
  });

  it('judges a paraphrase a duplicate, a retelling similar and unrelated turns neither, at the profile thresholds', async () => {
    const ws = 'calibrated';
    const [event] = await captureAll(t, ws, [EVENT, ...FILLER]);
    await t.server.semantic()?.settled();
    const { duplicate, similar, link } = PROFILES.minilm.thresholds;
    // With no query prefix (MiniLM), a query's vector is the vector the text would be stored under.
    const cosineTo = async (text: string) =>
      (await recall(text, ws)).hits.find((h) => h.entry.id === event)?.explain.cosine ?? -1;
    expect(await cosineTo(PARAPHRASE)).toBeGreaterThanOrEqual(duplicate);
    const retold = await cosineTo(RETOLD);
    expect(retold).toBeGreaterThanOrEqual(similar);
    expect(retold).toBeLessThan(duplicate);
    for (const text of [UNRELATED, ...FILLER]) expect(await cosineTo(text)).toBeLessThan(link);
  });

  it('links a capture to a look-alike only above the link threshold', async () => {
    const ws = 'links';
    const [event] = await captureAll(t, ws, [EVENT, ...FILLER]);
    const [retold, unrelated] = await captureAll(t, ws, [RETOLD, UNRELATED]);
    await t.server.semantic()?.settled();
    const connections = async (id: string) =>
      (await t.gqlOk(CONNECTIONS, { id }, { workspace: ws })).entry.connections as {
        edge: { type: string; provenance: string; weight: number };
        entry: { id: string };
      }[];
    const linked = await connections(retold!);
    expect(linked.map((c) => c.entry.id)).toEqual([event]);
    expect(linked[0]!.edge).toMatchObject({ type: 'RELATES_TO', provenance: 'INFERRED' });
    expect(linked[0]!.edge.weight).toBeGreaterThanOrEqual(PROFILES.minilm.thresholds.link);
    expect(await connections(unrelated!)).toEqual([]);
  });
});

describe.skipIf(!model.dir)('onnx model profiles', () => {
  it('puts the document prefix before stored content and rebuilds every vector when the profile changes', async () => {
    const first = await startTestServer({ config: onnxConfig(model.dir!) });
    const ws = 'prefix';
    const dbPath = first.dbPath(ws);
    const [id] = await captureAll(first, ws, [EVENT]);
    await first.server.semantic()?.settled();
    const plain = await storedVector(dbPath, id!);
    await first.server.stop();

    const profile = { ...NO_PROFILE_SETTINGS, documentPrefix: 'passage: ', queryPrefix: 'query: ' };
    const second = await startTestServer({
      config: { ...onnxConfig(model.dir!, { profile }), dataDir: first.dataDir },
    });
    const reference = await OnnxEmbedder.load({
      dir: model.dir!,
      name: null,
      profile: PROFILES.minilm,
      threads: 1,
      chunk: 16,
      maxPendingTexts: 64,
      queryTimeoutMs: 60_000,
    });
    try {
      // The workspace is opened (and its queue started) by its first request.
      await second.gqlOk(STATS, {}, { workspace: ws });
      await second.server.semantic()?.settled();
      const prefixed = await storedVector(dbPath, id!);
      expect(prefixed.model).not.toBe(plain.model);
      expect(prefixed.model).toMatch(/minilm-custom/);
      const [withPrefix, without] = (await reference.embed(null, [`passage: ${EVENT}`, EVENT], 'document')).vectors;
      expect(dot(plain.vector, without!)).toBeGreaterThan(0.9999);
      expect(dot(prefixed.vector, withPrefix!)).toBeGreaterThan(0.9999);
      expect(dot(prefixed.vector, without!)).toBeLessThan(0.999);
      const stats = (await second.gqlOk(STATS, {}, { workspace: ws })).stats.semantic;
      expect(stats).toMatchObject({ model: prefixed.model, profile: 'minilm-custom', vectors: 1, lacking: 0 });
    } finally {
      await reference.close();
      await second.stop();
    }
  }, 300_000);

  it("returns a batch's vectors in its texts' order, though it runs them shortest first", async () => {
    // Chunks of two: the six texts run as three chunks of like length, not in the order given.
    const embedder = await OnnxEmbedder.load({
      dir: model.dir!,
      name: null,
      profile: PROFILES.minilm,
      threads: 1,
      chunk: 2,
      maxPendingTexts: 4096,
      queryTimeoutMs: 60_000,
    });
    try {
      const texts = [FILLER[3]!, 'Hi.', EVENT, 'See you then!', FILLER[0]!, UNRELATED];
      const together = (await embedder.embed(null, texts, 'document')).vectors;
      for (const [i, text] of texts.entries()) {
        const [alone] = (await embedder.embed(null, [text], 'document')).vectors;
        expect(dot(together[i]!, alone!)).toBeGreaterThan(0.999);
      }
    } finally {
      await embedder.close();
    }
  }, 300_000);

  it('sends the profile prefixes and input_type to an http endpoint serving the same model', async () => {
    const embedder = await OnnxEmbedder.load({
      dir: model.dir!,
      name: null,
      profile: PROFILES.minilm,
      threads: 1,
      chunk: 16,
      maxPendingTexts: 4096,
      queryTimeoutMs: 60_000,
    });
    const endpoint = await startEmbeddingsServer({
      model: { dim: embedder.dim, embed: async (texts) => (await embedder.embed(null, texts, 'document')).vectors },
    });
    const profile = { ...NO_PROFILE_SETTINGS, profile: 'e5-small' as const, inputType: true };
    const t = await startTestServer({
      config: onnxConfig(model.dir!, {
        kind: 'http',
        url: endpoint.url,
        model: 'served-minilm',
        profile,
        queryTimeoutMs: 30_000,
      }),
    });
    try {
      const ws = 'http-prefix';
      await captureAll(t, ws, [EVENT, UNRELATED]);
      await t.server.semantic()?.settled();
      const out = (await t.gqlOk(RECALL, { q: 'what did Jon do after losing work' }, { workspace: ws })).recall;
      expect(out.vectorArm.skipped).toBeNull();
      const documents = endpoint.requests.filter((r) => r.inputType === 'document').flatMap((r) => r.input);
      expect(documents).toEqual(expect.arrayContaining([`passage: ${EVENT}`, `passage: ${UNRELATED}`]));
      const queries = endpoint.requests.filter((r) => r.inputType === 'query').flatMap((r) => r.input);
      expect(queries).toEqual(['query: what did Jon do after losing work']);
      const stats = (await t.gqlOk(STATS, {}, { workspace: ws })).stats.semantic;
      const { similarMax: _, ...thresholds } = PROFILES['e5-small'].thresholds;
      expect(stats).toMatchObject({ profile: 'e5-small', thresholds });
    } finally {
      await t.stop();
      await endpoint.close();
      await embedder.close();
    }
  }, 300_000);

  it('restores keyword-only results exactly when the binding is turned off', async () => {
    // No two alike enough to link: the stored vectors are all the model left behind.
    const texts = [EVENT, UNRELATED, ...FILLER];
    const queries = ['deploy failed', 'what did Jon do after losing work', 'dog', 'violin practice', 'bank job'];
    const ws = 'off-again';
    const keywordOnly = await startTestServer({ config: offConfig });
    const withModel = await startTestServer({ config: onnxConfig(model.dir!) });
    let off: TestServer | null = null;
    try {
      const textOf = new Map<string, number>();
      // The same texts twice on the model's server: one workspace is recalled while the model
      // is on, the other only after it is off (recalls bump recall counts, which rank).
      for (const [server, workspace] of [
        [keywordOnly, ws],
        [withModel, ws],
        [withModel, `${ws}-on`],
      ] as const) {
        for (const [i, id] of (await captureAll(server, workspace, texts)).entries()) textOf.set(id, i);
      }
      await withModel.gqlOk(STATS, {}, { workspace: ws });
      await withModel.server.semantic()?.settled();
      for (const workspace of [ws, `${ws}-on`]) {
        const stats = (await withModel.gqlOk('{ stats { edges semantic { vectors } } }', {}, { workspace })).stats;
        expect(stats).toEqual({ edges: 0, semantic: { vectors: texts.length } });
      }
      // Hits as the texts they are (ids differ between servers), with their arms, and their
      // scores apart: those decay with the entries' age, which differs by the seconds between
      // the two servers' captures.
      const scores: number[][] = [];
      const ranked = async (server: TestServer, workspace = ws) => {
        const out: unknown[] = [];
        const own: number[] = [];
        for (const q of queries) {
          const r = (await server.gqlOk(RECALL, { q }, { workspace })).recall as { hits: Hit[]; vectorArm: unknown };
          out.push({ vectorArm: r.vectorArm, hits: r.hits.map((h) => [textOf.get(h.entry.id), h.arms]) });
          own.push(...r.hits.map((h) => h.score));
        }
        scores.push(own);
        return out;
      };
      const on = await ranked(withModel, `${ws}-on`);
      await withModel.server.stop();
      off = await startTestServer({ config: { ...offConfig, dataDir: withModel.dataDir } });
      const expected = await ranked(keywordOnly);
      expect(await ranked(off)).toEqual(expected);
      const [, keyword = [], turnedOff = []] = scores;
      for (const [i, score] of turnedOff.entries()) expect(score).toBeCloseTo(keyword[i]!, 1);
      // The model did change them while on.
      expect(on).not.toEqual(expected);
    } finally {
      await keywordOnly.stop();
      await off?.stop();
    }
  }, 300_000);
});
