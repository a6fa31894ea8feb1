import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  const res = await fetch(`${server.url}/graphql`, {
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
