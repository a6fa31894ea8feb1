import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE } from '../helpers/operations.ts';
import { type ServerProcess, spawnServer } from '../helpers/process.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { collect, wsClient } from '../helpers/ws.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.stop();
});

/** Parses Prometheus text exposition into `name{labels}` → value. */
function parsePrometheus(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (-?[0-9.eE+-]+|NaN|\+Inf|-Inf)$/.exec(line);
    if (!m?.[1] || !m[2]) throw new Error(`not Prometheus text: ${line}`);
    out.set(m[1], Number(m[2]));
  }
  return out;
}

const scrape = async () => parsePrometheus(await (await fetch(`${t.origin}/metrics`)).text());

describe('metrics and logs', () => {
  it('serves Prometheus text whose counters move with traffic', async () => {
    const before = await scrape();
    const key = 'sphere_graphql_requests_total{operation="capture",type="mutation"}';
    await t.gqlOk('mutation { capture(input: { content: "metric me" }) { outcome } }', {}, { workspace: 'obs' });
    await t.gqlOk('{ recall(query: "metric") { hits { snippet } } }', {}, { workspace: 'obs' });
    await t.gql('{ entry(id: "x") { id } append: count(kind: ROBOT) }', {}, { workspace: 'obs' });
    await t.gql('mutation { append(input: { id: "nope", addition: "x" }) { entry { id } } }', {}, { workspace: 'obs' });
    const after = await scrape();
    expect(after.get(key)).toBe((before.get(key) ?? 0) + 1);
    expect(after.get('sphere_recall_duration_seconds_count')).toBe(
      (before.get('sphere_recall_duration_seconds_count') ?? 0) + 1,
    );
    expect(after.get('sphere_graphql_errors_total{operation="append",code="NOT_FOUND"}')).toBe(1);
    expect(after.get('sphere_events_published_total')).toBeGreaterThanOrEqual(1);
    expect(after.get('sphere_workspace_database_bytes')).toBeGreaterThan(0);
    expect(after.get('sphere_workspaces_open')).toBeGreaterThanOrEqual(1);
    // Workspace names are never listed.
    expect([...after.keys()].some((k) => k.includes('obs'))).toBe(false);
    expect(after.has('sphere_write_queue_depth')).toBe(true);
    // Operation names are the client's free text: labels never carry them.
    await t.gqlOk('query Cardinality4711 { count }', {}, { workspace: 'obs' });
    expect([...(await scrape()).keys()].some((k) => k.includes('Cardinality4711'))).toBe(false);
    expect(after.has('sphere_subscriptions_open')).toBe(true);
  });

  it('counts a bad variable value as the BAD_USER_INPUT its client gets, not as an internal error', async () => {
    const before = await scrape();
    const res = await t.gql('query ($n: Int) { recent(n: $n) { id } }', { n: 'x' }, { workspace: 'obs' });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const after = await scrape();
    const count = (code: string) => `sphere_graphql_errors_total{operation="recent",code="${code}"}`;
    expect(after.get(count('BAD_USER_INPUT'))).toBe((before.get(count('BAD_USER_INPUT')) ?? 0) + 1);
    expect(after.get(count('INTERNAL_SERVER_ERROR'))).toBeUndefined();
  });

  it('counts an answer refused RESPONSE_TOO_LARGE once measured, over HTTP and WebSocket', async () => {
    // A cap just over the size answers are measured at in one walk, so this one is measured
    // as it is serialized, after execution: 1,024 tags read in ~30 KB, answered in ~80 KB.
    const small = await startTestServer({ config: { maxResponseBytes: 70_000 } });
    try {
      for (let i = 0; i < 32; i++) {
        const tags = Array.from({ length: 32 }, (_, j) => `tag-${i}-${j}`);
        await small.gqlOk(CAPTURE, { input: { content: `tagged ${i}`, tags } }, { workspace: 'obs' });
      }
      const doc = '{ tags(first: 2000) { tag count cursor } }';
      const key = 'sphere_graphql_errors_total{operation="tags",code="RESPONSE_TOO_LARGE"}';
      const metrics = async () => parsePrometheus(await (await fetch(`${small.origin}/metrics`)).text());
      const before = (await metrics()).get(key) ?? 0;
      const overHttp = await small.gql(doc, {}, { workspace: 'obs' });
      expect(overHttp.errors?.[0]?.extensions?.code).toBe('RESPONSE_TOO_LARGE');
      const client = wsClient(small.wsUrl, { workspace: 'obs' });
      try {
        const refused = collect(client, doc);
        await refused.until(() => refused.errors.length > 0 || refused.completed);
        expect(JSON.stringify(refused.errors)).toContain('RESPONSE_TOO_LARGE');
      } finally {
        await client.dispose();
      }
      expect((await metrics()).get(key)).toBe(before + 2);
    } finally {
      await small.stop();
    }
  });

  it('reports how long the shared event loop stalled since the previous scrape', async () => {
    const max = 'sphere_event_loop_delay_seconds{quantile="1"}';
    await scrape();
    // The server runs in this process: holding the loop here stalls it as a slow request would.
    await new Promise((r) => setTimeout(r, 50));
    const until = performance.now() + 400;
    while (performance.now() < until) {}
    await new Promise((r) => setTimeout(r, 50));
    const stalled = await scrape();
    expect(stalled.get(max)).toBeGreaterThanOrEqual(0.3);
    expect(stalled.get('sphere_event_loop_delay_seconds{quantile="0.99"}')).toBeGreaterThanOrEqual(0.3);
    expect(stalled.has('sphere_event_loop_delay_seconds{quantile="0.5"}')).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect((await scrape()).get(max)).toBeLessThan(0.3);
  });
});

describe('logs of a real server process', () => {
  let dataDir: string;
  let server: ServerProcess;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-logs-'));
    server = await spawnServer({ SPHERE_DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  });
  afterAll(async () => {
    server?.proc.kill('SIGTERM');
    await server?.exited;
    await rm(dataDir, { recursive: true, force: true });
  });

  it('logs one JSON line per operation with request id, workspace and operation, and never content or tokens', async () => {
    const secret = 'ultraviolet-secret-content-4711';
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-workspace': 'logs', authorization: '' },
      body: JSON.stringify({ query: `mutation { capture(input: { content: "${secret}" }) { outcome } }` }),
    });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    const lines = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const line = lines.find((l) => l.operation === 'capture');
    expect(line).toMatchObject({ workspace: 'logs', operation: 'capture', type: 'mutation' });
    expect(typeof line?.requestId).toBe('string');
    expect(server.output()).not.toContain(secret);
  });
});
