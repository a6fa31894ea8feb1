import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_BUDGET } from '../helpers/budget.ts';
import { type ServerProcess, startServerProcess } from '../helpers/cli.ts';
import { type EmbeddingsServer, embeddingsUrl, freePort, startEmbeddingsServer } from '../helpers/embeddings-server.ts';
import { CAPTURE } from '../helpers/operations.ts';
import type { Data } from '../helpers/server.ts';
import { settle } from '../helpers/ws.ts';

// The endpoint is down when the server starts and SPHERE_EMBEDDINGS_DIM is not set, so the
// server cannot learn the vector size; it must serve anyway and catch up once the endpoint is up.

const RECALL = `query ($q: String!) { recall(query: $q, topK: 5) {
  vectorArm { model searched withoutVector skipped } hits { arms entry { id } } } }`;
const STATS = `{ stats { entries semantic { model dim vectors lacking
  embedder { state reason attempts retryAt since } } } }`;

const TEXTS = [
  'The production deploy failed on Friday because the database migration timed out.',
  'My sister adopted a golden retriever puppy last spring.',
  'We hiked the Appalachian trail for three days in October.',
  'Jon opened a dance studio after losing his job at the bank.',
];

interface Health {
  status: string;
  embeddings?: { state: string; model: string; dim: number | null; reason: string | null; attempts: number };
  reasons?: string[];
}

async function gql(url: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': 'outage' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: Data; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data!;
}

async function health(origin: string): Promise<{ status: number; body: Health }> {
  const res = await fetch(`${origin}/health`);
  return { status: res.status, body: (await res.json()) as Health };
}

/** Polls until `test` holds: the server retries on its own schedule; the test's budget bounds the wait. */
async function until<T>(read: () => Promise<T>, test: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (test(value)) return value;
    await settle(200);
  }
}

const logLines = (p: ServerProcess) =>
  p
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

async function stop(p: ServerProcess | undefined) {
  if (!p || p.child.exitCode !== null) return null;
  p.child.kill('SIGTERM');
  return p.exited;
}

describe('an http embedder that is down at start-up, with no dimension configured', () => {
  let dataDir: string;
  let port: number;
  let server: ServerProcess | undefined;
  let endpoint: EmbeddingsServer | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-embed-down-'));
    port = await freePort();
  });
  afterAll(async () => {
    await stop(server);
    await endpoint?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it(
    'serves by keyword, says why, and fills in the vectors once the endpoint answers',
    async () => {
      server = await startServerProcess({
        SPHERE_DATA_DIR: dataDir,
        SPHERE_EMBEDDINGS: 'http',
        SPHERE_EMBEDDINGS_URL: embeddingsUrl(port),
        SPHERE_EMBEDDINGS_MODEL: 'late-model',
      });
      const origin = new URL(server.url).origin;
      // Logged by the first attempt, which may end after the server is listening.
      const warning = await vi.waitFor(
        () => {
          const line = logLines(server!).find((l) => String(l.msg).startsWith('embeddings unavailable'));
          if (!line) throw new Error('no "embeddings unavailable" line yet');
          return line;
        },
        { timeout: TEST_BUDGET / 2, interval: 50 },
      );
      expect(warning.msg).toMatch(
        /embeddings unavailable: embeddings endpoint unreachable \(fetch failed.*ECONNREFUSED/,
      );
      expect(server.output()).toMatch(/ {2}embeddings late-model \(unavailable: .*ECONNREFUSED.*retrying\)/);

      const down = await health(origin);
      expect(down.status).toBe(200);
      expect(down.body).toMatchObject({
        status: 'degraded',
        embeddings: { state: 'unavailable', model: 'late-model', dim: null },
      });
      expect(down.body.reasons?.[0]).toMatch(
        /^embeddings unavailable \(.*ECONNREFUSED.*\d+ attempts\): recall is by keyword only/,
      );

      const ids: string[] = [];
      for (const content of TEXTS) {
        const out = (await gql(server.url, CAPTURE, { input: { content } })).capture;
        expect(out.outcome).toBe('STORED');
        ids.push(out.entry.id);
      }
      const during = (await gql(server.url, RECALL, { q: 'deploy migration' })).recall;
      expect(during.hits[0].entry.id).toBe(ids[0]);
      expect(during.hits[0].arms).not.toContain('VECTOR');
      expect(during.vectorArm).toMatchObject({ model: 'late-model', searched: 0, withoutVector: during.hits.length });
      expect(during.vectorArm.skipped).toMatch(/^vector arm skipped: embeddings unavailable: .*ECONNREFUSED/);
      const pending = (await gql(server.url, STATS)).stats.semantic;
      expect(pending).toMatchObject({ model: 'late-model', dim: 0, vectors: 0, lacking: TEXTS.length });
      expect(pending.embedder).toMatchObject({ state: 'UNAVAILABLE', reason: expect.stringMatching(/ECONNREFUSED/) });
      expect(pending.embedder.attempts).toBeGreaterThanOrEqual(1);
      expect(Date.parse(pending.embedder.retryAt)).toBeGreaterThan(Date.parse(pending.embedder.since));

      // The endpoint comes up where it was configured: no restart, no new write needed.
      endpoint = await startEmbeddingsServer({ port, glove: false });
      const filled = await until(
        async () => (await gql(server!.url, STATS)).stats.semantic,
        (s) => s.vectors === TEXTS.length,
      );
      expect(filled).toMatchObject({
        dim: endpoint.dim,
        lacking: 0,
        embedder: { state: 'READY', reason: null, attempts: 0, retryAt: null },
      });
      const asked = endpoint.requests.filter((r) => r.model === 'late-model').flatMap((r) => r.input);
      for (const content of TEXTS) expect(asked).toContain(content);

      const after = (await gql(server.url, RECALL, { q: 'deploy migration' })).recall;
      expect(after.vectorArm).toEqual({ model: 'late-model', searched: TEXTS.length, withoutVector: 0, skipped: null });
      expect(after.hits[0].entry.id).toBe(ids[0]);
      expect(after.hits[0].arms).toContain('VECTOR');
      const up = await health(origin);
      expect(up).toMatchObject({
        status: 200,
        body: { status: 'ok', embeddings: { state: 'ready', dim: endpoint.dim } },
      });
      expect(logLines(server).some((l) => String(l.msg).startsWith('embeddings ready; filling in'))).toBe(true);
      // One warning for the reason, not one per failed attempt.
      expect(logLines(server).filter((l) => String(l.msg).startsWith('embeddings unavailable'))).toHaveLength(1);
    },
    TEST_BUDGET,
  );

  it(
    'stops cleanly on SIGTERM while the embedder is still unavailable',
    async () => {
      const waiting = await startServerProcess({
        SPHERE_DATA_DIR: dataDir,
        SPHERE_EMBEDDINGS: 'http',
        SPHERE_EMBEDDINGS_URL: embeddingsUrl(await freePort()),
        SPHERE_EMBEDDINGS_MODEL: 'never-up',
      });
      expect((await health(new URL(waiting.url).origin)).body.embeddings?.state).toBe('unavailable');
      expect(await stop(waiting)).toEqual({ code: 0, signal: null });
    },
    TEST_BUDGET,
  );
});
