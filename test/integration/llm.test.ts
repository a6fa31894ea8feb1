import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LlmConfig } from '../../src/config.ts';
import { TEST_BUDGET } from '../helpers/budget.ts';
import { type ChatServer, llmConfig, startChatServer } from '../helpers/chat-server.ts';
import { type ServerProcess, startServerProcess } from '../helpers/cli.ts';
import { freePort } from '../helpers/embeddings-server.ts';
import { type Data, freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';
import { settle } from '../helpers/ws.ts';

const CAPTURE = `mutation ($input: CaptureInput!) { capture(input: $input) { outcome entry { id kind volatility importance } } }`;
const ENTRY = `query ($id: ID!) { entry(id: $id) { id kind volatility importance status
  classification { kind volatility importance model }
  conflicts { entry { id } newer relation reason confidence model } } }`;
const STATS = '{ stats { llm { state model reason pending } } }';
const EVENTS = '{ eventLog(sinceSeq: 0, limit: 200) { seq type entryId data } }';

/** Polls until `test` holds: the binding works on its own schedule; the test's budget bounds the wait. */
async function until<T>(read: () => Promise<T>, test: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (test(value)) return value;
    await settle(50);
  }
}

async function capture(s: TestServer, ws: string, input: Record<string, unknown>): Promise<Data> {
  return (await s.gqlOk(CAPTURE, { input }, { workspace: ws })).capture;
}

const entryOf = async (s: TestServer, ws: string, id: string) =>
  (await s.gqlOk(ENTRY, { id }, { workspace: ws })).entry as Data;
const pendingOf = async (s: TestServer, ws: string) =>
  (await s.gqlOk(STATS, {}, { workspace: ws })).stats.llm.pending as number;
const drained = (s: TestServer, ws: string) =>
  until(
    () => pendingOf(s, ws),
    (n) => n === 0,
  );

describe('the LLM binding with an endpoint that answers', () => {
  let chat: ChatServer;
  let server: TestServer;
  beforeAll(async () => {
    chat = await startChatServer();
    server = await startTestServer({ config: { llm: llmConfig(chat.url) } });
  });
  afterAll(async () => {
    await server?.stop();
    await chat?.close();
  });

  it('proposes only the fields the caller left to it, and says where each came from', async () => {
    const ws = freshWorkspace('llm');
    const asked = await capture(server, ws, {
      content: 'How to rotate the signing keys: always run rotate.sh, then restart the gateway. Critical.',
      classify: ['KIND', 'IMPORTANCE'],
    });
    // Acknowledged at once with the defaults; the model's answer comes after commit.
    expect(asked.entry).toMatchObject({ kind: 'SEMANTIC', volatility: 'EVOLVING', importance: 0.5 });
    const given = await capture(server, ws, {
      content: 'Met Dana yesterday; urgent: she leaves the company today.',
      kind: 'PERSON',
      volatility: 'DURABLE',
      importance: 0.1,
    });
    await drained(server, ws);

    const a = await entryOf(server, ws, asked.entry.id);
    expect(a).toMatchObject({ kind: 'PROCEDURAL', volatility: 'DURABLE', importance: 0.9 });
    expect(a.classification).toEqual({ kind: 'MODEL', volatility: 'MODEL', importance: 'MODEL', model: 'rules-1' });
    // The caller classified everything: the model was not asked to, and nothing changed.
    const g = await entryOf(server, ws, given.entry.id);
    expect(g).toMatchObject({ kind: 'PERSON', volatility: 'DURABLE', importance: 0.1 });
    expect(g.classification).toEqual({ kind: 'CALLER', volatility: 'CALLER', importance: 'CALLER', model: null });
    const classifications = chat.requests.filter((r) => r.task === 'classification');
    expect(classifications).toHaveLength(1);
    expect(classifications[0]).toMatchObject({ model: 'rules-1', structured: true, status: 200 });

    const events = (await server.gqlOk(EVENTS, {}, { workspace: ws })).eventLog;
    const classified = events.filter((e: Data) => e.type === 'CLASSIFIED');
    expect(classified).toHaveLength(1);
    expect(classified[0]).toMatchObject({
      entryId: asked.entry.id,
      data: { model: 'rules-1', fields: { kind: 'PROCEDURAL', volatility: 'DURABLE', importance: 0.9 } },
    });
  });

  it('reports an update and a contradiction from both entries, and flags the older one in recall', async () => {
    const ws = freshWorkspace('llm');
    const monday = await capture(server, ws, { content: 'The launch is on Monday.', volatility: 'EVOLVING' });
    const budget = await capture(server, ws, { content: 'The budget for the launch party is 5000 euros.' });
    const unrelated = await capture(server, ws, { content: 'Our office plants need water on Fridays.' });
    await drained(server, ws);
    const tuesday = await capture(server, ws, { content: 'The launch moved to Tuesday.', volatility: 'EVOLVING' });
    const budget2 = await capture(server, ws, { content: 'The budget for the launch party is 7000 euros.' });
    await drained(server, ws);

    const newer = await entryOf(server, ws, tuesday.entry.id);
    expect(newer.conflicts).toEqual([
      expect.objectContaining({
        entry: { id: monday.entry.id },
        newer: true,
        relation: 'UPDATES',
        reason: expect.stringContaining('monday -> tuesday'),
        model: 'rules-1',
      }),
    ]);
    const older = await entryOf(server, ws, monday.entry.id);
    expect(older.conflicts).toEqual([
      expect.objectContaining({ entry: { id: tuesday.entry.id }, newer: false, relation: 'UPDATES' }),
    ]);
    // Information, never a rewrite: the older entry is as it was.
    expect(older.status).toBe('ACTIVE');
    const b2 = await entryOf(server, ws, budget2.entry.id);
    expect(b2.conflicts).toEqual([
      expect.objectContaining({ entry: { id: budget.entry.id }, newer: true, relation: 'CONTRADICTS' }),
    ]);
    expect((await entryOf(server, ws, unrelated.entry.id)).conflicts).toEqual([]);

    const events = (await server.gqlOk(EVENTS, {}, { workspace: ws })).eventLog;
    const found = events.filter((e: Data) => e.type === 'CONTRADICTION');
    expect(found.map((e: Data) => [e.entryId, e.data.other, e.data.relation])).toEqual(
      expect.arrayContaining([
        [tuesday.entry.id, monday.entry.id, 'UPDATES'],
        [budget2.entry.id, budget.entry.id, 'CONTRADICTS'],
      ]),
    );
    expect(found.every((e: Data) => e.data.superseded === false)).toBe(true);

    const recall = await server.gqlOk(
      `{ recall(query: "launch", topK: 10) { hits { entry { id } contradictedBy } } }`,
      {},
      { workspace: ws },
    );
    const byId = new Map(recall.recall.hits.map((h: Data) => [h.entry.id, h.contradictedBy]));
    expect(byId.get(monday.entry.id)).toEqual([tuesday.entry.id]);
    expect(byId.get(tuesday.entry.id)).toEqual([]);
    // No SUPERSEDES edge was made with SPHERE_LLM_SUPERSEDE off.
    const edges = await server.gqlOk(
      `query ($id: ID!) { entry(id: $id) { connections { edge { type } } } }`,
      { id: tuesday.entry.id },
      { workspace: ws },
    );
    expect(JSON.stringify(edges)).not.toContain('SUPERSEDES');
  });

  it('reads JSON out of the text of an endpoint without structured output', async () => {
    const ws = freshWorkspace('llm');
    chat.mode = 'no-structured';
    try {
      const e = await capture(server, ws, { content: 'How to brew coffee: grind, pour, wait.', classify: ['KIND'] });
      await drained(server, ws);
      expect((await entryOf(server, ws, e.entry.id)).kind).toBe('PROCEDURAL');
      const last = chat.requests.slice(-2);
      expect(last.map((r) => [r.structured, r.status])).toContainEqual([false, 200]);
    } finally {
      chat.mode = 'ok';
    }
  });
});

describe('SPHERE_LLM_SUPERSEDE', () => {
  let chat: ChatServer;
  const servers: TestServer[] = [];
  beforeAll(async () => {
    chat = await startChatServer();
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });
  afterAll(async () => chat?.close());

  const run = async (extra: Partial<LlmConfig>) => {
    const server = await startTestServer({ config: { llm: llmConfig(chat.url, extra) } });
    servers.push(server);
    const ws = freshWorkspace('sup');
    const old = await capture(server, ws, { content: 'The standup is on Monday.', volatility: 'EVOLVING' });
    await drained(server, ws);
    const now = await capture(server, ws, { content: 'The standup moved to Wednesday.', volatility: 'EVOLVING' });
    await drained(server, ws);
    const edges = await server.gqlOk(
      `query ($id: ID!) { entry(id: $id) { connections { direction edge { type provenance weight metadata } } } }`,
      { id: now.entry.id },
      { workspace: ws },
    );
    return { server, ws, old, now, edges: edges.entry.connections as Data[] };
  };

  it('links an update above the threshold as INFERRED, reversibly', async () => {
    const { server, ws, old, now, edges } = await run({ supersede: true, supersedeConfidence: 0.9 });
    expect(edges).toEqual([
      {
        direction: 'OUT',
        edge: {
          type: 'SUPERSEDES',
          provenance: 'INFERRED',
          weight: 0.95,
          metadata: expect.objectContaining({ by: 'llm', model: 'rules-1' }),
        },
      },
    ]);
    expect((await entryOf(server, ws, old.entry.id)).status).toBe('SUPERSEDED');
    // Audited in the workspace's own log, and undone as any supersession is: unlink, then set the status back.
    const db = new Database(server.dbPath(ws), { readonly: true });
    const audit = db.prepare("SELECT actor, action, details FROM audit_log WHERE action = 'llm.supersede'").all();
    db.close();
    expect(audit).toEqual([
      expect.objectContaining({ actor: 'llm:rules-1', details: expect.stringContaining(old.entry.id) }),
    ]);
    await server.gqlOk(
      `mutation ($src: ID!, $dst: ID!) { unlink(input: { src: $src, dst: $dst, type: SUPERSEDES }) { removedEdgeId } }`,
      { src: now.entry.id, dst: old.entry.id },
      { workspace: ws },
    );
    await server.gqlOk(
      `mutation ($id: ID!) { setStatus(input: { id: $id, status: ACTIVE }) { entry { status } } }`,
      { id: old.entry.id },
      { workspace: ws },
    );
    expect((await entryOf(server, ws, old.entry.id)).status).toBe('ACTIVE');
  });

  it('leaves an update below the threshold as information', async () => {
    const { server, ws, old, edges } = await run({ supersede: true, supersedeConfidence: 0.99 });
    expect(edges).toEqual([]);
    expect((await entryOf(server, ws, old.entry.id)).status).toBe('ACTIVE');
  });
});

describe('an endpoint that is down, slow or wrong', () => {
  let chat: ChatServer;
  const servers: TestServer[] = [];
  beforeAll(async () => {
    chat = await startChatServer();
  });
  afterEach(async () => {
    chat.mode = 'ok';
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });
  afterAll(async () => chat?.close());

  it('never delays a capture: a hung endpoint leaves writes as fast as with the binding off', async () => {
    chat.mode = 'hang';
    const on = await startTestServer({ config: { llm: llmConfig(chat.url, { timeoutMs: 400 }) } });
    const off = await startTestServer();
    servers.push(on, off);
    const ws = freshWorkspace('hung');
    const times = { on: [] as number[], off: [] as number[] };
    // Alternating, so load on the machine weighs on both alike.
    for (let i = 0; i < 40; i++) {
      for (const [name, s] of [
        ['on', on],
        ['off', off],
      ] as const) {
        const started = performance.now();
        const out = await capture(s, ws, { content: `Hung endpoint capture ${i}: the launch is on Monday.` });
        times[name].push(performance.now() - started);
        expect(out.outcome).toBe('STORED');
      }
    }
    const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)]!;
    for (const q of [0.5, 0.95]) {
      const [a, b] = [at(times.on, q), at(times.off, q)];
      console.log(
        `capture p${q * 100} with the endpoint hung: on ${a.toFixed(1)} ms, off ${b.toFixed(1)} ms (ratio ${(a / b).toFixed(2)})`,
      );
    }
    // The endpoint never answered, and every capture was acknowledged: none waited for it.
    expect(chat.requests.some((r) => r.task === 'classification' && r.status === 0)).toBe(true);
    const health = await until(
      async () => (await fetch(`${on.origin}/health`)).json() as Promise<Data>,
      (h) => h.llm?.state === 'degraded',
    );
    expect(health.status).toBe('degraded');
    expect(health.reasons.join(' ')).toMatch(/LLM endpoint failing \(chat endpoint timed out after 400 ms/);
    expect(await pendingOf(on, ws)).toBe(40);
    // Nothing is lost: once the endpoint answers, the queue drains.
    chat.mode = 'ok';
    const stats = await until(
      async () => (await on.gqlOk(STATS, {}, { workspace: ws })).stats.llm,
      (l) => l.pending === 0 && l.state === 'ready',
    );
    expect(stats).toMatchObject({ model: 'rules-1', reason: null });
  });

  it.each(['malformed', 'schema'] as const)(
    'leaves the entry as the caller wrote it when the answers are %s',
    async (mode) => {
      chat.mode = mode;
      const s = await startTestServer({ config: { llm: llmConfig(chat.url) } });
      servers.push(s);
      const ws = freshWorkspace(mode);
      const e = await capture(s, ws, { content: 'How to reset the router: hold the button.', classify: ['KIND'] });
      await drained(s, ws);
      const entry = await entryOf(s, ws, e.entry.id);
      expect(entry).toMatchObject({ kind: 'SEMANTIC', volatility: 'EVOLVING', conflicts: [] });
      expect(entry.classification).toEqual({
        kind: 'DEFAULT',
        volatility: 'DEFAULT',
        importance: 'CALLER',
        model: null,
      });
      // A wrong answer is the model's, not the endpoint's: the binding stays ready.
      expect((await s.gqlOk(STATS, {}, { workspace: ws })).stats.llm.state).toBe('ready');
    },
  );
});

describe('a restart', () => {
  let dataDir: string;
  let proc: ServerProcess | undefined;
  let chat: ChatServer | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-llm-'));
  });
  afterAll(async () => {
    if (proc && proc.child.exitCode === null) {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
    await chat?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const post = async (url: string, query: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-workspace': 'restart' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: Data; errors?: unknown };
    if (body.errors) throw new Error(`${JSON.stringify(body.errors)}\nserver output:\n${proc?.output()}`);
    return body.data!;
  };

  it(
    'resumes the queue, and turning the binding off leaves every answer as it was',
    async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/v1/chat/completions`;
      const env = { SPHERE_DATA_DIR: dataDir, SPHERE_LLM: 'http', SPHERE_LLM_URL: url, SPHERE_LLM_MODEL: 'rules-1' };
      // The endpoint is down while the entries are captured.
      proc = await startServerProcess(env);
      const ids: string[] = [];
      for (const content of [
        'How to restart the queue worker.',
        'The deploy is on Friday.',
        'The deploy moved to Monday.',
      ]) {
        ids.push((await post(proc.url, CAPTURE, { input: { content, classify: ['KIND'] } })).capture.entry.id);
      }
      expect((await post(proc.url, STATS)).stats.llm.pending).toBe(3);
      proc.child.kill('SIGTERM');
      await proc.exited;

      chat = await startChatServer({ port });
      proc = await startServerProcess(env);
      await until(
        async () => (await post(proc!.url, STATS)).stats.llm.pending,
        (n) => n === 0,
      );
      const on = await Promise.all(ids.map(async (id) => (await post(proc!.url, ENTRY, { id })).entry));
      expect(on[0]).toMatchObject({ kind: 'PROCEDURAL', classification: { kind: 'MODEL', model: 'rules-1' } });
      expect(on[2].conflicts).toEqual([expect.objectContaining({ entry: { id: ids[1] }, relation: 'UPDATES' })]);
      const RECALL = '{ recall(query: "deploy queue worker", topK: 10) { hits { entry { id } rank } } }';
      const recallOn = await post(proc.url, RECALL);
      proc.child.kill('SIGTERM');
      await proc.exited;

      const requests = chat.requests.length;
      proc = await startServerProcess({ SPHERE_DATA_DIR: dataDir });
      expect((await post(proc.url, STATS)).stats.llm).toBeNull();
      const off = await Promise.all(ids.map(async (id) => (await post(proc!.url, ENTRY, { id })).entry));
      expect(off).toEqual(on);
      expect(await post(proc.url, RECALL)).toEqual(recallOn);
      await post(proc.url, CAPTURE, { input: { content: 'The deploy moved to Tuesday.' } });
      await settle(300);
      expect(chat.requests.length).toBe(requests);
    },
    TEST_BUDGET * 2,
  );
});
