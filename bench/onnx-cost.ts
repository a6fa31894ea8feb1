/**
 * What the in-process sentence model costs, measured in one run on this machine:
 *  - capture acknowledgement latency, embeddings off against onnx, both servers up at once
 *    and asked in alternating rounds (with onnx the model embeds in the background meanwhile);
 *  - the time until every vector of an import exists (entries written with embeddings off,
 *    then a server with onnx opens the workspace and fills them in), i.e. texts/s;
 *  - the process's RSS with the model loaded and the workspace's vectors cached.
 *
 *   npx tsx bench/onnx-cost.ts [--entries 10000] [--acks 400]
 *   SPHERE_EMBEDDINGS_MODEL_DIR=...   (default .models/all-MiniLM-L6-v2, see scripts/fetch-model.sh)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { buildServer } from '../src/server/server.ts';
import { loadLocomo, REPO_ROOT } from './locomo.ts';

const MODEL_DIR = process.env.SPHERE_EMBEDDINGS_MODEL_DIR ?? join(REPO_ROOT, '.models', 'all-MiniLM-L6-v2');
const CAPTURE = `mutation ($input: CaptureInput!) { capture(input: $input) { outcome } }`;

async function start(dataDir: string, onnx: boolean) {
  const env = onnx ? { SPHERE_EMBEDDINGS: 'onnx', SPHERE_EMBEDDINGS_MODEL_DIR: MODEL_DIR } : {};
  const server = buildServer(
    loadConfig(env, { port: 0, host: '127.0.0.1', dataDir, rateLimit: 0, logLevel: 'silent' }),
  );
  const { url } = await server.start();
  return { server, url: `${url.replace(/\/$/, '').replace(/\/graphql$/, '')}/graphql` };
}

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

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { entries: { type: 'string' }, acks: { type: 'string' } } });
  const entries = Number(values.entries ?? 10_000);
  const acks = Number(values.acks ?? 400);
  const dirs = [mkdtempSync(join(tmpdir(), 'onnx-cost-off-')), mkdtempSync(join(tmpdir(), 'onnx-cost-on-'))];
  try {
    // 1. Acknowledgement latency, alternating rounds of 50 on both servers.
    const off = await start(dirs[0]!, false);
    const on = await start(dirs[1]!, true);
    const ackTexts = texts(acks);
    const lat = { off: [] as number[], onnx: [] as number[] };
    for (let i = 0; i < acks; i += 50) {
      const round = ackTexts.slice(i, i + 50);
      lat.off.push(...(await captureAll(off.url, 'acks', round, 4)));
      lat.onnx.push(...(await captureAll(on.url, 'acks', round, 4)));
    }
    const p95 = { off: pct(lat.off, 0.95), onnx: pct(lat.onnx, 0.95) };
    console.log(
      `capture ack p50/p95 ms: off ${pct(lat.off, 0.5).toFixed(1)}/${p95.off.toFixed(1)}, onnx ${pct(lat.onnx, 0.5).toFixed(1)}/${p95.onnx.toFixed(1)} (p95 ratio ${(p95.onnx / p95.off).toFixed(2)}×)`,
    );
    await on.server.semantic()?.settled();
    await on.server.stop();

    // 2. An import of `entries`, then the time until every vector exists.
    const all = texts(entries);
    const t0 = performance.now();
    await captureAll(off.url, 'import', all, 8);
    console.log(`imported ${entries} entries with embeddings off in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await off.server.stop();
    const rssBefore = process.memoryUsage().rss;
    const filled = await start(dirs[0]!, true);
    const rssModel = process.memoryUsage().rss;
    const t1 = performance.now();
    await gql(filled.url, 'import', '{ stats { entries } }');
    await filled.server.semantic()?.settled();
    const seconds = (performance.now() - t1) / 1000;
    const stats = (await gql(filled.url, 'import', '{ stats { semantic { vectors lacking } } }')).stats as {
      semantic: { vectors: number; lacking: number };
    };
    console.log(
      `every vector of ${stats.semantic.vectors} entries (lacking ${stats.semantic.lacking}) in ${seconds.toFixed(1)} s: ${(stats.semantic.vectors / seconds).toFixed(0)} texts/s`,
    );
    const mb = (b: number) => (b / 1024 / 1024).toFixed(0);
    console.log(
      `process RSS: ${mb(rssBefore)} MB before the model, ${mb(rssModel)} MB with it loaded, ${mb(process.memoryUsage().rss)} MB with ${stats.semantic.vectors} vectors made and cached`,
    );
    await filled.server.stop();
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

await main();
