import { readdirSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CAPTURE_CONTENT } from '../helpers/operations.ts';
import { type GqlResponse, startTestServer, type TestServer } from '../helpers/server.ts';
import { collect, settle, wsClient } from '../helpers/ws.ts';

// A closed libSQL connection gives its descriptors back when its statements are collected.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** One read of each kind; every one must answer for a missing workspace as for an empty one. */
const READS: { name: string; query: string; variables?: Record<string, unknown> }[] = [
  {
    name: 'recall',
    query:
      '{ recall(query: "deploy notes yesterday") { queryUsed hits { entry { id } } candidates omitted { entryId } } }',
  },
  { name: 'recent', query: '{ recent(n: 5) { id content } }' },
  { name: 'entry', query: '{ entry(id: "01J0000000000000000000000") { id } }' },
  { name: 'connections', query: '{ connections(id: "01J0000000000000000000000") { direction } }' },
  { name: 'graphView', query: '{ graphView(seedIds: ["01J0000000000000000000000"]) { truncated } }' },
  { name: 'tags', query: '{ tags { tag count } }' },
  { name: 'count', query: '{ a: count b: count(kind: PERSON, tag: "x") }' },
  {
    name: 'stats',
    query:
      '{ stats { entries edges tags revisions byKind { key count } byStatus { key count } edgesByType { key count } oldestAt newestAt } }',
  },
  {
    name: 'brief',
    query: '{ brief { text stats { entries } recent { id } important { id } stale { id } topTags { tag } } }',
  },
  { name: 'eventLog', query: '{ eventLog(sinceSeq: 0, limit: 10) { seq type } lastEventSeq }' },
];

/** What a client can compare: data, and each error's code and message. */
function answer(res: GqlResponse) {
  return {
    data: res.data ?? null,
    errors: (res.errors ?? []).map((e) => ({ code: e.extensions?.code, message: e.message })),
  };
}

/** The workspaces whose database file this process holds open. */
function workspacesHeldOpen(dataDir: string): Set<string> {
  const held = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    if (target.startsWith(`${dataDir}/`) && target.endsWith('.db')) held.add(basename(target, '.db'));
  }
  held.delete('_control');
  return held;
}

function databaseFiles(dataDir: string): string[] {
  return readdirSync(dataDir).filter((f) => f.endsWith('.db') && f !== '_control.db');
}

describe('workspaces that do not exist', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
    // The reference: a workspace that exists and holds nothing.
    await t.server.registry.get('empty-reference');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answer every read as an empty workspace does, and no read creates a database', async () => {
    const reference = new Map<string, ReturnType<typeof answer>>();
    for (const read of READS)
      reference.set(read.name, answer(await t.gql(read.query, read.variables, { workspace: 'empty-reference' })));
    // The reference itself is what an empty workspace should say.
    expect(reference.get('count')?.data).toEqual({ a: 0, b: 0 });
    expect(reference.get('eventLog')?.data).toEqual({ eventLog: [], lastEventSeq: 0 });
    expect(reference.get('entry')?.data).toEqual({ entry: null });
    expect(reference.get('connections')?.errors.map((e) => e.code)).toEqual(['NOT_FOUND']);
    expect(reference.get('graphView')?.errors.map((e) => e.code)).toEqual(['NOT_FOUND']);
    expect(reference.get('stats')?.data?.stats).toMatchObject({ entries: 0, edges: 0, tags: 0, oldestAt: null });
    const before = databaseFiles(t.dataDir);

    for (let i = 0; i < 40; i++) {
      const read = READS[i % READS.length]!;
      const res = await t.gql(read.query, read.variables, { workspace: `unknown-${i}` });
      expect(answer(res), `${read.name} on unknown-${i}`).toEqual(reference.get(read.name));
    }
    // The same over a WebSocket connection.
    const client = wsClient(t.wsUrl, { workspace: 'unknown-ws' });
    try {
      const data = await new Promise((resolve, reject) =>
        client.subscribe(
          { query: '{ stats { entries } lastEventSeq }' },
          { next: resolve, error: reject, complete: () => {} },
        ),
      );
      expect(data).toEqual({ data: { stats: { entries: 0 }, lastEventSeq: 0 } });
    } finally {
      await client.dispose();
    }

    expect(databaseFiles(t.dataDir)).toEqual(before);
    expect(t.server.registry.openCount).toBe(1); // the reference only
  });

  it('come into being with their first write, which later reads then see', async () => {
    const workspace = 'created-by-write';
    const empty = await t.gqlOk('{ count recent { id } eventLog { seq } lastEventSeq }', {}, { workspace });
    expect(empty).toEqual({ count: 0, recent: [], eventLog: [], lastEventSeq: 0 });
    expect(databaseFiles(t.dataDir)).not.toContain(`${workspace}.db`);

    const stored = await t.gqlOk(
      CAPTURE_CONTENT,
      { input: { content: 'the first thing ever written here' } },
      { workspace },
    );
    expect(stored.capture).toEqual({
      outcome: 'STORED',
      entry: { id: expect.any(String), content: 'the first thing ever written here' },
    });
    expect(databaseFiles(t.dataDir)).toContain(`${workspace}.db`);
    const data = await t.gqlOk('{ count recent { id } eventLog { seq type } lastEventSeq }', {}, { workspace });
    expect(data).toEqual({
      count: 1,
      recent: [{ id: stored.capture.entry.id }],
      eventLog: [{ seq: 1, type: 'CAPTURED' }],
      lastEventSeq: 1,
    });
  });

  it('can be subscribed to without being created, and deliver the first write once it creates them', async () => {
    const workspace = 'sub-unknown';
    const client = wsClient(t.wsUrl, { workspace });
    const listeners = t.server.bus.listeners;
    const live = collect(client, 'subscription { captured { seq type outcome entry { content } } }');
    const replay = collect(client, 'subscription { events(sinceSeq: 0) { seq type entryId } }');
    try {
      await vi.waitFor(() => expect(t.server.bus.listeners).toBe(listeners + 2));
      await settle(100);
      expect(databaseFiles(t.dataDir)).not.toContain(`${workspace}.db`);
      expect(live.errors).toEqual([]);
      expect(replay.errors).toEqual([]);

      const first = await t.gqlOk(CAPTURE_CONTENT, { input: { content: 'created by this capture' } }, { workspace });
      const second = await t.gqlOk(CAPTURE_CONTENT, { input: { content: 'and a second one' } }, { workspace });
      await live.until((items) => items.length >= 2);
      await replay.until((items) => items.length >= 2);
      await settle(100);
      expect(live.items).toEqual([
        { seq: 1, type: 'CAPTURED', outcome: 'STORED', entry: { content: 'created by this capture' } },
        { seq: 2, type: 'CAPTURED', outcome: 'STORED', entry: { content: 'and a second one' } },
      ]);
      expect(replay.items).toEqual([
        { seq: 1, type: 'CAPTURED', entryId: first.capture.entry.id },
        { seq: 2, type: 'CAPTURED', entryId: second.capture.entry.id },
      ]);
    } finally {
      live.dispose();
      replay.dispose();
      await client.dispose();
    }
  });
});

describe('open workspace databases', () => {
  const CAP = 4;
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ config: { maxOpenWorkspaces: CAP } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  const ids = Array.from({ length: 20 }, (_, i) => `capped-${i}`);

  it('stay within the cap while 20 workspaces are written, and evicted ones keep every write', async () => {
    const written = new Map<string, string[]>();
    let most = 0;
    for (let round = 0; round < 3; round++) {
      for (const ws of ids) {
        const content = `${ws} note ${round}`;
        await t.gqlOk(CAPTURE_CONTENT, { input: { content, tags: ['capped'] } }, { workspace: ws });
        written.set(ws, [...(written.get(ws) ?? []), content]);
        // The one just written may still be finishing its commit when the next one opens.
        most = Math.max(most, t.server.registry.openCount);
      }
    }
    await vi.waitFor(async () => {
      gc();
      // Native finalizers run on a later turn of the event loop.
      await settle(20);
      expect(workspacesHeldOpen(t.dataDir).size).toBeLessThanOrEqual(CAP);
    });
    expect(most).toBeLessThanOrEqual(CAP + 1);
    await vi.waitFor(() => expect(t.server.registry.openCount).toBeLessThanOrEqual(CAP));

    for (const ws of ids) {
      const data = await t.gqlOk('{ count recent(n: 10) { content } lastEventSeq }', {}, { workspace: ws });
      expect(data.count).toBe(3);
      expect(data.lastEventSeq).toBe(3);
      expect(data.recent.map((e: { content: string }) => e.content).sort()).toEqual(written.get(ws)?.sort());
    }

    const health = await fetch(`${t.origin}/health`);
    expect(health.status).toBe(200);
    expect((await health.json()).workspaces).toBeLessThanOrEqual(CAP);
    const metrics = await (await fetch(`${t.origin}/metrics`)).text();
    const open = Number(/^sphere_workspaces_open (\d+)$/m.exec(metrics)?.[1]);
    expect(open).toBeLessThanOrEqual(CAP);
    expect(metrics.match(/^sphere_workspace_database_bytes\{/gm)?.length ?? 0).toBeLessThanOrEqual(CAP);
  });

  it('lose no write and no read bookkeeping when databases close while others are written', async () => {
    const PER = 8;
    const before = new Map<string, number>();
    for (const ws of ids) before.set(ws, (await t.gqlOk('{ lastEventSeq }', {}, { workspace: ws })).lastEventSeq);
    const acked = new Map<string, Set<string>>();
    const recalled = new Map<string, string>();
    await Promise.all(
      ids.map(async (ws) => {
        const mine = new Set<string>();
        acked.set(ws, mine);
        for (let i = 0; i < PER; i++) {
          const res = await t.gqlOk(
            CAPTURE_CONTENT,
            { input: { content: `${ws} busy ${i} zeppelin` } },
            { workspace: ws },
          );
          mine.add(res.capture.entry.id);
          if (i === 2) {
            // A recall leaves bookkeeping (recall_count + 1) waiting to be written.
            const hits = (
              await t.gqlOk('{ recall(query: "zeppelin", topK: 1) { hits { entry { id } } } }', {}, { workspace: ws })
            ).recall.hits;
            expect(hits).toHaveLength(1);
            recalled.set(ws, hits[0].entry.id);
          }
        }
      }),
    );
    await vi.waitFor(() => expect(t.server.registry.openCount).toBeLessThanOrEqual(CAP));

    for (const ws of ids) {
      const data = await t.gqlOk(
        'query($id: ID!) { count(tag: null) eventLog(limit: 1000) { seq } entry(id: $id) { recallCount } }',
        { id: recalled.get(ws) },
        { workspace: ws },
      );
      // Every acknowledged capture, each with its event, and no gap in the log.
      const total = (before.get(ws) ?? 0) + PER;
      expect(data.count).toBe(total);
      expect(data.eventLog.map((e: { seq: number }) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      expect(data.entry.recallCount).toBe(1);
      const present = await t.gqlOk('{ recent(n: 50) { id } }', {}, { workspace: ws });
      const ids = new Set(present.recent.map((e: { id: string }) => e.id));
      for (const id of acked.get(ws) ?? []) expect(ids.has(id), `${ws}: ${id}`).toBe(true);
    }
  });
});
