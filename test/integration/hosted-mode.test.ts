import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type ServerProcess, startServerProcess } from '../helpers/cli.ts';
import { type HranaTestServer, startHranaServer } from '../helpers/hrana-server.ts';
import { CAPTURE, LINK, RECALL, UNLINK } from '../helpers/operations.ts';
import type { Data, GqlResponse } from '../helpers/server.ts';
import { startTestServer } from '../helpers/server.ts';
import { collect, wsClient } from '../helpers/ws.ts';

// The server in hosted mode (SPHERE_DB_URL), as a real process, over the Hrana wire to a
// test service whose database files the tests read directly.

const TOKEN = 'hosted-secret';
const MIGRATIONS = (
  JSON.parse(readFileSync(new URL('../../drizzle/meta/_journal.json', import.meta.url), 'utf8')) as {
    entries: unknown[];
  }
).entries.length;

let dir: string;
let hrana: HranaTestServer;
let serve: ServerProcess;

function hostedEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    SPHERE_DATA_DIR: join(dir, 'data'),
    SPHERE_DB_URL: hrana.urlTemplate,
    SPHERE_DB_AUTH_TOKEN: TOKEN,
    SPHERE_CONTROL_DB_URL: hrana.url('_control'),
    ...extra,
  };
}

async function gql(query: string, variables: Record<string, unknown>, workspace: string): Promise<GqlResponse> {
  const res = await fetch(serve.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({ query, variables }),
  });
  return { ...((await res.json()) as Omit<GqlResponse, 'status'>), status: res.status };
}

async function ok(query: string, variables: Record<string, unknown>, workspace: string): Promise<Data> {
  const res = await gql(query, variables, workspace);
  if (res.errors?.length || !res.data) throw new Error(`GraphQL errors (${res.status}): ${JSON.stringify(res.errors)}`);
  return res.data;
}

const capture = async (workspace: string, input: Record<string, unknown>) =>
  (await ok(CAPTURE, { input }, workspace)).capture as { outcome: string; entry: { id: string } };

/** Rows of a workspace database, read from the test service's file, not through the server. */
function fileRows(name: string, sql: string, ...args: unknown[]): Record<string, unknown>[] {
  const db = new Database(hrana.dbPath(name), { timeout: 5_000 });
  try {
    return db.prepare(sql).all(...args) as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

const contents = (ws: string) => fileRows(ws, 'SELECT content FROM entries ORDER BY n').map((r) => r.content);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hosted-'));
  hrana = await startHranaServer({ dir: join(dir, 'hosted'), token: TOKEN, txTimeoutMs: 2_000 });
  serve = await startServerProcess(hostedEnv());
});

afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  await hrana?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('hosted mode over Hrana', () => {
  it('migrates each workspace database on first open, and the control database', async () => {
    await capture('alpha', { content: 'first words in alpha' });
    expect(fileRows('alpha', 'SELECT count(*) AS n FROM __drizzle_migrations')).toEqual([{ n: MIGRATIONS }]);
    expect(fileRows('alpha', "SELECT count(*) AS n FROM sqlite_master WHERE name = 'entries_fts'")).toEqual([{ n: 1 }]);
    expect(fileRows('_control', "SELECT count(*) AS n FROM sqlite_master WHERE name = 'tokens'")).toEqual([{ n: 1 }]);
    expect(contents('alpha')).toEqual(['first words in alpha']);
  });

  it('captures with every outcome: STORED, BLOCKED, MERGED, REPLACED', async () => {
    const stored = await capture('alpha', { content: 'Postgres runs the billing ledger', tags: ['db'] });
    expect(stored.outcome).toBe('STORED');
    expect((await capture('alpha', { content: 'Postgres runs the billing ledger', tags: ['db'] })).outcome).toBe(
      'BLOCKED',
    );
    const merged = await capture('alpha', { content: 'Postgres runs the billing ledger', tags: ['billing'] });
    expect(merged).toMatchObject({ outcome: 'MERGED', entry: { id: stored.entry.id } });
    const replaced = await capture('alpha', {
      content: 'CockroachDB runs the billing ledger',
      replaces: stored.entry.id,
    });
    expect(replaced.outcome).toBe('REPLACED');
    expect(fileRows('alpha', 'SELECT tag FROM tags WHERE entry_id = ? ORDER BY tag', stored.entry.id)).toEqual([
      { tag: 'billing' },
      { tag: 'db' },
    ]);
    expect(fileRows('alpha', 'SELECT status FROM entries WHERE id = ?', stored.entry.id)).toEqual([
      { status: 'SUPERSEDED' },
    ]);
  });

  it('links and unlinks, recalls through FTS5, a time phrase and graph hops, and draws the graph', async () => {
    const a = (await capture('graph', { content: 'The deploy pipeline uses Argo', tags: ['deploy'] })).entry.id;
    const b = (await capture('graph', { content: 'Argo needs the cluster admin role' })).entry.id;
    const c = (await capture('graph', { content: 'Cluster admins are on the platform team' })).entry.id;
    await ok(LINK, { input: { src: a, dst: b, type: 'RELATES_TO' } }, 'graph');
    await ok(LINK, { input: { src: b, dst: c, type: 'CAUSED_BY' } }, 'graph');
    await ok(LINK, { input: { src: a, dst: c, type: 'CAUSED_BY' } }, 'graph');
    expect((await ok(UNLINK, { src: a, dst: c, type: 'CAUSED_BY' }, 'graph')).unlink.removedEdgeId).toBeTruthy();
    expect(fileRows('graph', 'SELECT count(*) AS n FROM edges')).toEqual([{ n: 2 }]);
    const recall = await ok(
      'query ($q: String!) { recall(query: $q, topK: 8, hops: 1) { queryUsed timeRange { phrase } hits { hop entry { id } } } }',
      { q: 'deploy pipeline today' },
      'graph',
    );
    expect(recall.recall.queryUsed).toBe('deploy pipeline');
    expect(recall.recall.timeRange.phrase).toBe('today');
    const hits = recall.recall.hits as { hop: number; entry: { id: string } }[];
    expect(hits[0]?.entry.id).toBe(a);
    expect(hits.find((h) => h.entry.id === b)?.hop).toBe(1);
    const view = await ok(
      'query ($id: ID!) { graphView(seedIds: [$id], hops: 2) { nodes { hop entry { id } } edges { type } } }',
      { id: a },
      'graph',
    );
    expect((view.graphView.nodes as { hop: number }[]).map((n) => n.hop).sort()).toEqual([0, 1, 2]);
    const entry = await ok(
      'query ($id: ID!) { entry(id: $id) { tags connections(first: 8) { direction entry { id } } } }',
      { id: b },
      'graph',
    );
    expect(entry.entry.tags).toEqual([]);
    expect((entry.entry.connections as unknown[]).length).toBe(2);
    const plain = await ok(RECALL, { q: 'cluster admin' }, 'graph');
    expect(plain.recall.hits.length).toBeGreaterThan(0);
  });
});

describe('hosted mode over Hrana: events, tools and migrations', () => {
  it('replays events from sinceSeq, then goes live', async () => {
    const last = fileRows('graph', 'SELECT max(seq) AS s FROM events')[0]?.s as number;
    const ws = wsClient(serve.url.replace(/^http/, 'ws'), { workspace: 'graph' });
    const got = collect<{ seq: number; type: string }>(ws, 'subscription { events(sinceSeq: 2) { seq type } }');
    try {
      await got.until((items) => items.length >= last - 2);
      await capture('graph', { content: 'A live capture after the replay' });
      const items = await got.until((all) => all.length >= last - 1);
      expect(items.map((e) => e.seq)).toEqual(Array.from({ length: last - 1 }, (_, i) => i + 3));
      expect(items.at(-1)?.type).toBe('CAPTURED');
    } finally {
      got.dispose();
      await ws.dispose();
    }
  });

  it('runs the staleness pass, export/import, check and reindex against hosted databases', async () => {
    const pass = await ok('mutation { runStalenessPass { report { scanned } } }', {}, 'alpha');
    expect(pass.runStalenessPass.report.scanned).toBeGreaterThan(0);
    const file = join(dir, 'graph.jsonl');
    const env = hostedEnv();
    expect(await runCli(['export', '--workspace', 'graph', '--out', file], env)).toMatchObject({ code: 0 });
    expect(await runCli(['import', '--workspace', 'graph-copy', '--from', 'graph', file], env)).toMatchObject({
      code: 0,
    });
    expect(contents('graph-copy')).toEqual(contents('graph'));
    expect(fileRows('graph-copy', 'SELECT count(*) AS n FROM edges')).toEqual([{ n: 2 }]);
    expect(await runCli(['check', '--workspace', 'graph-copy'], env)).toMatchObject({ code: 0 });
    expect(await runCli(['reindex', '--workspace', 'graph-copy'], env)).toMatchObject({ code: 0 });
    expect(await runCli(['maintain', '--workspace', 'graph-copy'], env)).toMatchObject({ code: 0 });
    const found = await ok(RECALL, { q: 'Argo', hops: 0 }, 'graph-copy');
    expect(found.recall.hits.length).toBe(2);
  });

  it('routes by path even when the URL template has no trailing slash', async () => {
    const t = await startTestServer({
      config: { dbUrl: `${hrana.origin}/{workspace}`, dbAuthToken: TOKEN, controlDbUrl: hrana.url('_control') },
    });
    try {
      await t.gqlOk(CAPTURE, { input: { content: 'kept in its own database' } }, { workspace: 'no-slash' });
    } finally {
      await t.stop();
    }
    expect(contents('no-slash')).toEqual(['kept in its own database']);
  });

  it('migrates one database from two processes at once: both succeed, the schema is applied once', async () => {
    const env = hostedEnv();
    const [one, two] = await Promise.all([
      runCli(['migrate', '--workspace', 'twice'], env),
      runCli(['migrate', '--workspace', 'twice'], env),
    ]);
    expect([one.code, two.code, one.stderr, two.stderr]).toEqual([0, 0, '', '']);
    expect(fileRows('twice', 'SELECT count(*) AS n FROM __drizzle_migrations')).toEqual([{ n: MIGRATIONS }]);
  });
});

/** Captures each content at once (one group commit) and splits them by what the server answered. */
async function captureAll(ws: string, texts: string[]): Promise<{ acked: string[]; refused: GqlResponse[] }> {
  const answers = await Promise.all(texts.map((content) => gql(CAPTURE, { input: { content } }, ws)));
  const acked = texts.filter((_, i) => answers[i]?.data?.capture?.outcome === 'STORED');
  return { acked, refused: answers.filter((a) => !a.data?.capture) };
}

/** Every acknowledged capture is in the file; no refused one is, unless the fault hid a commit. */
function expectExactly(ws: string, acked: string[], all: string[]): void {
  const stored = new Set(contents(ws));
  for (const text of acked) expect(stored.has(text), `acknowledged but missing: ${text}`).toBe(true);
  for (const text of all.filter((t) => !acked.includes(t)))
    expect(stored.has(text), `refused but stored: ${text}`).toBe(false);
}

/** The server's log after `mark`, once it shows `pattern` (log lines trail the answers a little). */
async function logSince(mark: number, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 100 && !pattern.test(serve.output().slice(mark)); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return serve.output().slice(mark);
}

const batchOf = (label: string) => Array.from({ length: 6 }, (_, i) => `${label} capture number ${i}`);

describe('hosted mode under faults: nothing acknowledged is lost, nothing lost is acknowledged', () => {
  beforeAll(async () => {
    await capture('faulty', { content: 'the faulty workspace exists' });
  });

  it('a connection dropped before COMMIT reaches the database', async () => {
    const mark = serve.output().length;
    hrana.drop({ when: 'before', match: /^COMMIT/ });
    const texts = batchOf('dropped');
    const { acked, refused } = await captureAll('faulty', texts);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
    expectExactly('faulty', acked, texts);
    expect(await logSince(mark, /"reason":"[^"]*fetch failed/)).toMatch(/database unavailable/);
    expect((await capture('faulty', { content: 'after the dropped commit' })).outcome).toBe('STORED');
  });

  it('a connection dropped after COMMIT ran: the group is found in the log and acknowledged', async () => {
    hrana.drop({ when: 'after', match: /^COMMIT/ });
    const texts = batchOf('unanswered');
    const { acked, refused } = await captureAll('faulty', texts);
    expect(hrana.pendingDrops).toBe(0);
    // The commit happened: a fresh request finds the group's events, so every capture is acknowledged.
    expect(refused).toEqual([]);
    expect(acked).toEqual(texts);
    expect(contents('faulty').filter((c) => texts.includes(c as string))).toHaveLength(texts.length);
    // And a retry stores nothing twice.
    const { acked: retried } = await captureAll('faulty', texts);
    expect(retried).toEqual([]);
    expect(contents('faulty').filter((c) => texts.includes(c as string))).toHaveLength(texts.length);
  });
});

describe('hosted mode under faults: limits, restarts, refusals, tokens', () => {
  it('a transaction held past the 5-second limit (here 2 s) is refused and rolled back', async () => {
    // Links are decided on what their first request reads, so each group's transaction spans
    // two requests (a group of new captures is one request, which no limit can cut in two).
    const ids: string[] = [];
    for (const content of batchOf('held')) ids.push((await capture('faulty', { content })).entry.id);
    const mark = serve.output().length;
    // The request that would commit arrives after the transaction's limit.
    hrana.delay({ match: /^COMMIT/, ms: 2_500 });
    const pairs = ids.slice(1).map((dst, i) => [ids[i]!, dst] as const);
    const answers = await Promise.all(
      pairs.map(([src, dst]) => gql(LINK, { input: { src, dst, type: 'RELATES_TO' } }, 'faulty')),
    );
    const refused = answers.filter((a) => !a.data?.link);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
    const edges = new Set(fileRows('faulty', "SELECT src || '>' || dst AS e FROM edges").map((r) => r.e));
    for (const [i, [src, dst]] of pairs.entries()) {
      expect(edges.has(`${src}>${dst}`), `link ${i}`).toBe(Boolean(answers[i]?.data?.link));
    }
    expect(await logSince(mark, /"reason":"[^"]*TRANSACTION_TIMEOUT/)).toMatch(/database unavailable/);
    expect((await capture('faulty', { content: 'after the timeout' })).outcome).toBe('STORED');
  });

  it('a lock held outside the service: the write is refused UNAVAILABLE, and the log names the storage error', async () => {
    expect((await capture('locked', { content: 'before the lock' })).outcome).toBe('STORED');
    const before = contents('locked').length;
    const mark = serve.output().length;
    // Another program holds the database's write lock; the service does not wait for it.
    const holder = new Database(hrana.dbPath('locked'), { timeout: 0 });
    holder.exec('BEGIN IMMEDIATE');
    let answer: GqlResponse;
    try {
      answer = await gql(CAPTURE, { input: { content: 'while another program holds the lock' } }, 'locked');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(answer.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
    expect(contents('locked')).toHaveLength(before);
    const log = await logSince(mark, /database unavailable/);
    expect(log).toMatch(
      /"reason":"the workspace database cannot take writes right now; retry later","code":"SQLITE_BUSY/,
    );
    expect((await capture('locked', { content: 'after the lock' })).outcome).toBe('STORED');
  });

  it('the database service restarting mid-commit', async () => {
    const mark = serve.output().length;
    hrana.latencyMs = 300;
    const texts = batchOf('restarted');
    const sent = hrana.roundTrips('faulty');
    const pending = captureAll('faulty', texts);
    // Restarted while the group's first request is on its way: it never runs.
    while (hrana.roundTrips('faulty') === sent) await new Promise((r) => setTimeout(r, 5));
    await hrana.restart();
    hrana.latencyMs = 0;
    const { acked, refused } = await pending;
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
    expectExactly('faulty', acked, texts);
    expect(await logSince(mark, /"reason":"[^"]*(fetch failed|SERVER_ERROR)/)).toMatch(/database unavailable/);
    expect((await capture('faulty', { content: 'after the restart' })).outcome).toBe('STORED');
  });

  it('a refused connection and a wrong token', async () => {
    await hrana.refuse();
    const mark = serve.output().length;
    const refused = await gql(CAPTURE, { input: { content: 'while refused' } }, 'faulty');
    expect(refused.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
    expect(await logSince(mark, /"reason":"[^"]*ECONNREFUSED/)).toMatch(/database unavailable/);
    await hrana.start();
    hrana.token = 'rotated';
    const mark2 = serve.output().length;
    const unauthorized = await gql(CAPTURE, { input: { content: 'with a wrong token' } }, 'faulty');
    expect(unauthorized.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
    const read = await gql('{ count }', {}, 'faulty');
    expect(read.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
    expect(await logSince(mark2, /"reason":"[^"]*HTTP 401/)).toMatch(/database unavailable/);
    hrana.token = TOKEN;
    expect((await capture('faulty', { content: 'with the right token again' })).outcome).toBe('STORED');
    expect(contents('faulty')).not.toContain('while refused');
    expect(contents('faulty')).not.toContain('with a wrong token');
  });
});

describe('hosted mode: round trips', () => {
  /** Requests the test service served for a workspace since the last reset, deferred bookkeeping (UPDATEs) left out. */
  const readsAndWrites = (ws: string) =>
    hrana.log.filter((r) => r.database === ws && !r.statements.some((s) => /^UPDATE entries/.test(s))).length;

  it('16 concurrent writers share round trips (at most 3 per capture), and recall takes at most 4', async () => {
    const ws = 'round-trips';
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push(
        (await capture(ws, { content: `deploy staging note ${i} on cluster ${i % 3}`, tags: ['deploy'] })).entry.id,
      );
    }
    for (let i = 1; i < 12; i++) await ok(LINK, { input: { src: ids[i], dst: ids[i - 1], type: 'RELATES_TO' } }, ws);
    hrana.resetCounts();
    const texts = Array.from({ length: 16 }, (_, c) => Array.from({ length: 4 }, (_, k) => `writer ${c} capture ${k}`));
    await Promise.all(
      texts.map(async (mine) => {
        for (const content of mine) expect((await capture(ws, { content, tags: ['load'] })).outcome).toBe('STORED');
      }),
    );
    expect(hrana.roundTrips(ws) / texts.flat().length).toBeLessThanOrEqual(3);
    expect(contents(ws)).toEqual(expect.arrayContaining(texts.flat()));

    // The first recall of a workspace also asks whether it has impact lists (remembered for a minute).
    await ok('query { recall(query: "deploy", topK: 1) { hits { entry { id } } } }', {}, ws);
    hrana.resetCounts();
    const found = await ok(
      'query ($q: String!) { recall(query: $q, topK: 8, hops: 1) { hits { hop entry { id } } } }',
      { q: 'deploy staging cluster' },
      ws,
    );
    expect(found.recall.hits.length).toBeGreaterThan(0);
    expect(readsAndWrites(ws)).toBeLessThanOrEqual(4);
  });

  it("link and unlink cost the writer's two requests (and the stream's close), with both ends in the answer", async () => {
    const ws = 'link-trips';
    const a = (await capture(ws, { content: 'the payment service moved to a new queue' })).entry.id;
    const b = (await capture(ws, { content: 'the queue drops messages under load' })).entry.id;
    const opened = (r: { statements: string[] }) => r.statements.length > 0;
    hrana.resetCounts();
    const linked = await ok(
      'mutation ($input: LinkInput!) { link(input: $input) { edge { src dst type } source { id } target { id status } } }',
      { input: { src: b, dst: a, type: 'SUPERSEDES' } },
      ws,
    );
    expect(linked.link).toEqual({
      edge: { src: b, dst: a, type: 'SUPERSEDES' },
      source: { id: b },
      target: { id: a, status: 'SUPERSEDED' },
    });
    expect(hrana.log.filter((r) => r.database === ws && opened(r))).toHaveLength(2);
    expect(fileRows(ws, 'SELECT status FROM entries WHERE id = ?', a)).toEqual([{ status: 'SUPERSEDED' }]);

    hrana.resetCounts();
    expect((await ok(UNLINK, { src: b, dst: a, type: 'SUPERSEDES' }, ws)).unlink.removedEdgeId).toBeTruthy();
    expect(hrana.log.filter((r) => r.database === ws && opened(r))).toHaveLength(2);
    expect(fileRows(ws, 'SELECT count(*) AS n FROM edges')).toEqual([{ n: 0 }]);
  });
});
