import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { budget, PROCESS_START_BUDGET } from '../helpers/budget.ts';
import { type ServerProcess, spawnServer } from '../helpers/process.ts';

/**
 * The SQL threads (the write thread and the reader threads) start together when a burst of
 * requests opens several workspaces at once, and stop when their databases close. None may
 * fail while it starts: a thread that failed took every call sent to it along, and the
 * workspace being opened answered UNAVAILABLE.
 */

const READERS = 8;
const WORKSPACES = 12;

let dataDir: string;
let server: ServerProcess;

async function post(workspace: string, query: string, variables?: Record<string, unknown>) {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: (await res.json()) as { data?: unknown; errors?: { message: string }[] } };
}

describe('SQL threads under a burst of workspaces', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sphere-sql-threads-'));
    // Few open databases, many reader threads: every round closes databases (their threads
    // stop with the last one) and opens others (threads start again, several at once).
    server = await spawnServer({
      SPHERE_DATA_DIR: dataDir,
      SPHERE_READER_THREADS: String(READERS),
      SPHERE_MAX_OPEN_WORKSPACES: '2',
    });
  });
  afterAll(async () => {
    server?.proc.kill('SIGTERM');
    await server?.exited;
    await rm(dataDir, { recursive: true, force: true });
  });

  it('opens a workspace whose file another process holds locked without holding up anyone else', async () => {
    // Another process (a tool beside the server) holds its file exclusively for a while.
    const libsql = createRequire(import.meta.url).resolve('libsql');
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const Database = require(${JSON.stringify(libsql)});
         const db = new Database(${JSON.stringify(join(dataDir, 'held.db'))});
         db.exec('PRAGMA locking_mode = EXCLUSIVE');
         db.exec('BEGIN EXCLUSIVE');
         db.exec('CREATE TABLE tool_scratch (k INTEGER)');
         console.log('held');
         setTimeout(() => { db.exec('ROLLBACK'); db.close(); }, 2500);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = once(holder, 'exit');
    await once(holder.stdout!, 'data');
    // The request for it waits for the lock (up to 5 s); /health and other workspaces do not.
    const opening = post('held', '{ count }');
    const health: number[] = [];
    const other: number[] = [];
    let done = false;
    void opening.finally(() => {
      done = true;
    });
    while (!done) {
      let t0 = performance.now();
      const res = await fetch(new URL('/health', server.url));
      await res.text();
      expect(res.status).toBe(200);
      health.push(performance.now() - t0);
      t0 = performance.now();
      const { body } = await post('burst-0', '{ count }');
      expect(body.errors).toBeUndefined();
      other.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
    await exited;
    const { status, body } = await opening;
    console.log(
      `workspace held by another process: /health max ${Math.max(...health).toFixed(0)} ms, other workspace's reads max ${Math.max(...other).toFixed(0)} ms over ${health.length} probes`,
    );
    expect(status).toBe(200);
    expect(body).toEqual({ data: { count: 0 } });
    expect(health.length).toBeGreaterThan(5);
    // Before, the open waited in SQLite's busy handler on the request thread: /health waited the whole 2.5 s.
    expect(Math.max(...health)).toBeLessThan(1000);
    expect(Math.max(...other)).toBeLessThan(1000);
  });

  it('answers every read and write while threads start and stop', async () => {
    const failures: string[] = [];
    let answered = 0;
    for (let round = 0; round < 6; round++) {
      const calls = Array.from({ length: WORKSPACES }, (_, w) => {
        const workspace = `burst-${(w + round) % WORKSPACES}`;
        return [
          post(workspace, 'mutation ($c: String!) { capture(input: { content: $c, kind: EPISODIC }) { outcome } }', {
            c: `round ${round} of workspace ${w}: the deploy finished`,
          }),
          post(workspace, '{ recall(query: "deploy") { hits { entry { id } } } }'),
          post(workspace, '{ recent(n: 5) { id } count }'),
        ];
      }).flat();
      for (const { status, body } of await Promise.all(calls)) {
        answered++;
        if (status !== 200 || body.errors) failures.push(`${status} ${JSON.stringify(body.errors)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(answered).toBe(6 * WORKSPACES * 3);
    // Every capture is there once its workspace is opened again.
    let total = 0;
    for (let w = 0; w < WORKSPACES; w++) {
      const { body } = await post(`burst-${w}`, '{ count }');
      total += (body.data as { count: number }).count;
    }
    expect(total).toBe(6 * WORKSPACES);
  });
});

/** Within the test's budget, after the program's own start: ample for a process to exit. */
const EXIT_WAIT_MS = budget(20_000);

describe('SQL threads when the server stops', () => {
  it('leave nothing running: a program that stops its server exits by itself', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sphere-sql-exit-'));
    const src = (path: string) => JSON.stringify(new URL(`../../src/${path}`, import.meta.url).href);
    // Reads one at a time on a pool of 4 reader threads: one thread is ever needed.
    const program = `
      import { loadConfig } from ${src('config.ts')};
      import { buildServer } from ${src('server/server.ts')};
      const server = buildServer(loadConfig({ SPHERE_READER_THREADS: '4' },
        { port: 0, host: '127.0.0.1', dataDir: ${JSON.stringify(dir)}, rateLimit: 0, logLevel: 'silent' }));
      const { url } = await server.start();
      const post = (workspace, query) => fetch(url.replace(/\\/graphql$/, '') + '/graphql', {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-workspace': workspace },
        body: JSON.stringify({ query }) }).then((r) => r.json());
      for (const ws of ['one', 'two']) {
        const stored = await post(ws, 'mutation { capture(input: { content: "a lighthouse by the sea" }) { outcome } }');
        console.log(JSON.stringify(stored));
        for (let i = 0; i < 5; i++) await post(ws, '{ recall(query: "lighthouse") { hits { snippet } } count }');
      }
      await server.stop();
      console.log('stopped');
    `;
    const file = join(dir, 'program.mjs');
    await writeFile(file, program);
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
    });
    child.stderr!.on('data', (d) => {
      out += d;
    });
    const exited = once(child, 'exit');
    try {
      // However slow the machine, the program ends soon after it stops its server; a thread
      // left running would keep it alive until it is killed.
      await vi.waitFor(() => expect(out).toContain('stopped'), { timeout: PROCESS_START_BUDGET, interval: 100 });
      expect(out.match(/"outcome":"STORED"/g)).toHaveLength(2);
      const stoppedAt = Date.now();
      const outcome = await Promise.race([
        exited.then(() => 'exited'),
        sleep(EXIT_WAIT_MS, 'still running', { ref: false }),
      ]);
      expect(outcome, out).toBe('exited');
      expect(child.exitCode, out).toBe(0);
      expect(Date.now() - stoppedAt).toBeLessThan(EXIT_WAIT_MS);
    } finally {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
