/**
 * Fan-out fairness: does one workspace's crowd of subscribers delay another workspace's?
 *
 * Two server instances share a data directory and a Redis. On instance A, 150 WebSocket
 * subscribers watch a "flood" workspace and 10 watch a "quiet" one. A quiet writer captures
 * 10 entries a second through instance B; each quiet subscriber on A reports how long
 * after its commit (the event's `at`) each event arrived: the way from the writer through
 * Redis and instance A's fan-out, not the writer's own queue. Windows without and with 6 writers
 * flooding the flood workspace through B alternate (baseline, flood, three times), so drift in
 * the machine's load weighs on both alike; after a flood window, the next baseline waits until
 * A has handed out the flood's last events. Target: the quiet subscribers' p99 under the flood
 * at most 2× their baseline p99.
 *
 * Where the time goes: one more quiet subscriber, on B, receives each event where it was
 * written, with no flood subscribers beside it. Its latency is the part before A's fan-out (B's
 * writer, B's loop); A's arrival minus B's arrival of the same event is Redis plus A.
 *
 *   npm run bench -- --only fairness
 */
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { WebSocket } from 'ws';
import { requireBinary } from '../../test/helpers/binaries.ts';
import { startRedis } from '../../test/helpers/redis.ts';
import {
  type LatencySummary,
  type LoopDelay,
  procCpuMs,
  scrapeLoopDelay,
  sleep,
  startServer,
  summarize,
} from './util.ts';

export interface FairnessResult {
  subscribers: { flood: number; quiet: number };
  /** The quiet workspace's event latency (commit → event received on A), ms. */
  baseline: LatencySummary;
  flooded: LatencySummary;
  /** flooded p99 / baseline p99: target ≤ 2. */
  p99Ratio: number;
  /** The quiet subscriber on B (commit → arrival where it was written), and A's share (A's arrival − B's). */
  onB: { baseline: LatencySummary; flooded: LatencySummary };
  aShare: { baseline: LatencySummary; flooded: LatencySummary };
  /** CPU use of A and B during the flood windows, in % of one core. */
  cpu: { a: number; b: number };
  /** The machine's 1-minute load average at the start and at the end. */
  load: { start: number; end: number };
  /** Captures per second the flood writers achieved, and flood events instance A delivered per second. */
  floodCapturesPerSecond: number;
  floodMessagesPerSecond: number;
  /** Flood subscriptions the server ended as too slow (the bench's thread fell behind), each resubscribed. */
  floodEnded: number;
  /** Instance A's event-loop delay during the flood windows. */
  loop: LoopDelay;
  /**
   * Instance A's own account (sphere_fanout_* on /metrics), over the whole run: results each
   * workspace's subscribers sent, how many of those waited for their workspace's turn, and
   * the mean wait of those that did.
   */
  fanout: Record<'flood' | 'quiet', { sent: number; waited: number; meanWaitMs: number }>;
}

/** One workspace's fan-out counters from a /metrics text. */
function fanoutOf(metrics: string, workspace: string): { sent: number; waited: number; meanWaitMs: number } {
  const value = (name: string) =>
    Number(new RegExp(`^${name}\\{workspace="${workspace}"\\} (\\S+)$`, 'm').exec(metrics)?.[1] ?? 0);
  const waited = value('sphere_fanout_delay_seconds_count');
  const sum = value('sphere_fanout_delay_seconds_sum');
  return { sent: value('sphere_fanout_deliveries_total'), waited, meanWaitMs: waited ? (sum / waited) * 1000 : 0 };
}

const FLOOD_SUBSCRIBERS = 150;
const QUIET_SUBSCRIBERS = 10;
const WRITERS = 6;
const WINDOW_MS = 8_000;
/** Baseline and flood windows, alternating, this many of each. */
const PAIRS = 3;
/** Longest wait for A to hand out the flood's backlog after a flood window. */
const DRAIN_MS = 30_000;
/** An unmeasured flood before the windows (see measureFairness). */
const WARM_UP_MS = 3_000;
const QUIET_EVERY_MS = 100;
const CAPTURE = 'mutation Capture($input: CaptureInput!) { capture(input: $input) { entry { id } } }';

/** A graphql-transport-ws subscriber; `onNext` sees each `next` message's raw text. */
function subscribe(
  wsUrl: string,
  workspace: string,
  query: string,
  onNext: (text: string) => void,
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, 'graphql-transport-ws', { perMessageDeflate: false });
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { workspace } })));
    ws.on('message', (data: Buffer) => {
      const text = data.toString('utf8');
      if (text.startsWith('{"id"')) {
        onNext(text);
        return;
      }
      if (text.includes('connection_ack')) {
        ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
        // The subscription is live once the server has had a moment to start it.
        setTimeout(() => resolve(ws), 50);
      }
    });
  });
}

/**
 * The flood's own thread: its 150 subscribers and 6 writers never share the event loop
 * that times the quiet subscribers, so what is measured is the server, not this process.
 */
const FLOOD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { WebSocket } = require(workerData.wsModule);
const { wsUrl, writeUrl, subscribers, writers, capture } = workerData;
let messages = 0;
let captures = 0;
// Subscriptions the server ended as too slow (this thread could not read fast enough): each
// subscribes again at once, as a client would, so A keeps its 150 subscribers.
let ended = 0;
const QUERY = 'subscription { events { seq type entry { id content } } }';
let writing = false;
const sockets = [];
function open() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, 'graphql-transport-ws', { perMessageDeflate: false });
    sockets.push(ws);
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { workspace: 'flood' } })));
    ws.on('message', (data) => {
      if (data[2] === 0x69) {
        if (data.includes('"type":"next"') && !data.includes('"errors"')) { messages++; return; }
        if (data.includes('"type":"next"') || data.includes('"type":"error"')) {
          ended++;
          ws.send(JSON.stringify({ id: 'again' + ended, type: 'subscribe', payload: { query: QUERY } }));
        }
        return;
      }
      if (data.toString().includes('connection_ack')) {
        ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: QUERY } }));
        setTimeout(resolve, 50);
      }
    });
  });
}
async function write(w) {
  let i = 0;
  while (writing) {
    const res = await fetch(writeUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-workspace': 'flood' },
      body: JSON.stringify({ query: capture, variables: { input: { content: 'flood ' + w + ' ' + i++ + ' ' + 'x'.repeat(200) } } }) });
    const body = await res.json();
    if (!body.errors) captures++;
  }
}
let running = [];
parentPort.on('message', async (msg) => {
  if (msg === 'open') { for (let i = 0; i < subscribers; i++) await open(); parentPort.postMessage({ opened: true }); }
  else if (msg === 'start') { writing = true; running = Array.from({ length: writers }, (_, w) => write(w)); parentPort.postMessage({ started: true }); }
  else if (msg === 'stop') { writing = false; await Promise.all(running); parentPort.postMessage({ stopped: true, messages, captures }); }
  else if (msg === 'count') { parentPort.postMessage({ messages, captures, ended }); }
  else if (msg === 'close') { for (const ws of sockets) ws.terminate(); parentPort.postMessage({ closed: true }); }
});
`;

/** Sends `message` to the flood worker and waits for its answer. */
function ask(worker: Worker, message: string): Promise<{ messages?: number; captures?: number; ended?: number }> {
  return new Promise((resolve) => {
    worker.once('message', resolve);
    worker.postMessage(message);
  });
}

async function capture(url: string, workspace: string, content: string): Promise<boolean> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({ query: CAPTURE, variables: { input: { content } } }),
  });
  const body = (await res.json()) as { errors?: unknown };
  return !body.errors;
}

export async function measureFairness(opts: {
  dataDir: string;
  log: (line: string) => void;
}): Promise<FairnessResult | null> {
  const redisBinary = requireBinary('redis-server');
  if (!redisBinary.available) {
    opts.log('  fairness: skipped (redis-server is not installed)');
    return null;
  }
  const runDir = join(opts.dataDir, 'run-fairness');
  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(runDir, { recursive: true });
  const loadStart = loadavg()[0] ?? Number.NaN;
  const redis = await startRedis();
  const env = { REDIS_URL: redis.url };
  const a = await startServer({ dataDir: runDir, logFile: join(runDir, 'a.log'), env });
  const b = await startServer({ dataDir: runDir, logFile: join(runDir, 'b.log'), env });
  const sockets: WebSocket[] = [];
  let stopFlood = async () => {};
  try {
    const wsUrl = a.url.replace(/^http/, 'ws');
    // Both workspaces exist before anyone subscribes.
    await capture(b.url, 'flood', 'first');
    await capture(b.url, 'quiet', 'first');
    const flood = new Worker(FLOOD_WORKER, {
      eval: true,
      workerData: {
        wsModule: createRequire(import.meta.url).resolve('ws'),
        wsUrl,
        writeUrl: b.url,
        subscribers: FLOOD_SUBSCRIBERS,
        writers: WRITERS,
        capture: CAPTURE,
      },
    });
    stopFlood = async () => {
      await ask(flood, 'close');
      await flood.terminate();
    };
    await ask(flood, 'open');
    // Each quiet event as it arrives: on A (10 subscribers) and on B (one), by seq.
    interface Arrival {
      seq: number;
      ms: number;
      at: number;
    }
    let window: Arrival[] | null = null;
    let windowB: Map<number, Arrival> | null = null;
    const arrival = (text: string): Arrival | null => {
      // From the commit (the event's time, stamped by instance B on this machine's clock) to arrival.
      const now = Date.now();
      const committed = Date.parse(/"at":"([^"]+)"/.exec(text)?.[1] ?? '');
      const seq = Number(/"seq":(\d+)/.exec(text)?.[1]);
      return Number.isFinite(committed) && Number.isFinite(seq) ? { seq, ms: now - committed, at: now } : null;
    };
    for (let i = 0; i < QUIET_SUBSCRIBERS; i++) {
      sockets.push(
        await subscribe(wsUrl, 'quiet', 'subscription { events { seq at } }', (text) => {
          const got = arrival(text);
          if (got) window?.push(got);
        }),
      );
    }
    sockets.push(
      await subscribe(b.url.replace(/^http/, 'ws'), 'quiet', 'subscription { events { seq at } }', (text) => {
        const got = arrival(text);
        if (got) windowB?.set(got.seq, got);
      }),
    );
    opts.log(
      `  fairness: ${FLOOD_SUBSCRIBERS} flood and ${QUIET_SUBSCRIBERS} quiet subscribers on instance A, 1 quiet on B`,
    );

    const all = {
      baseline: { a: [] as number[], b: [] as number[], share: [] as number[] },
      flood: { a: [] as number[], b: [] as number[], share: [] as number[] },
    };
    let floodCaptures = 0;
    let floodMessages = 0;
    let floodMs = 0;
    const cpu = { a: 0, b: 0 };
    let quietN = 0;
    let loop: LoopDelay | null = null;
    // A baseline is a baseline only once A has handed out what the flood left queued.
    const drain = async () => {
      let last = -1;
      const deadline = performance.now() + DRAIN_MS;
      while (performance.now() < deadline) {
        const now = (await ask(flood, 'count')).messages ?? 0;
        if (now === last) return;
        last = now;
        await sleep(500);
      }
    };
    // Unmeasured: the first seconds of a flood meet a cold server (code not yet optimized,
    // the flood workspace's first reads, the heap growing to its working size), a start-up
    // cost rather than fan-out; measured, it made the first flood window's p99 2-4× the later ones'.
    await ask(flood, 'start');
    await sleep(WARM_UP_MS);
    await ask(flood, 'stop');
    await drain();
    const modes = Array.from({ length: PAIRS }, () => ['baseline', 'flood'] as const).flat();
    for (const mode of modes) {
      const samples: Arrival[] = [];
      const samplesB = new Map<number, Arrival>();
      window = samples;
      windowB = samplesB;
      const cpu0 = { a: procCpuMs(a.pid), b: procCpuMs(b.pid) };
      const end = performance.now() + WINDOW_MS;
      const quiet = (async () => {
        while (performance.now() < end) {
          const n = ++quietN;
          void capture(b.url, 'quiet', `quiet ${n}`);
          await sleep(QUIET_EVERY_MS);
        }
      })();
      const before = mode === 'flood' ? await ask(flood, 'count') : {};
      if (mode === 'flood') await ask(flood, 'start');
      if (mode === 'flood') await scrapeLoopDelay(a.url);
      const t0 = performance.now();
      await quiet;
      const counts = mode === 'flood' ? await ask(flood, 'stop') : {};
      const windowMs = performance.now() - t0;
      // Events still in flight belong to this window.
      await sleep(1_000);
      window = null;
      windowB = null;
      const share = samples.flatMap((x) => {
        const onB = samplesB.get(x.seq);
        return onB ? [x.at - onB.at] : [];
      });
      const bucket = all[mode];
      bucket.a.push(...samples.map((x) => x.ms));
      bucket.b.push(...[...samplesB.values()].map((x) => x.ms));
      bucket.share.push(...share);
      const cpuA = ((procCpuMs(a.pid) - cpu0.a) / (windowMs + 1_000)) * 100;
      const cpuB = ((procCpuMs(b.pid) - cpu0.b) / (windowMs + 1_000)) * 100;
      if (mode === 'flood') {
        floodMs += windowMs;
        floodCaptures += (counts.captures ?? 0) - (before.captures ?? 0);
        floodMessages += (counts.messages ?? 0) - (before.messages ?? 0);
        cpu.a = Math.max(cpu.a, cpuA);
        cpu.b = Math.max(cpu.b, cpuB);
        const delay = await scrapeLoopDelay(a.url);
        loop = loop
          ? {
              p50: Math.max(loop.p50, delay.p50),
              p99: Math.max(loop.p99, delay.p99),
              max: Math.max(loop.max, delay.max),
            }
          : delay;
        await drain();
      }
      const x = summarize(samples.map((v) => v.ms));
      const y = summarize([...samplesB.values()].map((v) => v.ms));
      const z = summarize(share);
      opts.log(
        `  fairness ${mode}: quiet on A p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms (${samples.length}); ` +
          `on B p50 ${y.p50.toFixed(1)}, p99 ${y.p99.toFixed(1)}; A's share p50 ${z.p50.toFixed(1)}, p99 ${z.p99.toFixed(1)}; ` +
          `cpu A ${cpuA.toFixed(0)}% B ${cpuB.toFixed(0)}%; load ${loadavg()[0]?.toFixed(1)}`,
      );
    }
    const metrics = await (await fetch(new URL('/metrics', a.url))).text();
    const base = summarize(all.baseline.a);
    const floodLatency = summarize(all.flood.a);
    return {
      subscribers: { flood: FLOOD_SUBSCRIBERS, quiet: QUIET_SUBSCRIBERS },
      baseline: base,
      flooded: floodLatency,
      p99Ratio: floodLatency.p99 / base.p99,
      onB: { baseline: summarize(all.baseline.b), flooded: summarize(all.flood.b) },
      aShare: { baseline: summarize(all.baseline.share), flooded: summarize(all.flood.share) },
      cpu,
      load: { start: loadStart, end: loadavg()[0] ?? Number.NaN },
      floodCapturesPerSecond: floodCaptures / (floodMs / 1000),
      floodMessagesPerSecond: floodMessages / (floodMs / 1000),
      loop: loop ?? { p50: 0, p99: 0, max: 0 },
      fanout: { flood: fanoutOf(metrics, 'flood'), quiet: fanoutOf(metrics, 'quiet') },
      floodEnded: (await ask(flood, 'count')).ended ?? 0,
    };
  } finally {
    for (const ws of sockets) ws.terminate();
    await stopFlood();
    await Promise.all([a.stop(), b.stop()]);
    await redis.stop();
    rmSync(runDir, { recursive: true, force: true });
  }
}

/** The fairness section of the report. */
export function printFairness(r: FairnessResult | null): void {
  if (!r) return;
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  console.log(
    `\nFan-out fairness: ${r.subscribers.flood} subscribers of a flooded workspace, ${r.subscribers.quiet} of a quiet one (instance A; writes through B and Redis)`,
  );
  console.log(`  quiet baseline  p50 ${ms(r.baseline.p50)}  p99 ${ms(r.baseline.p99)}  max ${ms(r.baseline.max)}`);
  console.log(`  quiet flooded   p50 ${ms(r.flooded.p50)}  p99 ${ms(r.flooded.p99)}  max ${ms(r.flooded.max)}`);
  console.log(
    `  where it goes: on B (where written) baseline p50 ${ms(r.onB.baseline.p50)} p99 ${ms(r.onB.baseline.p99)}, flooded p50 ${ms(r.onB.flooded.p50)} p99 ${ms(r.onB.flooded.p99)}`,
  );
  console.log(
    `                 A's share (Redis + A)  baseline p50 ${ms(r.aShare.baseline.p50)} p99 ${ms(r.aShare.baseline.p99)}, flooded p50 ${ms(r.aShare.flooded.p50)} p99 ${ms(r.aShare.flooded.p99)}`,
  );
  console.log(
    `  cpu during the flood: A ${r.cpu.a.toFixed(0)}%, B ${r.cpu.b.toFixed(0)}% of a core; load average ${r.load.start.toFixed(1)} → ${r.load.end.toFixed(1)}`,
  );
  console.log(
    `  flood ${r.floodCapturesPerSecond.toFixed(0)} captures/s, ${r.floodMessagesPerSecond.toFixed(0)} messages/s delivered, ${r.floodEnded} subscriptions ended as too slow (resubscribed); A's loop delay p99 ${ms(r.loop.p99)} max ${ms(r.loop.max)}`,
  );
  for (const ws of ['flood', 'quiet'] as const) {
    const f = r.fanout[ws];
    console.log(
      `  ${ws} fan-out on A: ${f.sent} results sent, ${f.waited} waited for their turn (mean wait ${ms(f.meanWaitMs)})`,
    );
  }
  console.log(
    `  ${r.p99Ratio <= 2 ? 'PASS' : 'MISS'}  quiet p99 flooded/baseline ${r.p99Ratio.toFixed(2)}×  (target ≤ 2.0×)`,
  );
}
