import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { type ServerProcess, spawnServer } from '../helpers/process.ts';
import { openWorkspaceDb } from '../helpers/workspace-db.ts';

/**
 * Recall ranks on reader threads of its own: a statement of another request (`{ count }`,
 * the health check's probe) never queues behind a recall's ranking on the same thread.
 * Measured against the recalls themselves, on a server process with two reader threads.
 */

const ENTRIES = 200;
const CHARS = 100_000;
const RECALL = '{ recall(query: "lorem ipsum dolor mix entry", topK: 50, hops: 3, countRecall: false) { candidates } }';

let dataDir: string;
let server: ServerProcess;

async function post(workspace: string, query: string): Promise<Record<string, unknown>> {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({ query }),
  });
  return (await res.json()) as Record<string, unknown>;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sphere-recall-threads-'));
  for (const ws of ['long', 'quiet']) {
    const created = await runCli(['migrate', '--workspace', ws, '--create'], { SPHERE_DATA_DIR: dataDir });
    expect(created.code, created.stderr).toBe(0);
  }
  // Long texts, written straight into the file: every recall over them ranks for a while.
  const db = await openWorkspaceDb(join(dataDir, 'long.db'));
  try {
    const text = 'lorem ipsum dolor sit amet mix entry '.repeat(Math.ceil(CHARS / 37)).slice(0, CHARS);
    await db.execute({
      sql: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ENTRIES})
       INSERT INTO entries (id, content, content_hash, kind, status, volatility, volatility_source, importance,
                            claim_tag, created_at, updated_at)
       SELECT 'e' || i, 'entry ' || i || ' ' || ?, 'h' || i, 'SEMANTIC', 'ACTIVE', 'DURABLE', 'default', 0.5,
              'UNKNOWN', 1, 1 FROM n`,
      args: [text],
    });
  } finally {
    db.close();
  }
  server = await spawnServer({ SPHERE_DATA_DIR: dataDir, SPHERE_READER_THREADS: '2' });
}, 120_000);

afterAll(async () => {
  server?.proc.kill('SIGTERM');
  await server?.exited;
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('recall beside other reads', () => {
  it('leaves statements of other requests and /health waiting for none of its ranking', async () => {
    const warm = await post('long', RECALL);
    expect(warm, JSON.stringify(warm)).toHaveProperty('data.recall.candidates');
    // Four recalls in flight at all times, on the two reader threads' worth of tasks.
    let running = true;
    const recallMs: number[] = [];
    const recalls = Array.from({ length: 4 }, async () => {
      while (running) {
        const t0 = performance.now();
        const answer = await post('long', RECALL);
        recallMs.push(performance.now() - t0);
        expect(answer).toHaveProperty('data.recall.candidates');
      }
    });
    const countMs: number[] = [];
    const healthMs: number[] = [];
    try {
      while (countMs.length < 40) {
        let t0 = performance.now();
        expect(await post('quiet', '{ count }')).toEqual({ data: { count: 0 } });
        countMs.push(performance.now() - t0);
        t0 = performance.now();
        expect((await fetch(new URL('/health', server.url))).status).toBe(200);
        healthMs.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      running = false;
      await Promise.all(recalls);
    }
    const line =
      `recall p50 ${median(recallMs).toFixed(1)} ms (${recallMs.length}); beside it { count } p50 ` +
      `${median(countMs).toFixed(1)} ms, /health p50 ${median(healthMs).toFixed(1)} ms`;
    console.log(line);
    // Queued behind a recall's ranking, each would wait about as long as a recall takes.
    expect(median(countMs), line).toBeLessThan(Math.max(5, median(recallMs) / 4));
    expect(median(healthMs), line).toBeLessThan(Math.max(5, median(recallMs) / 4));
  }, 120_000);
});
