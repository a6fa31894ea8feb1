/**
 * What the in-process sentence model costs, measured in one run on this machine:
 *  - the model's own throughput: the embedder alone on the import's first texts, given at
 *    once (its ceiling on this machine, the baseline the fill-in is held against);
 *  - capture acknowledgement latency, embeddings off against onnx, both servers up at once
 *    and asked in alternating rounds (with onnx the model embeds in the background meanwhile);
 *  - the time until every vector of an import exists (entries written with embeddings off,
 *    then a server with onnx opens the workspace and fills them in), i.e. texts/s;
 *  - recall latency on that workspace, keyword-only against onnx (the query embedded),
 *    alternating rounds of LoCoMo questions on two servers over copies of it;
 *  - the server process's RSS at `--rss-entries` entries, keyword-only against onnx with every
 *    vector in place and cached (two `mini-sphere serve` processes, one after the other).
 *
 *   npx tsx bench/onnx-cost.ts [--entries 10000] [--acks 400] [--recalls 200] [--rss-entries 100000]
 *   SPHERE_EMBEDDINGS_MODEL_DIR=...   (default .models/all-MiniLM-L6-v2, see scripts/fetch-model.sh)
 *   LOCOMO_PATH=...                   (the texts and questions: LoCoMo's turns, repeated with a counter)
 *
 * At --rss-entries the texts past LoCoMo's 5,882 turns are turns with a counter appended;
 * their vectors are the turn's own vector, copied (the model would take an hour for them
 * here, and memory does not depend on what the vectors hold), stored under the model's name
 * so the server counts them as current.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '@libsql/client';
import { loadConfig } from '../src/config.ts';
import { OnnxEmbedder } from '../src/memory/embeddings/onnx.ts';
import { NO_PROFILE_SETTINGS, resolveProfile } from '../src/memory/embeddings/profile.ts';
import { buildServer } from '../src/server/server.ts';
import { startServerProcess } from '../test/helpers/cli.ts';
import { loadLocomo, REPO_ROOT } from './locomo.ts';

const MODEL_DIR = process.env.SPHERE_EMBEDDINGS_MODEL_DIR ?? join(REPO_ROOT, '.models', 'all-MiniLM-L6-v2');
const CAPTURE = `mutation ($input: CaptureInput!) { capture(input: $input) { outcome } }`;
const RECALL = `query ($q: String!) { recall(query: $q, topK: 10) { hits { rank } } }`;
const ONNX_ENV = { SPHERE_EMBEDDINGS: 'onnx', SPHERE_EMBEDDINGS_MODEL_DIR: MODEL_DIR };

async function start(dataDir: string, onnx: boolean) {
  const server = buildServer(
    loadConfig(onnx ? ONNX_ENV : {}, { port: 0, host: '127.0.0.1', dataDir, rateLimit: 0, logLevel: 'silent' }),
  );
  const { url } = await server.start();
  return { server, url: graphqlUrl(url) };
}

const graphqlUrl = (url: string) => `${url.replace(/\/$/, '').replace(/\/graphql$/, '')}/graphql`;

async function gql(url: string, workspace: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: Record<string, unknown>; errors?: { message: string }[] };
  if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join('; '));
  return body.data!;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))]!;
const ms = (xs: number[]) => `${pct(xs, 0.5).toFixed(1)}/${pct(xs, 0.95).toFixed(1)}`;
const mb = (b: number) => (b / 1024 / 1024).toFixed(0);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Every LoCoMo turn, repeated with a counter until there are `n` distinct texts. */
function texts(n: number): string[] {
  const turns = loadLocomo().flatMap((c) => c.turns.map((t) => t.content));
  return Array.from({ length: n }, (_, i) => `${turns[i % turns.length]}${i >= turns.length ? ` (${i})` : ''}`);
}

async function captureAll(url: string, workspace: string, all: string[], concurrency = 8): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < all.length) {
        const content = all[next++]!;
        const t0 = performance.now();
        await gql(url, workspace, CAPTURE, { input: { content } });
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies;
}

/** The model alone, on its own thread, as the server runs it: texts/s over `sample`. */
async function modelThroughput(sample: string[]): Promise<number> {
  const model = await OnnxEmbedder.load({
    dir: MODEL_DIR,
    name: null,
    profile: resolveProfile({ ...NO_PROFILE_SETTINGS }, MODEL_DIR),
    threads: 1,
    chunk: 16,
    maxPendingTexts: sample.length,
    queryTimeoutMs: 60_000,
  });
  try {
    // All at once: the model never waits, and its chunks are as alike in length as they get.
    const t0 = performance.now();
    await model.embed(null, sample, 'document');
    return sample.length / ((performance.now() - t0) / 1000);
  } finally {
    await model.close();
  }
}

/** Recall latency, keyword-only against onnx, in alternating rounds of the same questions. */
async function recallLatency(off: string, onnx: string, workspace: string, count: number) {
  const questions = loadLocomo()
    .flatMap((c) => c.questions.map((q) => q.question))
    .slice(0, count);
  const lat = { off: [] as number[], onnx: [] as number[] };
  for (let i = 0; i < questions.length; i += 20) {
    for (const [mode, url] of [
      ['off', off],
      ['onnx', onnx],
    ] as const) {
      for (const q of questions.slice(i, i + 20)) {
        const t0 = performance.now();
        await gql(url, workspace, RECALL, { q });
        lat[mode].push(performance.now() - t0);
      }
    }
  }
  return lat;
}

/** A workspace's database file in a data directory. */
function workspaceFile(dataDir: string, workspace: string): string {
  const file = join(dataDir, `${workspace}.db`);
  if (!existsSync(file)) throw new Error(`no database of workspace ${workspace} in ${dataDir}`);
  return file;
}

/**
 * Gives every entry of `target` the vector its LoCoMo turn has in `source` (where the model
 * made it), under the same model name: the server then counts them current and caches them.
 */
async function copyVectors(source: string, target: string): Promise<number> {
  const from = createClient({ url: `file:${source}` });
  const to = createClient({ url: `file:${target}` });
  try {
    const rows = (
      await from.execute(
        'SELECT e.content AS content, v.model AS model, v.dim AS dim, v.vector AS vector FROM entries e JOIN entry_vectors v ON v.entry_id = e.id',
      )
    ).rows;
    const byTurn = new Map(rows.map((r) => [String(r.content), r]));
    const entries = (await to.execute('SELECT id, content, content_hash FROM entries')).rows;
    let copied = 0;
    for (let i = 0; i < entries.length; i += 2_000) {
      const batch = entries.slice(i, i + 2_000).flatMap((e) => {
        const v = byTurn.get(String(e.content).replace(/ \(\d+\)$/, ''));
        if (!v) return [];
        return [
          {
            sql: 'INSERT OR REPLACE INTO entry_vectors (entry_id, model, dim, content_hash, docs, vector) VALUES (?, ?, ?, ?, 0, ?)',
            args: [e.id!, v.model!, v.dim!, e.content_hash!, v.vector!],
          },
        ];
      });
      await to.batch(batch, 'write');
      copied += batch.length;
    }
    return copied;
  } finally {
    from.close();
    to.close();
  }
}

/** A `mini-sphere serve` process on `dataDir`: its RSS once the workspace is open and recalled from. */
async function serverRss(dataDir: string, workspace: string, onnx: boolean): Promise<{ rss: number; stats: string }> {
  const env: Record<string, string> = { SPHERE_DATA_DIR: dataDir, SPHERE_RATE_LIMIT: '0', LOG_LEVEL: 'warn' };
  const proc = await startServerProcess(onnx ? { ...env, ...ONNX_ENV } : env);
  try {
    const url = graphqlUrl(proc.url);
    for (const q of loadLocomo()[0]!
      .questions.slice(0, 20)
      .map((x) => x.question))
      await gql(url, workspace, RECALL, { q });
    const stats = await gql(url, workspace, '{ stats { entries semantic { vectors lacking } } }');
    await new Promise((r) => setTimeout(r, 2_000));
    const status = readFileSync(`/proc/${proc.child.pid}/status`, 'utf8');
    return { rss: Number(/VmRSS:\s+(\d+)/.exec(status)![1]) * 1024, stats: JSON.stringify(stats.stats) };
  } finally {
    proc.child.kill('SIGTERM');
    await proc.exited;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      entries: { type: 'string' },
      acks: { type: 'string' },
      recalls: { type: 'string' },
      'rss-entries': { type: 'string' },
    },
  });
  const entries = Number(values.entries ?? 10_000);
  const acks = Number(values.acks ?? 400);
  const recalls = Number(values.recalls ?? 200);
  const rssEntries = Number(values['rss-entries'] ?? 100_000);
  const dirs = Array.from({ length: 4 }, (_, i) => mkdtempSync(join(tmpdir(), `onnx-cost-${i}-`)));
  console.log(`load average at start: ${load()}`);
  try {
    // 0. The model alone: the rate the fill-in below is held against.
    const all = texts(entries);
    const raw = await modelThroughput(all.slice(0, Math.min(1_024, entries)));
    console.log(`model alone: ${raw.toFixed(1)} texts/s (${Math.min(1_024, entries)} texts given at once)`);

    // 1. Acknowledgement latency, alternating rounds of 50 on both servers.
    const off = await start(dirs[0]!, false);
    const on = await start(dirs[1]!, true);
    // A first round on each, not counted: the first writes of a workspace open and migrate it.
    await captureAll(off.url, 'acks', texts(acks + 20).slice(acks), 4);
    await captureAll(on.url, 'acks', texts(acks + 20).slice(acks), 4);
    const ackTexts = texts(acks);
    const lat = { off: [] as number[], onnx: [] as number[] };
    for (let i = 0; i < acks; i += 50) {
      const round = ackTexts.slice(i, i + 50);
      lat.off.push(...(await captureAll(off.url, 'acks', round, 4)));
      lat.onnx.push(...(await captureAll(on.url, 'acks', round, 4)));
    }
    const p95 = { off: pct(lat.off, 0.95), onnx: pct(lat.onnx, 0.95) };
    console.log(
      `capture ack p50/p95 ms: off ${ms(lat.off)}, onnx ${ms(lat.onnx)} (p95 ratio ${(p95.onnx / p95.off).toFixed(2)}×)`,
    );
    await on.server.semantic()?.settled();
    await on.server.stop();

    // 2. An import of `entries`, then the time until every vector exists.
    const t0 = performance.now();
    await captureAll(off.url, 'import', all, 8);
    console.log(`imported ${entries} entries with embeddings off in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await off.server.stop();
    rmSync(dirs[1]!, { recursive: true, force: true });
    cpSync(dirs[0]!, dirs[1]!, { recursive: true });
    const filled = await start(dirs[0]!, true);
    const t1 = performance.now();
    await gql(filled.url, 'import', '{ stats { entries } }');
    await filled.server.semantic()?.settled();
    const seconds = (performance.now() - t1) / 1000;
    const stats = (await gql(filled.url, 'import', '{ stats { semantic { vectors lacking } } }')).stats as {
      semantic: { vectors: number; lacking: number };
    };
    const rate = stats.semantic.vectors / seconds;
    console.log(
      `every vector of ${stats.semantic.vectors} entries (lacking ${stats.semantic.lacking}) in ${seconds.toFixed(1)} s: ${rate.toFixed(1)} texts/s, ${((100 * rate) / raw).toFixed(0)}% of the model alone (load ${load()})`,
    );

    // 3. Recall latency over the filled workspace: keyword-only on a copy made before the fill.
    const keyword = await start(dirs[1]!, false);
    const rl = await recallLatency(keyword.url, filled.url, 'import', recalls);
    console.log(
      `recall p50/p95 ms at ${entries} entries (topK 10): off ${ms(rl.off)}, onnx ${ms(rl.onnx)} (load ${load()})`,
    );
    await keyword.server.stop();
    await filled.server.stop();

    // 4. RSS at `rssEntries`, each server its own process.
    if (rssEntries > 0) {
      const big = await start(dirs[2]!, false);
      const t2 = performance.now();
      await captureAll(big.url, 'rss', texts(rssEntries), 8);
      await big.server.stop();
      console.log(`imported ${rssEntries} entries in ${((performance.now() - t2) / 1000).toFixed(1)} s`);
      const copied = await copyVectors(workspaceFile(dirs[0]!, 'import'), workspaceFile(dirs[2]!, 'rss'));
      console.log(`copied ${copied} vectors of the model`);
      const kw = await serverRss(dirs[2]!, 'rss', false);
      const model = await serverRss(dirs[2]!, 'rss', true);
      console.log(`server RSS at ${rssEntries} entries: keyword-only ${mb(kw.rss)} MB ${kw.stats}`);
      console.log(
        `server RSS at ${rssEntries} entries: onnx ${mb(model.rss)} MB ${model.stats} (+${mb(model.rss - kw.rss)} MB)`,
      );
    }
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

await main();
