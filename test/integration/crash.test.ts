import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budget, SLOW_TEST_BUDGET } from '../helpers/budget.ts';
import { runCli, type ServerProcess, startServerProcess } from '../helpers/cli.ts';
import { APPEND, CAPTURE, LINK } from '../helpers/operations.ts';
import { openWorkspaceDb } from '../helpers/workspace-db.ts';

/** A parsed response or row: its shape is what the assertions check. */
// biome-ignore lint/suspicious/noExplicitAny: test data, checked by the assertions that read it
type Loose = Record<string, any>;

/**
 * Kill -9 the real server in the middle of concurrent writes, restart it on the same
 * files, and check that every acknowledged write survived and nothing half-written is
 * visible. `npm run test:crash` runs 20 rounds (CRASH_ROUNDS=20); `npm run test:slow` runs 3.
 */
const ROUNDS = Math.max(1, Number(process.env.CRASH_ROUNDS ?? 3));
const CLIENTS = 20;
const WS = 'crash';

/** What the server acknowledged (200, data, no errors) across all rounds. */
const acked = {
  entries: new Map<string, string>(), // id -> content as captured
  appends: new Map<string, string[]>(), // id -> acknowledged additions, in order
  edges: new Set<string>(), // "src dst type"
};

let dataDir: string;
let server: ServerProcess | null = null;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-crash-'));
});
afterAll(async () => {
  if (server && server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** One mutation; the data when acknowledged, null when it failed or the server died under it. */
async function mutate(url: string, query: string, variables: Record<string, unknown>) {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-workspace': WS },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(15_000),
    });
    if (res.status !== 200) return null;
    const body = (await res.json()) as { data?: Loose | null; errors?: unknown[] };
    return body.errors?.length || !body.data ? null : body.data;
  } catch {
    return null;
  }
}

const tagsOf = (round: number, client: number, i: number) => [`c${client}`, `r${round}`, `i${i}`, 'crash'];
const contentOf = (round: number, client: number, i: number) =>
  `crash round ${round} client ${client} item ${i} tags=${tagsOf(round, client, i).join(',')}`;
const additionOf = (id: string, k: number) => `append ${k} to ${id} ${'x'.repeat(200)} end ${k}`;

/** One client: capture, append to it, link it to its previous entry; again, until the server dies. */
async function client(url: string, round: number, c: number): Promise<void> {
  let previous: string | null = null;
  for (let i = 0; i < 10_000; i++) {
    const content = contentOf(round, c, i);
    const captured = await mutate(url, CAPTURE, { input: { content, tags: tagsOf(round, c, i) } });
    if (!captured) return;
    const id = captured.capture.entry.id as string;
    acked.entries.set(id, content);
    for (let k = 0; k < 2; k++) {
      if (!(await mutate(url, APPEND, { id, addition: additionOf(id, k) }))) return;
      acked.appends.set(id, [...(acked.appends.get(id) ?? []), additionOf(id, k)]);
    }
    if (previous) {
      const type = i % 2 ? 'CAUSED_BY' : 'RELATES_TO';
      if (!(await mutate(url, LINK, { input: { src: id, dst: previous, type } }))) return;
      const [src, dst] = type === 'RELATES_TO' && previous < id ? [previous, id] : [id, previous];
      acked.edges.add(`${src} ${dst} ${type}`);
    }
    previous = id;
  }
}

/** Reads the database files directly and checks them against what was acknowledged. */
async function verifyFiles(): Promise<{ entries: number }> {
  const file = join(dataDir, `${WS}.db`);
  // The first write creates the workspace: killed before any committed, there is none.
  if (!existsSync(file)) {
    expect(acked.entries.size, 'acknowledged entries without a database').toBe(0);
    return { entries: 0 };
  }
  const db = await openWorkspaceDb(file);
  try {
    const q = async (sql: string) => (await db.execute(sql)).rows.map((r) => ({ ...r }) as Loose);
    const entries = new Map(
      (await q('SELECT id, content FROM entries')).map((r) => [r.id as string, r.content as string]),
    );
    const tags = new Map<string, string[]>();
    for (const r of await q('SELECT entry_id, tag FROM tags ORDER BY tag')) {
      tags.set(r.entry_id, [...(tags.get(r.entry_id) ?? []), r.tag]);
    }
    const revisions = new Map<string, number>();
    for (const r of await q('SELECT entry_id, count(*) AS n FROM revisions GROUP BY entry_id')) {
      revisions.set(r.entry_id, Number(r.n));
    }
    const edges = new Set((await q('SELECT src, dst, type FROM edges')).map((r) => `${r.src} ${r.dst} ${r.type}`));

    // Every acknowledged write is there.
    for (const [id, content] of acked.entries) {
      const stored = entries.get(id);
      expect(stored, `acknowledged entry ${id}`).toBeDefined();
      expect(stored?.startsWith(content)).toBe(true);
    }
    for (const [id, additions] of acked.appends) {
      const parts = entries.get(id)?.split('\n\n') ?? [];
      expect(parts.slice(1, 1 + additions.length), `acknowledged appends of ${id}`).toEqual(additions);
    }
    for (const edge of acked.edges) expect(edges.has(edge), `acknowledged edge ${edge}`).toBe(true);

    // Nothing half-written: each entry is whole with all its tags, each append whole with its revision.
    for (const [id, content] of entries) {
      const [base, ...additions] = content.split('\n\n');
      const m = /^crash round (\d+) client (\d+) item (\d+) tags=(.*)$/.exec(base ?? '');
      expect(m, `entry ${id} content`).not.toBeNull();
      const expectedTags = (m?.[4] ?? '').split(',').sort();
      expect(tags.get(id), `tags of ${id}`).toEqual(expectedTags);
      for (const [k, a] of additions.entries()) expect(a).toBe(additionOf(id, k));
      expect(revisions.get(id) ?? 0, `revisions of ${id}`).toBe(additions.length);
    }

    // Exactly one event per committed write, and a gap-free log.
    const events = await q('SELECT count(*) AS n, max(seq) AS max, min(seq) AS min FROM events');
    const byType = new Map((await q('SELECT type, count(*) AS n FROM events GROUP BY type')).map((r) => [r.type, r.n]));
    const appended = [...revisions.values()].reduce((a, b) => a + b, 0);
    expect(byType.get('CAPTURED') ?? 0).toBe(entries.size);
    expect(byType.get('APPENDED') ?? 0).toBe(appended);
    expect(byType.get('LINKED') ?? 0).toBe(edges.size);
    const total = Number(events[0]?.n ?? 0);
    expect(total).toBe(entries.size + appended + edges.size);
    if (total > 0) expect([events[0]?.min, events[0]?.max]).toEqual([1, total]);
    return { entries: entries.size };
  } finally {
    db.close();
  }
}

async function verifyServing(url: string, entries: number): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': WS },
    body: JSON.stringify({ query: '{ stats { entries } }' }),
  });
  const body = (await res.json()) as { data?: { stats: { entries: number } } };
  expect(body.data?.stats.entries, JSON.stringify(body)).toBe(entries);
}

async function checkCli(): Promise<void> {
  const exists = existsSync(join(dataDir, `${WS}.db`));
  const res = await runCli(['check', '--workspace', WS], { SPHERE_DATA_DIR: dataDir });
  if (!exists) {
    // Killed before the first write committed: there is no workspace, and check says so.
    expect(res.stderr).toMatch(/does not exist/);
    expect(res.code).toBe(1);
    return;
  }
  expect(res.stdout + res.stderr).toMatch(/: ok/);
  expect(res.code).toBe(0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`crash recovery (${ROUNDS} rounds of kill -9 under ${CLIENTS} writing clients)`, () => {
  it(
    'keeps every acknowledged write and nothing half-written',
    async () => {
      for (let round = 0; round < ROUNDS; round++) {
        server = await startServerProcess({ SPHERE_DATA_DIR: dataDir });
        if (round > 0) {
          const { entries } = await verifyFiles();
          await verifyServing(server.url, entries);
          await checkCli();
        }
        const url = server.url;
        const clients = Array.from({ length: CLIENTS }, (_, c) => client(url, round, c));
        const delay = 200 + Math.floor(Math.random() * 1300);
        await sleep(delay);
        server.child.kill('SIGKILL');
        expect((await server.exited).signal).toBe('SIGKILL');
        await Promise.all(clients);
        console.info(
          `round ${round + 1}/${ROUNDS}: killed after ${delay} ms; acknowledged so far: ` +
            `${acked.entries.size} entries, ${[...acked.appends.values()].flat().length} appends, ${acked.edges.size} edges`,
        );
      }
      expect(acked.entries.size).toBeGreaterThan(0);

      // A last restart: recovered, serving, consistent, and it shuts down cleanly on SIGTERM.
      server = await startServerProcess({ SPHERE_DATA_DIR: dataDir });
      const { entries } = await verifyFiles();
      await verifyServing(server.url, entries);
      await checkCli();
      server.child.kill('SIGTERM');
      expect((await server.exited).code).toBe(0);
    },
    // A round takes seconds; the budget only bounds a hang, and grows with the rounds.
    Math.max(SLOW_TEST_BUDGET, budget(ROUNDS * 30_000)),
  );
});
