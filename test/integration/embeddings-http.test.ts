import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddingsConfig } from '../../src/config.ts';
import { runCli } from '../helpers/cli.ts';
import { type EmbeddingsServer, httpEmbeddingsConfig, startEmbeddingsServer } from '../helpers/embeddings-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { openWorkspaceDb } from '../helpers/workspace-db.ts';

// A real OpenAI-compatible endpoint (test/helpers/embeddings-server.ts) serves real vectors:
// GloVe's when the vectors are at hand, a hashed bag of words otherwise.
const httpConfig = (endpoint: EmbeddingsServer, model: string, extra: Partial<EmbeddingsConfig> = {}) =>
  httpEmbeddingsConfig(endpoint, model, { timeoutMs: 400, ...extra });

const CAPTURE = `mutation ($input: CaptureInput!) { capture(input: $input) { outcome entry { id } } }`;
const RECALL = `query ($q: String!) { recall(query: $q, topK: 5) {
  vectorArm { model searched withoutVector skipped } hits { arms entry { id } } } }`;

const TEXTS = [
  'The production deploy failed on Friday because the database migration timed out.',
  'My sister adopted a golden retriever puppy last spring.',
  'We hiked the Appalachian trail for three days in October.',
  'The quarterly budget review moved to the finance office.',
  'Melanie painted a sunset over the lake with her kids.',
  'Jon opened a dance studio after losing his job at the bank.',
];

async function captureAll(t: TestServer, workspace: string, texts: readonly string[]) {
  const out = await Promise.all(texts.map((content) => t.gqlOk(CAPTURE, { input: { content } }, { workspace })));
  return out.map((o) => o.capture as { outcome: string; entry: { id: string } });
}

async function vectorModels(dbPath: string): Promise<string[]> {
  const db = await openWorkspaceDb(dbPath);
  try {
    const rows = await db.execute('SELECT model FROM entry_vectors ORDER BY entry_id');
    return rows.rows.map((r) => String(r.model));
  } finally {
    db.close();
  }
}

describe('http embeddings', () => {
  let endpoint: EmbeddingsServer;
  let t: TestServer;
  beforeAll(async () => {
    endpoint = await startEmbeddingsServer();
    console.info(`embeddings endpoint serves ${endpoint.source} vectors (${endpoint.dim} dimensions)`);
    t = await startTestServer({ config: httpConfig(endpoint, 'test-model-a') });
  }, 300_000);
  afterAll(async () => {
    await t?.stop();
    await endpoint?.close();
  });

  it('embeds captures in batches, after they are acknowledged', async () => {
    const ws = 'batching';
    endpoint.delayMs = 150;
    const before = endpoint.requests.length;
    const captured = await captureAll(t, ws, TEXTS);
    expect(captured.every((c) => c.outcome === 'STORED')).toBe(true);
    await t.server.semantic()?.settled();
    endpoint.delayMs = 0;
    const documentRequests = endpoint.requests.slice(before);
    const texts = documentRequests.flatMap((r) => r.input);
    for (const content of TEXTS) expect(texts).toContain(content);
    expect(documentRequests.length).toBeLessThan(TEXTS.length);
    expect(endpoint.batched).toBeGreaterThan(0);
    const out = (await t.gqlOk(RECALL, { q: 'which dog did her sister get' }, { workspace: ws })).recall;
    expect(out.vectorArm).toEqual({
      model: 'test-model-a',
      searched: TEXTS.length,
      withoutVector: 0,
      skipped: null,
    });
    expect(out.hits.some((h: { arms: string[] }) => h.arms.includes('VECTOR'))).toBe(true);
  });

  for (const failure of ['slow', 'failing'] as const) {
    it(`acknowledges captures while the endpoint is ${failure}, recalls by keyword with a reason, and fills vectors in after recovery`, async () => {
      const ws = `outage-${failure}`;
      if (failure === 'slow') endpoint.delayMs = 1_500;
      else endpoint.failStatus = 503;
      try {
        const captured = await captureAll(t, ws, TEXTS);
        expect(captured.every((c) => c.outcome === 'STORED')).toBe(true);
        const during = (await t.gqlOk(RECALL, { q: 'deploy migration' }, { workspace: ws })).recall;
        expect(during.vectorArm.skipped).toMatch(failure === 'slow' ? /timed out/ : /HTTP 503/);
        expect(during.vectorArm.withoutVector).toBeGreaterThan(0);
        expect(during.hits[0].entry.id).toBe(captured[0]!.entry.id);
        expect(during.hits[0].arms).not.toContain('VECTOR');
      } finally {
        endpoint.delayMs = 0;
        endpoint.failStatus = 0;
      }
      // The queue retries with backoff: recovery needs no new write.
      await t.server.semantic()?.settled();
      const after = (await t.gqlOk(RECALL, { q: 'deploy migration' }, { workspace: ws })).recall;
      expect(after.vectorArm).toMatchObject({ searched: TEXTS.length, withoutVector: 0, skipped: null });
      expect(after.hits[0].arms).toContain('VECTOR');
      const health = await fetch(`${t.origin}/health`);
      expect(health.status).toBe(200);
    }, 120_000);
  }
});

describe('changing the http model', () => {
  it('rebuilds every vector for the new model after a restart, and never mixes the two', async () => {
    const endpoint = await startEmbeddingsServer({ glove: false });
    const first = await startTestServer({ config: httpConfig(endpoint, 'model-one') });
    const dataDir = first.dataDir;
    const ws = 'model-change';
    // The restarted server reads the same files (startTestServer's own dbPath names its fresh dir).
    const dbPath = first.dbPath(ws);
    await captureAll(first, ws, TEXTS);
    await first.server.semantic()?.settled();
    expect(await vectorModels(dbPath)).toEqual(TEXTS.map(() => 'model-one'));
    await first.server.stop();

    const second = await startTestServer({ config: { ...httpConfig(endpoint, 'model-two'), dataDir } });
    try {
      // Vectors of another model never count: until rebuilt, entries recall by keyword.
      const stale = (await second.gqlOk(RECALL, { q: 'deploy migration' }, { workspace: ws })).recall;
      expect(stale.vectorArm.model).toBe('model-two');
      await second.server.semantic()?.settled();
      expect(await vectorModels(dbPath)).toEqual(TEXTS.map(() => 'model-two'));
      const rebuilt = (await second.gqlOk(RECALL, { q: 'deploy migration' }, { workspace: ws })).recall;
      expect(rebuilt.vectorArm).toMatchObject({ model: 'model-two', searched: TEXTS.length, withoutVector: 0 });
      const asked = endpoint.requests.filter((r) => r.model === 'model-two').flatMap((r) => r.input);
      for (const content of TEXTS) expect(asked).toContain(content);
    } finally {
      await second.stop();
      await endpoint.close();
    }
  }, 120_000);
});

const STATS = `{ stats { entries semantic { model dim vectors lacking thresholds { duplicate similar link linksMax } } } }`;

describe('vectors in stats, check and reindex --vectors', () => {
  it('counts vectors and reports the thresholds; the command line checks and rebuilds them', async () => {
    const endpoint = await startEmbeddingsServer({ glove: false });
    const t = await startTestServer({ config: httpConfig(endpoint, 'model-one') });
    const ws = 'cli-vectors';
    const dbPath = t.dbPath(ws);
    const env = (model: string, kind = 'http') => ({
      SPHERE_DATA_DIR: t.dataDir,
      SPHERE_EMBEDDINGS: kind,
      SPHERE_EMBEDDINGS_URL: endpoint.url,
      SPHERE_EMBEDDINGS_MODEL: model,
    });
    try {
      endpoint.failStatus = 500;
      await captureAll(t, ws, TEXTS);
      const pending = (await t.gqlOk(STATS, {}, { workspace: ws })).stats.semantic;
      expect(pending).toMatchObject({ model: 'model-one', dim: endpoint.dim, lacking: TEXTS.length, vectors: 0 });
      expect(pending.thresholds).toEqual({ duplicate: 0.95, similar: 0.85, link: 0.78, linksMax: 3 });
      endpoint.failStatus = 0;
      await t.server.semantic()?.settled();
      const filled = (await t.gqlOk(STATS, {}, { workspace: ws })).stats.semantic;
      expect(filled).toMatchObject({ vectors: TEXTS.length, lacking: 0 });

      const current = await runCli(['check', '--workspace', ws, '--json'], env('model-one'));
      expect(current.code).toBe(0);
      expect(JSON.parse(current.stdout).vectors).toEqual({ model: 'model-one', current: TEXTS.length, lacking: 0 });
      // Another model configured: every vector counts as lacking, which is reported but is no integrity problem.
      const other = await runCli(['check', '--workspace', ws], env('model-two'));
      expect(other.code).toBe(0);
      expect(other.stdout).toMatch(new RegExp(`vectors +model-two: 0 current, ${TEXTS.length} lacking`));

      const refused = await runCli(['reindex', '--workspace', ws, '--vectors'], env('x', 'off'));
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/--vectors needs an embedding model/);
      expect(await vectorModels(dbPath)).toEqual(TEXTS.map(() => 'model-one'));

      const rebuilt = await runCli(['reindex', '--workspace', ws, '--vectors'], env('model-two'));
      expect(rebuilt.code).toBe(0);
      expect(rebuilt.stdout).toMatch(new RegExp(`${TEXTS.length} vectors of model-two \\(${TEXTS.length} dropped\\)`));
      expect(await vectorModels(dbPath)).toEqual(TEXTS.map(() => 'model-two'));
      const after = await runCli(['check', '--workspace', ws, '--json'], env('model-two'));
      expect(JSON.parse(after.stdout).vectors).toEqual({ model: 'model-two', current: TEXTS.length, lacking: 0 });
    } finally {
      endpoint.failStatus = 0;
      await t.stop();
      await endpoint.close();
    }
  }, 120_000);

  it('stats says nothing of vectors with embeddings off', async () => {
    const t = await startTestServer();
    try {
      expect((await t.gqlOk(STATS)).stats.semantic).toBeNull();
    } finally {
      await t.stop();
    }
  });
});
