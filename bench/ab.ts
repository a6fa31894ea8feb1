/**
 * Old against new, for the targets measured against a bare handler: graphView (hops 3),
 * recall (topK 8, hops 1) or the request floor (`{ __typename }`), over HTTP, for each of
 * several checkouts of the server, against bench/perf/bare-http.mjs serving the same SQL.
 * Every checkout runs as its own `mini-sphere serve` on its own copy of one corpus template,
 * and the calls alternate call by call (rotating which side goes first), so load that drifts
 * during the run (this machine has 2 cores and other work on them) weighs on every side
 * alike. Each round prints p50/p95, the ratios to the bare handler in that round, and each
 * process's CPU time per call.
 *
 *   npx tsx bench/ab.ts --what graph --size 100k --rounds 3 ../old-checkout .
 *   npx tsx bench/ab.ts --what recall --size 10k ../old-checkout .
 *   npx tsx bench/ab.ts --what floor . .::NODE_ENV=production      # DIR::NAME=VALUE,... sets its environment
 *
 * A checkout is a directory holding the repository with its node_modules. Templates are the
 * ones `npm run bench` builds (built here when missing), under --data-dir.
 */
import { readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '@libsql/client';
import { buildMatchExpression, extractTerms } from '../src/retrieval/query.ts';
import { startBareHttp } from './perf/bare-http.ts';
import { makeQueries, Rng } from './perf/corpus.ts';
import { buildTemplate, copyTemplate } from './perf/load.ts';
import { GRAPH_VIEW, RECALL } from './perf/operations.ts';
import { RECURSIVE_WALK_SQL } from './perf/recursive-walk.ts';
import { gqlClient, startServer, summarize } from './perf/util.ts';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    what: { type: 'string', default: 'graph' },
    size: { type: 'string', default: '100k' },
    calls: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    seed: { type: 'string', default: '1' },
    'data-dir': { type: 'string', default: join(tmpdir(), 'mini-sphere-perf') },
  },
});
if (!['graph', 'recall', 'floor'].includes(opts.what))
  throw new Error(`--what graph | recall | floor, not ${opts.what}`);
const size = Number(opts.size.replace(/k$/i, '000').replace(/m$/i, '000000'));
const seed = Number(opts.seed);
const calls = Number(opts.calls);
const WORKSPACE = 'perf';

/** `DIR` or `DIR::NAME=VALUE,...`: a checkout, and environment variables for its server. */
const sides = (positionals.length > 0 ? positionals : ['.']).map((spec) => {
  const [dir = '.', given = ''] = spec.split('::');
  const vars = given.split(',').filter(Boolean);
  return {
    label: spec,
    dir: resolve(dir),
    env: Object.fromEntries(vars.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
  };
});

const RAW_FTS = 'SELECT rowid, bm25(entries_fts) FROM entries_fts WHERE entries_fts MATCH ? ORDER BY rank LIMIT 50';

/** CPU time (user + system, every thread) a process has used so far, in ms (Linux /proc). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Seeds for graphView (as bench/perf.ts picks them) or the recall query mix. */
async function workload(template: string): Promise<{ warm: string[]; timed: string[] }> {
  if (opts.what === 'recall') return { warm: makeQueries(40, seed, 1000), timed: makeQueries(calls, seed) };
  const raw = createClient({ url: `file:${template}`, intMode: 'number' });
  const pick = async (count: number, salt: number) => {
    const rng = new Rng(seed * 13 + salt);
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      const r = await raw.execute({ sql: 'SELECT id FROM entries WHERE n = ?', args: [rng.int(1, size)] });
      out.push(String(r.rows[0]![0]));
    }
    return out;
  };
  try {
    return { warm: await pick(20, 2), timed: await pick(calls, 1) };
  } finally {
    raw.close();
  }
}

const load = await buildTemplate(join(opts['data-dir'], 'templates'), size, seed, (l) => console.error(l), false);
const { warm, timed } = await workload(load.file);
const runRoot = join(opts['data-dir'], `ab-${process.pid}`);
const started = await Promise.allSettled(
  sides.map((side, i) => {
    const dataDir = join(runRoot, `s${i}`);
    copyTemplate(load.file, dataDir, WORKSPACE);
    return startServer({ dataDir, logFile: join(dataDir, 'server.log'), root: side.dir, env: side.env });
  }),
);
const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
/** Stops whatever this run started, so that no server outlives it. */
const cleanUp = async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(runRoot, { recursive: true, force: true });
};
const failed = started.find((s) => s.status === 'rejected');
if (failed) {
  await cleanUp();
  throw failed.reason;
}
const bare = await startBareHttp(copyTemplate(load.file, join(runRoot, 'bare'), WORKSPACE)).catch(async (error) => {
  await cleanUp();
  throw error;
});
const apis = servers.map((s) => gqlClient(s.url, WORKSPACE));
const ours = (k: number, arg: string) => {
  if (opts.what === 'recall') return apis[k]!.request(RECALL, { q: arg });
  if (opts.what === 'floor') return apis[k]!.request('{ __typename }');
  return apis[k]!.request(GRAPH_VIEW, { id: arg });
};
const baseline = (arg: string) => {
  if (opts.what === 'recall') return bare.query(RAW_FTS, [buildMatchExpression(extractTerms(arg).terms)!]);
  if (opts.what === 'floor') return bare.query('SELECT 1', []);
  return bare.query(RECURSIVE_WALK_SQL, [arg, 0.6, 8, 3, 51]);
};
/** Call `k` of a round: a side, or the bare handler (k = sides.length). */
const call = (k: number, arg: string) => (k < sides.length ? ours(k, arg) : baseline(arg));

try {
  const all = [...sides.keys(), sides.length];
  for (const arg of warm) for (const k of all) await call(k, arg);
  for (let round = 1; round <= Number(opts.rounds); round++) {
    const samples: number[][] = all.map(() => []);
    const pids = [...servers.map((s) => s.pid), bare.pid];
    const cpu0 = pids.map(cpuMs);
    for (const [i, arg] of timed.entries()) {
      const shift = i % all.length;
      for (const k of [...all.slice(shift), ...all.slice(0, shift)]) {
        const t0 = performance.now();
        await call(k, arg);
        samples[k]!.push(performance.now() - t0);
      }
    }
    const cpu = pids.map((pid, k) => (cpuMs(pid) - cpu0[k]!) / timed.length);
    const b = summarize(samples.at(-1)!);
    const cells = sides.map((side, k) => {
      const s = summarize(samples[k]!);
      const ratios = `${(s.p50 / b.p50).toFixed(2)}×/${(s.p95 / b.p95).toFixed(2)}×`;
      return `${side.label} ${s.p50.toFixed(2)}/${s.p95.toFixed(2)} ms (${ratios}) cpu ${cpu[k]!.toFixed(2)} ms`;
    });
    const bareCell = `bare ${b.p50.toFixed(2)}/${b.p95.toFixed(2)} ms cpu ${cpu.at(-1)!.toFixed(2)} ms`;
    console.log(
      `${opts.what} ${opts.size} round ${round} (load ${loadavg()[0]!.toFixed(1)}): ${bareCell}; ${cells.join('; ')}`,
    );
  }
} finally {
  for (const api of apis) api.close();
  await bare.stop();
  await cleanUp();
}
