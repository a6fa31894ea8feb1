/**
 * Hosted mode over the wire: the server (a `mini-sphere serve` process) on SPHERE_DB_URL
 * pointing at the Hrana test service with a fixed delay per HTTP request, counting the
 * round trips each operation costs and where they go, then timing captures with 16 clients
 * and recall latency. The service runs on a thread of its own (bench/perf/hrana-thread.ts),
 * so the clients' work does not delay its answers.
 *
 *   npm run bench -- --hosted-rtt 10                 # the same, from the main bench
 *   npx tsx bench/hosted-rtt.ts                      # 10 ms per round trip
 *   npx tsx bench/hosted-rtt.ts --rtt 25 --entries 300 --captures 320 --recalls 60
 *   npx tsx bench/hosted-rtt.ts --captures 2000 --timeline    # where a capture waits
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { RoundTrip } from '../test/helpers/hrana-server.ts';
import type { Data } from '../test/helpers/server.ts';
import { HranaThread } from './perf/hrana-thread.ts';
import { formatProfile, summarizeProfile } from './perf/profile.ts';
import { gqlClient, REPO_ROOT, type ServerChild, startServer } from './perf/util.ts';

export interface HostedRttOptions {
  /** Milliseconds added to every request to the database service. */
  rtt: number;
  entries: number;
  captures: number;
  recalls: number;
  clients: number;
  /** CPU-profile the server (node --cpu-prof) and print where its time went. */
  profile?: boolean;
  /** Print a timeline of captures and the requests they caused (see printTimeline). */
  timeline?: boolean;
}

export const HOSTED_RTT_DEFAULTS: HostedRttOptions = {
  rtt: 10,
  entries: 200,
  captures: 2000,
  recalls: 60,
  clients: 16,
};

const WS = 'bench';
const WORDS = 'deploy staging cluster billing ledger argo vpn rollout schema backup token latency cache queue'.split(
  ' ',
);

async function gql(url: string, query: string, variables: Record<string, unknown> = {}): Promise<Data> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': WS },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: Data; errors?: unknown[] };
  if (body.errors || !body.data) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

const CAPTURE = 'mutation ($input: CaptureInput!) { capture(input: $input) { outcome entry { id } } }';
const LINK = 'mutation ($input: LinkInput!) { link(input: $input) { edge { src } } }';
const RECALL = 'query ($q: String!) { recall(query: $q, topK: 8, hops: 1) { hits { entry { id content } } } }';
const GRAPH = 'query ($id: ID!) { graphView(seedIds: [$id], hops: 2) { nodes { entry { id } } edges { type } } }';
const ENTRY =
  'query ($id: ID!) { entry(id: $id) { id content tags connections(first: 8) { direction entry { id tags } } } }';

const sentence = (i: number) =>
  `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} note ${i}: ${WORDS[(i * 3) % WORDS.length]} changed`;

async function seed(url: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const input = { content: sentence(i), tags: [WORDS[i % WORDS.length], `t${i % 5}`] };
    ids.push((await gql(url, CAPTURE, { input })).capture.entry.id);
  }
  for (let i = 1; i < n; i++) {
    await gql(url, LINK, { input: { src: ids[i], dst: ids[(i * 13) % i], type: 'RELATES_TO' } });
  }
  return ids;
}

/** Round trips one operation costs, with what each request carried; deferred bookkeeping counted after 1.5 s. */
async function roundTrips(hrana: HranaThread, run: () => Promise<unknown>) {
  await new Promise((r) => setTimeout(r, 1_500));
  await hrana.resetCounts();
  await run();
  const inline = await hrana.roundTrips(WS);
  const requests = (await hrana.log()).map(
    (r) => `${r.database === WS ? '' : `[${r.database}] `}${r.statements.join(' | ') || '(close only)'}`,
  );
  await new Promise((r) => setTimeout(r, 1_500));
  return { inline, deferred: (await hrana.roundTrips(WS)) - inline, requests };
}

/** CPU time (user + system) a process has used, in ms, from /proc (Linux); null elsewhere. */
function cpuMsOf(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
  } catch {
    return null;
  }
}

/**
 * Captures per group, `size×count`, from the requests that carried a COMMIT: each load
 * capture (one tag) is three statements (entry, tag, event), then the COMMIT; a group sent
 * as one request adds BEGIN, the guard and the ROLLBACK that runs only when the guard fails.
 */
function groupSizes(log: RoundTrip[]): string {
  const sizes = new Map<number, number>();
  for (const r of log) {
    if (r.database !== WS || !r.statements.includes('COMMIT')) continue;
    const size = (r.steps - (r.statements.includes('BEGIN IMMEDIATE') ? 4 : 1)) / 3;
    sizes.set(size, (sizes.get(size) ?? 0) + 1);
  }
  return [...sizes]
    .sort((a, b) => a[0] - b[0])
    .map(([size, n]) => `${size}×${n}`)
    .join(' ');
}

type Mark = { i: number; sent: number; answered: number };

/**
 * `--timeline`: 200 ms from the middle of the captures, in ms: each capture sent and answered
 * (with its latency) beside each request the test service read and answered, to see where a
 * capture waits.
 */
function printTimeline(log: RoundTrip[], marks: Mark[], from: number) {
  const lines: [number, string][] = [];
  const within = (t: number) => t >= from && t < from + 200;
  for (const m of marks) {
    if (within(m.sent)) lines.push([m.sent, `client sends c${m.i}`]);
    if (within(m.answered)) lines.push([m.answered, `client got   c${m.i} (${(m.answered - m.sent).toFixed(1)} ms)`]);
  }
  for (const r of log) {
    if (r.database !== WS || !within(r.at)) continue;
    const what = r.statements.includes('COMMIT')
      ? `${r.statements.includes('BEGIN IMMEDIATE') ? 'one-request group' : 'COMMIT'} of ${groupSizes([r]).split('×')[0]}`
      : r.statements.includes('BEGIN IMMEDIATE')
        ? `BEGIN and reads, ${r.steps} statements`
        : r.statements.join(' | ') || 'close';
    lines.push([r.at, `    service reads ${what}`]);
    if (r.answeredAt) lines.push([r.answeredAt, `    service answers ${what}`]);
  }
  lines.sort((a, b) => a[0] - b[0]);
  for (const [t, what] of lines) console.log(`${(t - from).toFixed(1).padStart(7)}  ${what}`);
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

/** What one run measured (bench/perf.ts keeps it with its results). */
export interface HostedRttResult {
  options: HostedRttOptions;
  roundTrips: Record<string, { inline: number; deferred: number }>;
  capturesPerSecond: number;
  recallMs: { p50: number; p95: number };
}

export async function runHostedRtt(opts: HostedRttOptions): Promise<HostedRttResult> {
  const RTT = opts.rtt;
  const dir = await mkdtemp(join(tmpdir(), 'hosted-rtt-'));
  const hrana = await HranaThread.start({ dir: join(dir, 'hosted'), token: 'bench' });
  const profDir = join(REPO_ROOT, 'bench', 'results', 'profiles');
  let serve: ServerChild | null = null;
  try {
    serve = await startServer({
      dataDir: join(dir, 'data'),
      logFile: join(dir, 'serve.log'),
      nodeFlags: opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [],
      env: {
        SPHERE_DB_URL: hrana.urlTemplate,
        SPHERE_DB_AUTH_TOKEN: 'bench',
        SPHERE_CONTROL_DB_URL: hrana.url('_control'),
        SPHERE_RATE_LIMIT: '0',
        LOG_LEVEL: 'warn',
      },
    });
    const url = serve.url;
    const ids = await seed(url, opts.entries);
    await hrana.setLatency(RTT);
    let n = 0;
    const rows = {
      capture: await roundTrips(hrana, () =>
        gql(url, CAPTURE, { input: { content: `fresh capture ${n++}`, tags: ['deploy', 'new'] } }),
      ),
      'recall (topK 8, hops 1)': await roundTrips(hrana, () => gql(url, RECALL, { q: 'deploy staging cluster' })),
      'graphView (hops 2)': await roundTrips(hrana, () => gql(url, GRAPH, { id: ids[5] })),
      'entry + tags + connections': await roundTrips(hrana, () => gql(url, ENTRY, { id: ids[5] })),
      link: await roundTrips(hrana, () => gql(url, LINK, { input: { src: ids[1], dst: ids[2], type: 'CAUSED_BY' } })),
    };
    console.log(`\nround trips per operation at ${RTT} ms each (inline + deferred bookkeeping):`);
    for (const [name, r] of Object.entries(rows)) console.log(`  ${name.padEnd(28)} ${r.inline} + ${r.deferred}`);
    for (const [name, r] of Object.entries(rows)) {
      console.log(`\n${name}: requests in order`);
      for (const [i, req] of r.requests.entries()) console.log(`  ${String(i + 1).padStart(2)}. ${req}`);
    }

    const total = opts.captures;
    let next = 0;
    // node:http over kept-alive sockets: fetch costs the shared machine several times the CPU per request.
    const client = gqlClient(url, WS, opts.clients);
    await hrana.resetCounts();
    const serverCpu = cpuMsOf(serve.pid);
    const ownCpu = process.cpuUsage();
    const started = performance.now();
    const marks: Mark[] = [];
    await Promise.all(
      Array.from({ length: opts.clients }, async () => {
        while (next < total) {
          const i = next++;
          const sent = performance.now();
          await client.request(CAPTURE, { input: { content: `load capture ${i} ${sentence(i)}`, tags: ['load'] } });
          if (opts.timeline) marks.push({ i, sent, answered: performance.now() });
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    client.close();
    const log = await hrana.log();
    if (opts.timeline) printTimeline(log, marks, started + (seconds * 1000) / 2);
    const capturesPerSecond = total / seconds;
    console.log(
      `\ncaptures with ${opts.clients} clients: ${total} in ${seconds.toFixed(1)} s = ${capturesPerSecond.toFixed(1)}/s`,
    );
    console.log(
      `  requests per capture ${((await hrana.roundTrips(WS)) / total).toFixed(2)}; group sizes ${groupSizes(log)}`,
    );
    // Throughput here is bounded by CPU long before round trips: both processes share the machine.
    const own = process.cpuUsage(ownCpu);
    const serverNow = cpuMsOf(serve.pid);
    if (serverCpu !== null && serverNow !== null) {
      const perCapture = (ms: number) => (ms / total).toFixed(2);
      console.log(
        `  CPU ms per capture: server ${perCapture(serverNow - serverCpu)}, clients + test service ${perCapture((own.user + own.system) / 1000)}`,
      );
    }

    const times: number[] = [];
    for (let i = 0; i < opts.recalls; i++) {
      const t = performance.now();
      await gql(url, RECALL, { q: `${WORDS[i % WORDS.length]} ${WORDS[(i * 5) % WORDS.length]}` });
      times.push(performance.now() - t);
    }
    const recallMs = { p50: pct(times, 0.5) ?? 0, p95: pct(times, 0.95) ?? 0 };
    console.log(`recall topK 8 hops 1: p50 ${recallMs.p50.toFixed(0)} ms, p95 ${recallMs.p95.toFixed(0)} ms`);
    const counts = Object.fromEntries(
      Object.entries(rows).map(([name, r]) => [name, { inline: r.inline, deferred: r.deferred }]),
    );
    return { options: opts, roundTrips: counts, capturesPerSecond, recallMs };
  } finally {
    await serve?.stop();
    if (opts.profile && serve) {
      const file = readdirSync(profDir)
        .filter((f) => f.includes(`.${serve?.pid}.`))
        .map((f) => join(profDir, f))[0];
      if (file) console.log(`\n${formatProfile(summarizeProfile(file), `server profile (${file})`)}`);
    }
    await hrana.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const d = HOSTED_RTT_DEFAULTS;
  const { values: flags } = parseArgs({
    options: {
      rtt: { type: 'string', default: String(d.rtt) },
      entries: { type: 'string', default: String(d.entries) },
      captures: { type: 'string', default: String(d.captures) },
      recalls: { type: 'string', default: String(d.recalls) },
      clients: { type: 'string', default: String(d.clients) },
      profile: { type: 'boolean', default: false },
      timeline: { type: 'boolean', default: false },
    },
  });
  await runHostedRtt({
    rtt: Number(flags.rtt),
    entries: Number(flags.entries),
    captures: Number(flags.captures),
    recalls: Number(flags.recalls),
    clients: Number(flags.clients),
    profile: flags.profile,
    timeline: flags.timeline,
  });
}
