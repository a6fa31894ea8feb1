/**
 * The hostile mix beside an honest client: an honest client sends /health and small queries
 * at a steady pace for a while alone, then as long again while another process
 * (bench/perf/hostile-client.mjs) sends, four at a time, documents that used to hold the
 * server's loop for seconds (fragment chains with and without a token, a body nested
 * 400,000 deep, 30 aliases of recent(n: 200) { content } and { id } over 200 entries of 100,000
 * characters, costs hidden in variable defaults, 30 aliases of recall(topK: 50, hops: 3)).
 * Reported, for both halves of the same run: the honest client's p50/p99/max and the
 * server's event-loop delay p99/max. Targets under the mix: honest p99 ≤ 50 ms, max ≤ 250 ms;
 * loop delay max ≤ 100 ms.
 *
 *   npm run bench -- --only mix --size 10k     # as a phase of the benchmark
 *   npx tsx bench/hostile-mix.ts [--seconds 20] [--root DIR]  # alone, on a server of its own
 *                                                            # (served from another checkout)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type GqlClient,
  gqlClient,
  type LatencySummary,
  type LoopDelay,
  REPO_ROOT,
  scrapeLoopDelay,
  sleep,
  startServer,
  summarize,
} from './perf/util.ts';

/** The workspace the mix reads from: 200 entries of 100,000 characters. */
export const MIX_WORKSPACE = 'hostile-mix';
const MIX_ENTRIES = 200;
/** Where `tags(first: 10000)` is asked: 313 entries of 32 tags each, no tag shared. */
const MIX_TAGS_WORKSPACE = 'hostile-mix-tags';
const MIX_TAGGED_ENTRIES = 313;
const MIX_CHARS = 100_000;
/** Hostile requests in flight at once. */
const MIX_CONCURRENCY = 4;
/** The honest client's pause between requests. */
const HONEST_PAUSE_MS = 10;

export interface HonestWindow {
  health: LatencySummary;
  small: LatencySummary;
  loop: LoopDelay;
}

export interface HostileMixResult {
  seconds: number;
  alone: HonestWindow;
  underMix: HonestWindow;
  /** What each hostile document was answered, by HTTP status and code. */
  hostile: Record<string, Record<string, number>>;
}

const CAPTURE5 = `mutation(${[0, 1, 2, 3, 4].map((i) => `$c${i}: String!`).join(', ')}) { ${[0, 1, 2, 3, 4]
  .map((i) => `c${i}: capture(input: { content: $c${i} }) { outcome }`)
  .join(' ')} }`;

/** Fills the mix's workspaces (the tags one with `tags`), unless they are full already. */
async function seedMixWorkspace(url: string, tags: boolean): Promise<void> {
  const api = gqlClient(url, MIX_WORKSPACE, 4);
  try {
    const { count } = await api.request<{ count: number }>('{ count }');
    for (let i = count; i < MIX_ENTRIES; i += 5) {
      const vars = Object.fromEntries(
        [0, 1, 2, 3, 4].map((j) => [`c${j}`, `mix entry ${i + j} `.padEnd(MIX_CHARS, 'lorem ipsum dolor sit amet ')]),
      );
      await api.request(CAPTURE5, vars);
    }
  } finally {
    api.close();
  }
  if (!tags) return;
  const tagged = gqlClient(url, MIX_TAGS_WORKSPACE, 4);
  try {
    const { count } = await tagged.request<{ count: number }>('{ count }');
    for (let i = count; i < MIX_TAGGED_ENTRIES; i++) {
      const tags = Array.from({ length: 32 }, (_, j) => `tag-${i}-${j}`);
      await tagged.request(
        'mutation($c: String!, $t: [String!]) { capture(input: { content: $c, tags: $t }) { outcome } }',
        {
          c: `tagged entry ${i}`,
          t: tags,
        },
      );
    }
  } finally {
    tagged.close();
  }
}

/** The honest client for `seconds`: /health and `{ count }`, one after the other. */
async function honestWindow(url: string, api: GqlClient, seconds: number): Promise<HonestWindow> {
  await scrapeLoopDelay(url);
  const health: number[] = [];
  const small: number[] = [];
  const health$ = new URL('/health', url);
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    let t0 = performance.now();
    const res = await fetch(health$);
    await res.arrayBuffer();
    health.push(performance.now() - t0);
    await sleep(HONEST_PAUSE_MS);
    t0 = performance.now();
    await api.request('{ count }');
    small.push(performance.now() - t0);
    await sleep(HONEST_PAUSE_MS);
  }
  return { health: summarize(health), small: summarize(small), loop: await scrapeLoopDelay(url) };
}

function startHostileClient(url: string, tags: boolean): { child: ChildProcess; done: Promise<string> } {
  const script = join(REPO_ROOT, 'bench', 'perf', 'hostile-client.mjs');
  const args = [script, url, MIX_WORKSPACE, String(MIX_CONCURRENCY), ...(tags ? [MIX_TAGS_WORKSPACE] : [])];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  const done = new Promise<string>((resolve) => child.once('exit', () => resolve(out)));
  return { child, done };
}

/**
 * Runs the honest client alone, then beside the hostile mix, against the server at `url`
 * (its GraphQL URL); `honestWorkspace` is where the honest client's small queries go. With
 * `tags`, the mix also sends 30 aliases of `tags(first: 10000)` (9 MB answers).
 */
export async function measureHostileMix(
  url: string,
  honestWorkspace: string,
  seconds: number,
  log: (line: string) => void = console.log,
  tags = false,
): Promise<HostileMixResult> {
  await seedMixWorkspace(url, tags);
  const api = gqlClient(url, honestWorkspace, 4);
  try {
    const alone = await honestWindow(url, api, seconds);
    const hostile = startHostileClient(url, tags);
    let underMix: HonestWindow;
    try {
      // Let the mix reach full pace before measuring beside it.
      await sleep(500);
      underMix = await honestWindow(url, api, seconds);
    } finally {
      hostile.child.kill('SIGTERM');
    }
    const answered = JSON.parse((await hostile.done).trim() || '{}') as HostileMixResult['hostile'];
    const line = (w: HonestWindow) =>
      `/health p50/p99/max ${w.health.p50.toFixed(1)}/${w.health.p99.toFixed(1)}/${w.health.max.toFixed(1)} ms, ` +
      `{ count } ${w.small.p50.toFixed(1)}/${w.small.p99.toFixed(1)}/${w.small.max.toFixed(1)} ms, ` +
      `loop delay p99/max ${w.loop.p99.toFixed(0)}/${w.loop.max.toFixed(0)} ms`;
    log(`  hostile mix, honest client alone: ${line(alone)}`);
    log(`  hostile mix, honest client beside it: ${line(underMix)}`);
    for (const [name, codes] of Object.entries(answered)) {
      log(
        `    ${name}: ${Object.entries(codes)
          .map(([code, n]) => `${n} × ${code}`)
          .join(', ')}`,
      );
    }
    return { seconds, alone, underMix, hostile: answered };
  } finally {
    api.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // --root: another checkout of the repository to serve from, to compare builds.
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '20' }, root: { type: 'string' }, tags: { type: 'boolean' } },
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'mini-sphere-hostile-mix-'));
  const server = await startServer({ dataDir, logFile: join(dataDir, 'server.log'), root: values.root });
  try {
    const honest = gqlClient(server.url, 'honest', 1);
    await honest.request('mutation { capture(input: { content: "an honest note" }) { outcome } }');
    honest.close();
    const result = await measureHostileMix(server.url, 'honest', Number(values.seconds), console.log, values.tags);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
