import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildServer } from '../../src/server/server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { collect, settle, wsClient } from '../helpers/ws.ts';

const run = promisify(execFile);
const CLI = new URL('../../bin/mini-sphere.js', import.meta.url).pathname;

let t: TestServer;
const tokens: Record<string, { id: string; token: string }> = {};
let canaryId = '';
let canaryEdgeDst = '';
let ownId = '';

const bearer = (name: string) => ({ headers: { authorization: `Bearer ${tokens[name]?.token}` } });
const as = (name: string, query: string, variables?: Record<string, unknown>) => t.gql(query, variables, bearer(name));

beforeAll(async () => {
  t = await startTestServer();
  const control = await t.server.control();
  tokens.a = await control.createToken('ws-a', 'agent');
  tokens.b = await control.createToken('ws-b', 'agent');
  tokens.reader = await control.createToken('ws-a', 'reader');
  tokens.maintainer = await control.createToken('ws-a', 'maintainer');
  const canary = await as(
    'b',
    'mutation { capture(input: { content: "zebracanary secret of workspace b", tags: ["canarytag"], kind: EPISODIC }) { entry { id } } }',
  );
  canaryId = canary.data?.capture.entry.id;
  const other = await as(
    'b',
    'mutation { capture(input: { content: "second b note", kind: EPISODIC }) { entry { id } } }',
  );
  canaryEdgeDst = other.data?.capture.entry.id;
  await as(
    'b',
    `mutation { link(input: { src: "${canaryId}", dst: "${canaryEdgeDst}", type: RELATES_TO }) { edge { type } } }`,
  );
  const own = await as(
    'a',
    'mutation { capture(input: { content: "an ordinary note of workspace a" }) { entry { id } } }',
  );
  ownId = own.data?.capture.entry.id;
});

afterAll(async () => {
  await t?.stop();
});

describe('tokens and workspaces', () => {
  it('requires a valid token once tokens exist, over HTTP', async () => {
    const none = await t.gql('{ count }');
    expect(none.status).toBe(401);
    expect(none.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const bad = await t.gql(
      '{ count }',
      {},
      { headers: { authorization: 'Bearer ms_0000000000000000_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' } },
    );
    expect(bad.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const garbage = await t.gql('{ count }', {}, { headers: { authorization: 'Basic abc' } });
    expect(garbage.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await as('a', '{ count }')).data?.count).toBe(1);
  });

  it('never shows workspace B to A’s token: B’s ids behave exactly like unknown ids', async () => {
    const unknown = '01a00000-0000-7000-8000-000000000000';
    // The x-workspace header cannot switch workspaces once tokens exist.
    const viaHeader = await t.gql(
      '{ recall(query: "zebracanary") { hits { entry { id } } } count }',
      {},
      {
        headers: { ...bearer('a').headers, 'x-workspace': 'ws-b' },
      },
    );
    expect(viaHeader.data?.recall.hits).toEqual([]);
    expect(viaHeader.data?.count).toBe(1);

    const reads = await as(
      'a',
      `{ recall(query: "zebracanary secret workspace") { hits { entry { id } } candidates }
         recent(n: 200) { id content } tags { tag } count(tag: "canarytag") stats { entries edges tags }
         brief { text } eventLog(limit: 1000) { entryId } entry(id: "${canaryId}") { id } }`,
    );
    const text = JSON.stringify(reads.data);
    expect(reads.errors).toBeUndefined();
    expect(text).not.toContain('zebracanary');
    expect(text).not.toContain(canaryId);
    expect(text).not.toContain('canarytag');
    expect(reads.data?.entry).toBeNull();
    expect(reads.data?.stats).toEqual({ entries: 1, edges: 0, tags: 0 });

    const byId = (id: string) => [
      `{ connections(id: "${id}") { direction } }`,
      `{ graphView(seedIds: ["${id}"]) { truncated } }`,
      `mutation { append(input: { id: "${id}", addition: "x" }) { entry { id } } }`,
      `mutation { update(input: { id: "${id}", content: "x" }) { entry { id } } }`,
      `mutation { setStatus(input: { id: "${id}", status: STALE }) { entry { id } } }`,
      `mutation { forget(input: { id: "${id}" }) { forgottenId } }`,
      `mutation { link(input: { src: "${ownId}", dst: "${id}", type: RELATES_TO }) { edge { type } } }`,
      `mutation { unlink(input: { src: "${id}", dst: "${canaryEdgeDst}", type: RELATES_TO }) { removedEdgeId } }`,
      `mutation { capture(input: { content: "replacing", replaces: "${id}" }) { outcome } }`,
    ];
    const canaryAnswers = await Promise.all(byId(canaryId).map((q) => as('a', q)));
    const unknownAnswers = await Promise.all(byId(unknown).map((q) => as('a', q)));
    for (const [i, res] of canaryAnswers.entries()) {
      expect(res.errors?.[0]?.extensions?.code, byId(canaryId)[i]).toBe('NOT_FOUND');
      expect(res.errors?.[0]?.extensions?.code).toBe(unknownAnswers[i]?.errors?.[0]?.extensions?.code);
    }
    // B is untouched.
    const b = await as(
      'b',
      `{ entry(id: "${canaryId}") { content status connections { entry { id } } } stats { entries } }`,
    );
    expect(b.data?.entry).toMatchObject({ content: 'zebracanary secret of workspace b', status: 'ACTIVE' });
    expect(b.data?.entry.connections).toHaveLength(1);
    expect(b.data?.stats.entries).toBe(2);
  });

  it('never shows workspace B to A’s token over WebSocket either', async () => {
    const client = wsClient(t.wsUrl, { authorization: `Bearer ${tokens.a?.token}`, workspace: 'ws-b' });
    const sub = collect(client, 'subscription { events(sinceSeq: 0) { seq entryId entry { content } } }');
    const query = collect(
      client,
      `{ recall(query: "zebracanary") { hits { entry { id } } } entry(id: "${canaryId}") { id } }`,
      {},
      (d) => d,
    );
    await query.until((xs) => xs.length >= 1);
    expect(query.items[0]).toEqual({ recall: { hits: [] }, entry: null });
    await sub.until((xs) => xs.length >= 1);
    await as('b', 'mutation { capture(input: { content: "zebracanary live" }) { outcome } }');
    await settle(300);
    expect(JSON.stringify(sub.items)).not.toContain('zebracanary');
    expect(sub.items.map((e) => e.entryId)).toEqual([ownId]);
    sub.dispose();
    await client.dispose();
  });

  it('closes a WebSocket without a valid token (4403)', async () => {
    const client = wsClient(t.wsUrl, {});
    const closed = new Promise<number>((resolve) => client.on('closed', (e) => resolve((e as { code: number }).code)));
    collect(client, '{ count }');
    expect(await closed).toBe(4403);
    await client.dispose();
  });

  it('enforces roles: reader reads only, maintainer only runs the staleness pass, agent cannot', async () => {
    const write = 'mutation { capture(input: { content: "role check" }) { outcome } }';
    expect((await as('reader', '{ count }')).data?.count).toBe(1);
    expect((await as('reader', write)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(
      (await as('reader', 'mutation { runStalenessPass { report { scanned } } }')).errors?.[0]?.extensions?.code,
    ).toBe('FORBIDDEN');

    const pass = await as(
      'maintainer',
      'mutation { runStalenessPass(input: { limit: 10 }) { report { scanned markedStale reclassified at } } }',
    );
    expect(pass.errors).toBeUndefined();
    expect(pass.data?.runStalenessPass.report.reclassified).toBe(1);
    expect((await as('maintainer', '{ count }')).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await as('maintainer', write)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await as('a', 'mutation { runStalenessPass { report { scanned } } }')).errors?.[0]?.extensions?.code).toBe(
      'FORBIDDEN',
    );

    const reader = wsClient(t.wsUrl, { authorization: `Bearer ${tokens.reader?.token}` });
    const denied = collect(reader, write, {}, (d) => d);
    await denied.until(() => denied.errors.length > 0);
    expect(JSON.stringify(denied.errors)).toContain('FORBIDDEN');
    await reader.dispose();

    const control = createClient({ url: `file:${join(t.dataDir, '_control.db')}` });
    const trail = (
      await control.execute({
        sql: 'SELECT token_id, workspace, action, details FROM audit_log WHERE workspace = ? ORDER BY id DESC',
        args: ['ws-a'],
      })
    ).rows;
    control.close();
    expect(trail[0]).toMatchObject({ token_id: tokens.maintainer?.id, workspace: 'ws-a', action: 'staleness_pass' });
    expect(JSON.parse(String(trail[0]?.details ?? '{}'))).toMatchObject({ reclassified: 1, limit: 10 });
  });

  it('refuses a revoked token at once, over HTTP and on an already-open WebSocket', async () => {
    const control = await t.server.control();
    const temp = await control.createToken('ws-a', 'agent');
    const auth = { headers: { authorization: `Bearer ${temp.token}` } };
    expect((await t.gql('{ count }', {}, auth)).data?.count).toBeGreaterThanOrEqual(1);
    const client = wsClient(t.wsUrl, { authorization: `Bearer ${temp.token}` });
    const closed = new Promise<number>((resolve) => client.on('closed', (e) => resolve((e as { code: number }).code)));
    const sub = collect(client, 'subscription { events { seq } }');
    await settle(300);

    // Revoked from another process, the way an operator would.
    const { stdout } = await run(process.execPath, [CLI, 'token', 'revoke', temp.id], {
      env: { ...process.env, SPHERE_DATA_DIR: t.dataDir },
    });
    expect(stdout).toContain(`revoked ${temp.id}`);
    expect((await t.gql('{ count }', {}, auth)).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await closed).toBe(4403);
    sub.dispose();
    await client.dispose();
  });

  it('creates and lists tokens from the command line without ever printing a stored token', async () => {
    const env = { ...process.env, SPHERE_DATA_DIR: t.dataDir };
    const created = await run(process.execPath, [CLI, 'token', 'create', '--workspace', 'ws-c', '--role', 'reader'], {
      env,
    });
    const lines = created.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id: [0-9a-f]{16}$/);
    const token = lines.at(-1) ?? '';
    expect(token).toMatch(/^ms_[0-9a-f]{16}_/);
    expect((await t.gql('{ count }', {}, { headers: { authorization: `Bearer ${token}` } })).data?.count).toBe(0);

    const listed = await run(process.execPath, [CLI, 'token', 'list', '--json'], { env });
    const list = JSON.parse(listed.stdout) as { id: string; workspace: string; role: string }[];
    expect(list.find((x) => x.id === lines[0]?.slice(4))).toMatchObject({ workspace: 'ws-c', role: 'reader' });
    expect(listed.stdout).not.toContain(token);
    // The secret is base64url, which may itself hold '_': everything after the id.
    expect(listed.stdout).not.toContain(token.split('_').slice(2).join('_') || 'never');
    for (const v of Object.values(tokens)) expect(listed.stdout).not.toContain(v.token);

    const bad = await run(process.execPath, [CLI, 'token', 'create', '--workspace', '../x', '--role', 'agent'], {
      env,
    }).catch((e: { code: number; stderr: string }) => e);
    expect((bad as { code: number }).code).not.toBe(0);
  });
});

describe('modes', () => {
  it('turns introspection off once tokens exist, and on in open mode', async () => {
    const introspect = '{ __schema { queryType { name } } }';
    const denied = await as('a', introspect);
    expect(denied.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const open = await startTestServer();
    try {
      expect((await open.gql(introspect)).data?.__schema.queryType.name).toBe('Query');
    } finally {
      await open.stop();
    }
  });

  it('refuses to start on a non-loopback address without tokens, and says why', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const dataDir = await mkdtemp('/tmp/mini-sphere-mode-');
    const server = buildServer(loadConfig({}, { host: '0.0.0.0', port: 0, dataDir, logLevel: 'silent' }));
    await expect(server.start()).rejects.toThrow(/without tokens/);
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('limits mutations per workspace per minute (RATE_LIMITED) and leaves other workspaces alone', async () => {
    const limited = await startTestServer({ config: { rateLimit: 3 } });
    try {
      const capture = (ws: string, i: number) =>
        limited.gql(`mutation { capture(input: { content: "note ${i}" }) { outcome } }`, {}, { workspace: ws });
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await capture('busy', i));
      expect(results.map((r) => r.errors?.[0]?.extensions?.code ?? 'OK')).toEqual([
        'OK',
        'OK',
        'OK',
        'RATE_LIMITED',
        'RATE_LIMITED',
      ]);
      expect(results[3]?.status).toBe(429);
      expect((await capture('quiet', 0)).errors).toBeUndefined();
      expect((await limited.gql('{ count }', {}, { workspace: 'busy' })).data?.count).toBe(3);
    } finally {
      await limited.stop();
    }
  });
});
