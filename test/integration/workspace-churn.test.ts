import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { budget } from '../helpers/budget.ts';
import { type ServerProcess, spawnServer } from '../helpers/process.ts';

/**
 * Many more workspaces than stay open, each used once: the server closes the least recently
 * used. A workspace's migration ran on a connection of the request thread, so its close was
 * there too, and it waited for the garbage collector: the file, its WAL and its shared
 * memory stayed open until a collection closed hundreds of them at once, each checkpointing
 * its WAL on the event loop (2–3 s with 2,400 workspaces). Now every connection of a
 * workspace the server opens is on a SQL thread, and closes there when the workspace does.
 */

const OPEN = 8;
const WORKSPACES = 120;

let dataDir: string;
let server: ServerProcess;

async function capture(workspace: string): Promise<void> {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({ query: `mutation { capture(input: { content: "note of ${workspace}" }) { outcome } }` }),
  });
  expect(await res.json()).toEqual({ data: { capture: { outcome: 'STORED' } } });
}

/** The workspace files (database, WAL, shared memory) the server process holds open. */
async function filesHeldOpen(pid: number): Promise<string[]> {
  const held: string[] = [];
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    if (target.startsWith(dataDir) && /ws-\d+\.db/.test(target)) held.push(target);
  }
  return held;
}

describe('workspaces beyond those kept open', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sphere-churn-'));
    server = await spawnServer({ SPHERE_DATA_DIR: dataDir, SPHERE_MAX_OPEN_WORKSPACES: String(OPEN) });
  });
  afterAll(async () => {
    server?.proc.kill('SIGTERM');
    if (server) await server.exited;
    await rm(dataDir, { recursive: true, force: true });
  });

  it.skipIf(process.platform !== 'linux')(
    'closes each workspace it lets go of at once: its files released and its WAL checkpointed away',
    async () => {
      const pid = server.proc.pid!;
      const ids = Array.from({ length: WORKSPACES }, (_, i) => `ws-${i}`);
      for (let i = 0; i < ids.length; i += 4) await Promise.all(ids.slice(i, i + 4).map(capture));

      // Closing runs on the SQL threads a moment after the registry lets go.
      await vi.waitFor(
        async () => {
          const held = new Set((await filesHeldOpen(pid)).map((f) => f.replace(/(-wal|-shm)$/, '')));
          const wals = (await readdir(dataDir)).filter((f) => /^ws-\d+\.db-wal$/.test(f));
          console.log(
            `${WORKSPACES} workspaces used, ${OPEN} kept open: files of ${held.size} held, ${wals.length} WAL files left`,
          );
          expect(held.size).toBeLessThanOrEqual(OPEN + 1);
          expect(wals.length).toBeLessThanOrEqual(OPEN + 1);
        },
        { timeout: budget(20_000), interval: 1_000 },
      );
      // Every note is in its file, and the workspaces open again as they are used.
      for (const id of [ids[0]!, ids[WORKSPACES >> 1]!]) {
        const res = await fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-workspace': id },
          body: JSON.stringify({ query: '{ count recent(n: 1) { content } }' }),
        });
        expect(await res.json()).toEqual({ data: { count: 1, recent: [{ content: `note of ${id}` }] } });
      }
    },
  );
});
