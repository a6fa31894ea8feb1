/**
 * The reader pool (SPHERE_READER_THREADS), measured on copies of one corpus file in one run:
 *
 *   - recall throughput, 8 clients at once: the pool (one thread per core) against one reader
 *     thread, as the ratio of their medians over alternating rounds; target ≥ 1.6× at 100k;
 *   - single-request recall latency (p50, one at a time): the pool against reads on the event
 *     loop (SPHERE_READER_THREADS=0, how every read ran before); target ≤ 1.1×;
 *   - from a cold start, the event loop's longest stall during the first 100 recalls; target
 *     ≤ 100 ms.
 *
 * Each configuration gets a server of its own; throughput and latency runs alternate between
 * configurations, so drift on a busy machine falls on both alike. Each server first answers
 * WARM_RECALLS other recalls, in slices that alternate between the servers as the rounds do
 * (one after the other, the first server sat idle for a minute before it was measured, and
 * its task databases gave their lanes back). Every task thread compiles recall's code and
 * fills its caches (the stems it keeps, its page caches) for itself, from the recalls it
 * answers, so the pool's two threads warm up at half the pace of one: after 300 recalls
 * the pool measured 91–104 recalls/s in eleven runs at 100k, after 1,200 95–108 and after
 * 2,400 104–108, while one thread measured 50–67 after any of them. The same number for
 * every server, 600 for each of the pool's threads, measures the servers, not their warm-up.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, fdatasyncSync, openSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { copyTemplate } from './load.ts';
import { RECALL } from './operations.ts';
import {
  type GqlClient,
  gqlClient,
  type LatencySummary,
  pool,
  type ServerChild,
  scrapeLoopDelay,
  sleep,
  startServer,
  summarize,
} from './util.ts';

const WORKSPACE = 'perf';
const CLIENTS = 8;
/**
 * Throughput rounds per configuration, alternating (pool, one, one, pool, …): a round takes
 * 2–3 s at 100k, and on a busy machine one round can come out 20% off either way.
 */
const THROUGHPUT_ROUNDS = 6;
/** Recalls each server answers before it is measured (see above), and the slices they come in. */
const WARM_RECALLS = 1_200;
const WARM_SLICES = 4;

export interface ReadersResult {
  threads: number;
  /** Recalls per second with 8 clients (medians of the rounds): the pool, one reader thread, and their ratio. */
  throughput: { pool: number; one: number; ratio: number; rounds: { pool: number[]; one: number[] } };
  /** One recall at a time: the pool against reads on the event loop, and the ratio of their p50s. */
  latency: { pool: LatencySummary; onLoop: LatencySummary; ratio: number };
  /** From a cold start (fresh server, fresh file copy): the event loop's delay over the first 100 recalls. */
  coldStart: ColdStart;
}

export interface ColdStart {
  recalls: number;
  /** Whether the copy's pages were dropped from the OS page cache first (else the copy left them cached). */
  fileCacheDropped: boolean;
  /** The server's event-loop delay over the recalls (monitorEventLoopDelay, on /metrics). */
  loopMaxMs: number;
  loopP99Ms: number;
  /** A /health request every 10 ms beside the recalls: what a client of another workspace waits. */
  health: LatencySummary;
  /** The first recall (it opens the workspace: connection, migrations check, impact index). */
  firstRecallMs: number;
  recallP99Ms: number;
  recallMaxMs: number;
}

/**
 * Drops a file's pages from the OS page cache, so the server that opens it next reads it
 * from disk: synced first (a copy just written is all dirty pages, which stay cached), then
 * `dd iflag=nocache count=0` (GNU coreutils; POSIX_FADV_DONTNEED on the whole file, which
 * needs no privileges). False where that is not available: the file then stays cached.
 */
export function dropFromPageCache(file: string): boolean {
  const fd = openSync(file, 'r+');
  try {
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const dd = spawnSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none'], { stdio: 'ignore' });
  return dd.status === 0;
}

/** GET /health every `everyMs` until stopped; the latencies of those answered. */
function probeHealth(url: string, everyMs: number): { stop(): Promise<number[]> } {
  const samples: number[] = [];
  const health = new URL('/health', url);
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        await (await fetch(health)).arrayBuffer();
        samples.push(performance.now() - t0);
      } catch {
        // A refused probe is not a latency; the recalls report their own failures.
      }
      await sleep(Math.max(0, everyMs - (performance.now() - t0)));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

interface Running {
  server: ServerChild;
  /** Whether the file's pages were dropped from the OS cache before the server started. */
  dropped: boolean;
  api: GqlClient;
  stop(): Promise<void>;
}

async function serve(template: string, dir: string, readers: number, cold = false): Promise<Running> {
  rmSync(dir, { recursive: true, force: true });
  const file = copyTemplate(template, dir, WORKSPACE);
  const dropped = cold && dropFromPageCache(file);
  const server = await startServer({
    dataDir: dir,
    logFile: join(dir, 'server.log'),
    env: { SPHERE_READER_THREADS: String(readers) },
  });
  const api = gqlClient(server.url, WORKSPACE);
  return {
    server,
    api,
    dropped,
    stop: async () => {
      api.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function throughput(api: GqlClient, queries: readonly string[]): Promise<number> {
  const t0 = performance.now();
  await pool(queries, CLIENTS, async (q) => {
    await api.request(RECALL, { q });
  });
  return (queries.length * 1000) / (performance.now() - t0);
}

async function oneAtATime(api: GqlClient, queries: readonly string[]): Promise<number[]> {
  const out: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    await api.request(RECALL, { q });
    out.push(performance.now() - t0);
  }
  return out;
}

export async function measureReaders(
  template: string,
  workDir: string,
  queries: readonly string[],
  /** Other queries than `queries`, to warm each server with (WARM_RECALLS of them). */
  warmQueries: readonly string[],
  /** The throughput rounds' queries: THROUGHPUT_ROUNDS slices of them, one per round. */
  roundQueries: readonly string[],
  log: (line: string) => void,
): Promise<ReadersResult> {
  const threads = availableParallelism();
  // Cold start first: a fresh server process on a fresh copy whose pages are dropped from the
  // OS cache, so the first recalls read the file from disk as after a reboot.
  const cold = await serve(template, join(workDir, 'readers-cold'), threads, true);
  let coldStart: ColdStart;
  try {
    await scrapeLoopDelay(cold.server.url);
    const probe = probeHealth(cold.server.url, 10);
    const first = queries.slice(0, 100);
    const ms = await oneAtATime(cold.api, first);
    const health = summarize(await probe.stop());
    const loop = await scrapeLoopDelay(cold.server.url);
    const recalls = summarize(ms);
    coldStart = {
      recalls: first.length,
      fileCacheDropped: cold.dropped,
      loopMaxMs: loop.max,
      loopP99Ms: loop.p99,
      health,
      firstRecallMs: ms[0] ?? Number.NaN,
      recallP99Ms: recalls.p99,
      recallMaxMs: recalls.max,
    };
  } finally {
    await cold.stop();
  }
  log(
    `  cold start (fresh process, file ${coldStart.fileCacheDropped ? 'dropped from the OS cache' : 'left in the OS cache: could not drop it'}), ` +
      `first ${coldStart.recalls} recalls: loop delay max ${coldStart.loopMaxMs.toFixed(0)} ms p99 ${coldStart.loopP99Ms.toFixed(0)} ms (target max <= 100); ` +
      `/health every 10 ms p99 ${coldStart.health.p99.toFixed(0)} ms max ${coldStart.health.max.toFixed(0)} ms (${coldStart.health.n}); ` +
      `first recall ${coldStart.firstRecallMs.toFixed(0)} ms, recall p99 ${coldStart.recallP99Ms.toFixed(0)} ms max ${coldStart.recallMaxMs.toFixed(0)} ms`,
  );

  const configs = {
    pool: await serve(template, join(workDir, 'readers-pool'), threads),
    one: await serve(template, join(workDir, 'readers-one'), 1),
    onLoop: await serve(template, join(workDir, 'readers-loop'), 0),
  };
  try {
    const warm = warmQueries.slice(0, WARM_RECALLS);
    const slice = Math.ceil(warm.length / WARM_SLICES);
    for (let at = 0; at < warm.length; at += slice) {
      for (const c of Object.values(configs)) {
        await pool(warm.slice(at, at + slice), CLIENTS, (q) => c.api.request(RECALL, { q }));
      }
    }
    const rates = { pool: [] as number[], one: [] as number[] };
    const size = Math.floor(roundQueries.length / THROUGHPUT_ROUNDS);
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
      const part = roundQueries.slice(round * size, (round + 1) * size);
      const order = round % 2 === 0 ? (['pool', 'one'] as const) : (['one', 'pool'] as const);
      for (const name of order) rates[name].push(await throughput(configs[name].api, part));
    }
    // Alternating halves for latency: pool, on the loop, pool, on the loop.
    const half = Math.floor(queries.length / 2);
    const lat = { pool: [] as number[], onLoop: [] as number[] };
    for (const part of [queries.slice(0, half), queries.slice(half)]) {
      lat.pool.push(...(await oneAtATime(configs.pool.api, part)));
      lat.onLoop.push(...(await oneAtATime(configs.onLoop.api, part)));
    }
    const pooled = summarize(lat.pool);
    const onLoop = summarize(lat.onLoop);
    const poolRate = median(rates.pool);
    const oneRate = median(rates.one);
    const result: ReadersResult = {
      threads,
      throughput: { pool: poolRate, one: oneRate, ratio: poolRate / oneRate, rounds: rates },
      latency: { pool: pooled, onLoop, ratio: pooled.p50 / onLoop.p50 },
      coldStart,
    };
    log(
      `  reader pool (${threads} threads): recall ${CLIENTS} clients, median of ${THROUGHPUT_ROUNDS} rounds, ${poolRate.toFixed(0)}/s ` +
        `[${rates.pool.map((r) => r.toFixed(0)).join(' ')}] vs one reader ${oneRate.toFixed(0)}/s [${rates.one.map((r) => r.toFixed(0)).join(' ')}] ` +
        `= ${result.throughput.ratio.toFixed(2)}x (target >= 1.6x); ` +
        `one at a time p50 ${pooled.p50.toFixed(2)} ms vs on the loop ${onLoop.p50.toFixed(2)} ms = ${result.latency.ratio.toFixed(2)}x (target <= 1.1x); ` +
        `cold start loop max ${coldStart.loopMaxMs.toFixed(0)} ms (target <= 100)`,
    );
    return result;
  } finally {
    for (const c of Object.values(configs)) await c.stop();
  }
}
