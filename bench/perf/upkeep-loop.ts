/**
 * What building an impact list costs the rest of the process: on a copy of a perf template
 * with its impact index emptied, lists the words nearest to a few document counts, one
 * write each through the workspace writer, as the server's upkeep does; during each build
 * it records the event loop's delay (monitorEventLoopDelay, 1 ms resolution) and how long a
 * capture into another workspace, sent every 25 ms, waits.
 *
 *   npx tsx bench/perf/upkeep-loop.ts <template.db> [docs,docs,...]
 *
 * Prints one JSON line per list. Run against two trees in turn (same template) to compare.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { locateWorkspace } from '../../src/db/client.ts';
import * as impact from '../../src/db/impact-index.ts';
import { openDatabase } from '../../src/db/open.ts';
import { captureWrite } from '../../src/memory/capture.ts';

const [template, targetsArg] = process.argv.slice(2);
if (!template) throw new Error('usage: upkeep-loop.ts <template.db> [docs,docs,...]');
const targets = (targetsArg ?? '10000,20000,30000,50000,100000').split(',').map(Number);
const shape = { frequentMinDocs: 1_000, frequentShare: 0.01, headPostings: impact.IMPACT_INDEX.headPostings };

const dir = await mkdtemp(join(tmpdir(), 'upkeep-loop-'));
const where = (id: string) => locateWorkspace(id, { dataDir: dir, dbUrl: null, dbAuthToken: null });
await copyFile(template, join(dir, 'big.db'));
const big = await openDatabase(where('big'), { workspace: 'big', onCommit: () => {} });
const other = await openDatabase(where('other'), { workspace: 'other', onCommit: () => {} });

type Listing = (term: string) => Promise<unknown>;
const api = impact as unknown as Record<string, (...args: unknown[]) => unknown>;
// This tree's way of building a list: a planned write, or a function write (the way before it).
const list: Listing = api.listTermWrite
  ? (term) => big.writer.run(api.listTermWrite!(term, shape) as Parameters<typeof big.writer.run>[0])
  : (term) => big.writer.run(({ db }) => api.listTerm!(db, term, shape) as Promise<unknown>);

try {
  await big.writer.run(async ({ db }) => {
    for (const table of ['impact_terms', 'impact_postings', 'impact_docs', 'impact_meta']) {
      await db.run(sql.raw(`DELETE FROM ${table}`));
    }
  });
  const vocab = await big.db.all<{ term: string; docs: number }>(
    sql`SELECT term, doc AS docs FROM impact_fts_terms WHERE doc >= ${shape.frequentMinDocs}`,
  );
  const picked = targets.map(
    (t) => vocab.reduce((best, v) => (Math.abs(v.docs - t) < Math.abs(best.docs - t) ? v : best), vocab[0]!).term,
  );
  await other.writer.run(captureWrite({ content: 'warm up the write thread' }));
  let seq = 0;
  for (const term of picked) {
    const docs = vocab.find((v) => v.term === term)!.docs;
    const waits: number[] = [];
    let building = true;
    const probe = (async () => {
      while (building) {
        const sent = performance.now();
        await other.writer.run(captureWrite({ content: `probe ${seq++} while listing ${term}` }));
        waits.push(performance.now() - sent);
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    // A second view of the same: the longest gap between two ticks of a 1 ms interval.
    let last = performance.now();
    let gap = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      gap = Math.max(gap, now - last);
      last = now;
    }, 1);
    const started = performance.now();
    await list(term);
    const took = performance.now() - started;
    // The build may end in the same turn of the loop it blocked: let the histogram's timer see it.
    await new Promise((r) => setTimeout(r, 20));
    loop.disable();
    clearInterval(ticker);
    building = false;
    await probe;
    const ms = (ns: number) => Math.round(ns / 1e5) / 10;
    console.log(
      JSON.stringify({
        term,
        docs,
        buildMs: Math.round(took),
        loopMaxMs: ms(loop.max),
        loopP99Ms: ms(loop.percentile(99)),
        tickGapMs: Math.round(gap),
        captureMaxMs: Math.round(Math.max(...waits)),
        captures: waits.length,
      }),
    );
  }
} finally {
  await big.writer.close();
  await other.writer.close();
  big.client.close();
  other.client.close();
  await rm(dir, { recursive: true, force: true });
}
