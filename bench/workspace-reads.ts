/**
 * The reads that span a whole workspace, through a server on a copy of one corpus template:
 * stats, brief, the tag list, counts, the lists with a tag, and `entries` pages in each
 * order. Each is asked five times, one at a time, after one call that opens the workspace;
 * the median is printed. These are the reads an agent or a dashboard makes at the start of
 * a session, and at a million entries any that groups or sorts every row holds a reader
 * thread for hundreds of milliseconds.
 *
 *   npx tsx bench/workspace-reads.ts --size 1m
 *   npx tsx bench/workspace-reads.ts --size 100k --root ../other-checkout   # another version's server
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildTemplate, copyTemplate } from './perf/load.ts';
import { gqlClient, startServer } from './perf/util.ts';

const { values: opts } = parseArgs({
  options: {
    size: { type: 'string', default: '100k' },
    seed: { type: 'string', default: '1' },
    root: { type: 'string' },
    'data-dir': { type: 'string', default: join(tmpdir(), 'mini-sphere-perf') },
  },
});
const size = Number(opts.size.replace(/k$/i, '000').replace(/m$/i, '000000'));
const load = await buildTemplate(join(opts['data-dir'], 'templates'), size, Number(opts.seed), (l) => console.error(l));
const dir = join(opts['data-dir'], 'workspace-reads');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
copyTemplate(load.file, dir, 'perf');
const server = await startServer({
  dataDir: dir,
  logFile: join(dir, 'server.log'),
  ...(opts.root ? { root: resolve(opts.root) } : {}),
});
const api = gqlClient(server.url, 'perf');
try {
  const t0 = performance.now();
  await api.request('{ count }');
  console.log(`${opts.size}: first call (opens the workspace) ${(performance.now() - t0).toFixed(0)} ms`);
  const tagList = (
    await api.request<{ tags: { tag: string; count: number }[] }>('{ tags(first: 10000) { tag count } }')
  ).tags;
  const common = tagList[0]!.tag;
  const rare = tagList.at(-1)!.tag;
  const page = (order: string) =>
    `query ($after: String) { entries(first: 20, after: $after, orderBy: { field: ${order} }) { edges { node { id } } pageInfo { endCursor } } }`;
  const reads: [string, string][] = [
    [
      'stats',
      '{ stats { entries edges tags revisions byKind { key count } byStatus { key count } edgesByType { key count } } }',
    ],
    ['brief', '{ brief { text important { id } stale { id } recent { id } topTags { tag count } } }'],
    ['tags(first: 1000)', '{ tags { tag count } }'],
    ['count', '{ count }'],
    ['count(kind:)', '{ count(kind: EPISODIC) }'],
    ['entries { totalCount }', '{ entries(first: 1) { totalCount } }'],
    [`count(tag:), the commonest tag (${tagList[0]!.count})`, `{ count(tag: "${common}") }`],
    [`recent(n: 20, tag:), the commonest tag`, `{ recent(n: 20, tag: "${common}") { id } }`],
    [`recent(n: 20, tag:), the rarest tag (${tagList.at(-1)!.count})`, `{ recent(n: 20, tag: "${rare}") { id } }`],
  ];
  for (const [name, query] of reads) report(name, await times(() => api.request(query)));
  for (const order of ['CREATED_AT', 'UPDATED_AT', 'OBSERVED_AT']) {
    let cursor: string | null = null;
    const first = await times(async () => {
      const r = await api.request<{ entries: { pageInfo: { endCursor: string } } }>(page(order));
      cursor = r.entries.pageInfo.endCursor;
    });
    report(`entries(orderBy: ${order}), first page`, first);
    report(`entries(orderBy: ${order}), next page`, await times(() => api.request(page(order), { after: cursor })));
  }
} finally {
  api.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

async function times(call: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await call();
    out.push(performance.now() - started);
  }
  return out;
}

function report(name: string, ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  console.log(
    `  ${name.padEnd(52)} median ${sorted[2]!.toFixed(1).padStart(7)} ms  (${sorted.map((x) => x.toFixed(0)).join(' / ')})`,
  );
}
