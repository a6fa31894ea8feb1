import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { budget } from '../helpers/budget.ts';
import { runCli, type ServerProcess, startServerProcess } from '../helpers/cli.ts';
import { CAPTURE } from '../helpers/operations.ts';
import type { Data } from '../helpers/server.ts';
import { openWorkspaceDb } from '../helpers/workspace-db.ts';

/**
 * Data written before link refused cycles of supersession may hold one. Nothing that follows
 * supersession may hang on it: the server runs as a child process here, so that a hung one
 * (as the old recall was, for good) is killed and the test fails instead of hanging its runner.
 */

/** Far longer than any answer takes on a busy machine; only a hung server reaches it. */
const HANG_LIMIT = budget(30_000);
const WS = 'ring';

let dataDir: string;
let server: ServerProcess | null = null;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-ring-'));
});
afterEach(async () => {
  await stopServer('SIGKILL');
});
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function stopServer(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!server) return;
  const s = server;
  server = null;
  if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill(signal);
  await s.exited;
}

/** POSTs to the child server, giving up (and so failing the test) once HANG_LIMIT has passed. */
async function gql(query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(server!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': WS },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(HANG_LIMIT),
  });
  const body = (await res.json()) as { data?: Data; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data!;
}

const RECALL = `query ($q: String!) { recall(query: $q, topK: 10, hops: 1) {
  hits { entry { id freshness } } } }`;
const env = () => ({ SPHERE_DATA_DIR: dataDir });

describe('a cycle of SUPERSEDES edges already in the database', () => {
  it(
    'recall, entries and graphView still answer; check reports the cycle and check --fix breaks it at its newest edge',
    async () => {
      server = await startServerProcess(env());
      const ids: string[] = [];
      for (const word of ['first', 'second', 'third']) {
        const out = await gql(CAPTURE, { input: { content: `The rollout plan, ${word} version` } });
        ids.push(out.capture.entry.id);
      }
      const [a, b, c] = ids as [string, string, string];
      await stopServer();

      // Planted as older data would hold it: a supersedes b supersedes c supersedes a, c -> a newest.
      const db = await openWorkspaceDb(join(dataDir, `${WS}.db`));
      try {
        const insert =
          "INSERT INTO edges (src, dst, type, weight, provenance, metadata, created_at, updated_at) VALUES (?, ?, 'SUPERSEDES', 1, 'EXPLICIT', NULL, ?, ?)";
        const t = Date.now();
        for (const [src, dst, at] of [
          [a, b, t - 3000],
          [b, c, t - 2000],
          [c, a, t - 1000],
        ] as const) {
          await db.execute({ sql: insert, args: [src, dst, at, at] });
        }
      } finally {
        db.close();
      }

      server = await startServerProcess(env());
      const origin = new URL(server.url).origin;
      const recalled = (await gql(RECALL, { q: 'rollout plan version' })).recall.hits;
      expect(recalled.map((h: { entry: { id: string } }) => h.entry.id).sort()).toEqual([...ids].sort());
      for (const hit of recalled) expect(hit.entry.freshness).toBe('SUPERSEDED');
      const view = await gql('query ($ids: [ID!]!) { graphView(seedIds: $ids, hops: 3) { nodes { entry { id } } } }', {
        ids: [a],
      });
      expect(view.graphView.nodes).toHaveLength(3);
      expect((await fetch(`${origin}/health`, { signal: AbortSignal.timeout(HANG_LIMIT) })).status).toBe(200);

      // Beside the running server: check names the cycle, --fix drops c -> a and nothing else.
      const check = await runCli(['check', '--workspace', WS], env());
      expect(check.code).toBe(1);
      expect(check.stdout).toMatch(/supersession {5}1 CYCLE\(S\)/);
      expect(check.stdout).toContain(`cycle through ${[...ids].sort().join(', ')}; --fix drops ${c} -> ${a}`);
      expect(check.stdout).toMatch(/PROBLEM: 1 cycle\(s\) of SUPERSEDES edges through 3 entries/);

      const fixed = await runCli(['check', '--workspace', WS, '--fix', '--json'], env());
      expect(fixed.stderr).toBe('');
      expect(fixed.code).toBe(0);
      const report = JSON.parse(fixed.stdout);
      expect(report.repaired.droppedEdges).toEqual([expect.objectContaining({ src: c, dst: a, type: 'SUPERSEDES' })]);
      expect(report).toMatchObject({ ok: true, supersedesCycles: [] });
      const again = await runCli(['check', '--workspace', WS, '--fix'], env());
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/nothing to repair/);

      const after = await openWorkspaceDb(join(dataDir, `${WS}.db`));
      try {
        const edges = (await after.execute("SELECT src, dst FROM edges WHERE type = 'SUPERSEDES' ORDER BY created_at"))
          .rows;
        expect(edges.map((r) => [r.src, r.dst])).toEqual([
          [a, b],
          [b, c],
        ]);
        const audit = (
          await after.execute("SELECT actor, details FROM audit_log WHERE action = 'break_supersedes_cycles'")
        ).rows;
        expect(audit).toHaveLength(1);
        expect(JSON.parse(String(audit[0]?.details)).droppedEdges).toHaveLength(1);
        const unlinked = (await after.execute("SELECT entry_id, edge FROM events WHERE type = 'UNLINKED'")).rows;
        expect(unlinked.map((r) => r.entry_id)).toEqual([c]);
      } finally {
        after.close();
      }

      // The running server now orders the chain: a, then b (which a supersedes), then c.
      const ordered = (await gql(RECALL, { q: 'rollout plan version' })).recall.hits;
      expect(ordered.map((h: { entry: { id: string } }) => h.entry.id)).toEqual([a, b, c]);
    },
    budget(240_000),
  );
});
