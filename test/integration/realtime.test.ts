import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { captureEntry } from '../../src/memory/capture.ts';
import { CAPTURE } from '../helpers/operations.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { collect, settle, wsClient } from '../helpers/ws.ts';

const EVENT_FIELDS = 'seq type outcome entryId entry { id content kind tags } edge { src dst type weight }';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.stop();
});

async function capture(workspace: string, content: string, extra: Record<string, unknown> = {}) {
  const data = await t.gqlOk<{ capture: { outcome: string; entry: { id: string } } }>(
    CAPTURE,
    { input: { content, ...extra } },
    { workspace },
  );
  return data.capture;
}

/** Writes through the workspace writer directly: the same code path as a mutation, minus HTTP. */
async function bulkCapture(workspace: string, n: number, prefix: string) {
  const ws = await t.server.registry.get(workspace);
  await Promise.all(
    Array.from({ length: n }, (_, i) => ws.writer.run((scope) => captureEntry(scope, { content: `${prefix} ${i}` }))),
  );
}

describe('subscriptions over graphql-ws', () => {
  it('delivers CAPTURED and LINKED events with the selected fields, and filters hold', async () => {
    const workspace = 'rt-filters';
    const client = wsClient(t.wsUrl, { workspace });
    const tagged = collect(client, `subscription { captured(tag: " Alpha ") { ${EVENT_FIELDS} } }`);
    const people = collect(client, `subscription { captured(kind: PERSON) { ${EVENT_FIELDS} } }`);
    const follows = collect(client, `subscription { linked(type: FOLLOWS) { ${EVENT_FIELDS} } }`);
    const updates = collect(client, `subscription { events(types: [UPDATED, FORGOTTEN]) { ${EVENT_FIELDS} } }`);
    const all = collect(client, `subscription { events { ${EVENT_FIELDS} } }`);
    await settle(300);

    const a = await capture(workspace, 'alpha note one', { tags: ['alpha'], kind: 'EPISODIC' });
    const blocked = await capture(workspace, '  ALPHA   note one ', { tags: ['alpha'] });
    expect(blocked.outcome).toBe('BLOCKED');
    const p = await capture(workspace, 'Ada Lovelace', { kind: 'PERSON' });
    const b = await capture(workspace, 'beta note two', { kind: 'EPISODIC' });
    await t.gqlOk(
      'mutation($a: ID!, $b: ID!) { f: link(input: { src: $a, dst: $b, type: FOLLOWS }) { edge { type } } r: link(input: { src: $a, dst: $b, type: RELATES_TO }) { edge { type } } }',
      { a: b.entry.id, b: a.entry.id },
      { workspace },
    );
    await t.gqlOk(
      'mutation($id: ID!) { update(input: { id: $id, content: "beta note two, revised" }) { entry { id } } }',
      { id: b.entry.id },
      { workspace },
    );

    // 3 stored captures + 2 links + 1 update; the BLOCKED capture emits nothing.
    const events = await all.until((xs) => xs.length >= 6);
    await settle(200);
    expect(all.items.map((e) => e.type)).toEqual(['CAPTURED', 'CAPTURED', 'CAPTURED', 'LINKED', 'LINKED', 'UPDATED']);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);

    await tagged.until((xs) => xs.length >= 1);
    expect(tagged.items).toHaveLength(1);
    expect(tagged.items[0]).toMatchObject({
      type: 'CAPTURED',
      outcome: 'STORED',
      entryId: a.entry.id,
      entry: { id: a.entry.id, content: 'alpha note one', kind: 'EPISODIC', tags: ['alpha'] },
    });
    expect(people.items.map((e) => e.entryId)).toEqual([p.entry.id]);
    expect(follows.items).toHaveLength(1);
    expect(follows.items[0]?.edge).toMatchObject({ src: b.entry.id, dst: a.entry.id, type: 'FOLLOWS', weight: 1 });
    expect(updates.items.map((e) => e.type)).toEqual(['UPDATED']);
    expect(updates.items[0]?.entry.content).toBe('beta note two, revised');
    for (const s of [tagged, people, follows, updates, all]) s.dispose();
    await client.dispose();
  });

  it('replays from sinceSeq, then goes live, with every seq exactly once and in order while writes continue', async () => {
    const workspace = 'rt-replay';
    await bulkCapture(workspace, 200, 'before');
    const client = wsClient(t.wsUrl, { workspace });
    const writing = bulkCapture(workspace, 200, 'during');
    const sub = collect(client, 'subscription { events(sinceSeq: 100) { seq type } }');
    await writing;
    await sub.until((xs) => xs.length >= 300, 20_000);
    await settle(200);
    expect(sub.items.map((e) => e.seq)).toEqual(Array.from({ length: 300 }, (_, i) => 101 + i));
    sub.dispose();
    await client.dispose();
  });

  it('never shows a subscriber another workspace’s events', async () => {
    const mine = wsClient(t.wsUrl, { workspace: 'rt-mine' });
    const sub = collect(mine, 'subscription { events(sinceSeq: 0) { seq entry { content } } }');
    await settle(200);
    await capture('rt-theirs', 'canary from the other workspace');
    await capture('rt-mine', 'my own note');
    await sub.until((xs) => xs.length >= 1);
    await settle(300);
    expect(sub.items.map((e) => e.entry.content)).toEqual(['my own note']);
    sub.dispose();
    await mine.dispose();
  });

  it('keeps server memory bounded under a stalled subscriber while others keep receiving', async () => {
    const workspace = 'rt-slow';
    // A raw graphql-transport-ws client that subscribes and then stops reading its socket.
    const stalled = new WebSocket(t.wsUrl, 'graphql-transport-ws');
    await new Promise((r) => stalled.once('open', r));
    stalled.send(JSON.stringify({ type: 'connection_init', payload: { workspace } }));
    await new Promise((r) => stalled.once('message', r));
    stalled.send(
      JSON.stringify({
        id: '1',
        type: 'subscribe',
        payload: { query: 'subscription { events { seq type entry { id content tags revisions { content } } } }' },
      }),
    );
    await settle(200);
    (stalled as unknown as { _socket: { pause(): void } })._socket.pause();

    const client = wsClient(t.wsUrl, { workspace });
    const healthy = collect(client, 'subscription { events { seq } }');
    await settle(200);
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    const streams = t.server.bus.streams;
    let maxBuffered = 0;
    const sampler = setInterval(() => {
      maxBuffered = Math.max(maxBuffered, streams.buffered);
    }, 5);
    // 2 KB per event payload: far more than the socket buffers can absorb for the stalled client.
    for (let i = 0; i < 10; i++) await bulkCapture(workspace, 1_000, `flood ${i} ${'x'.repeat(2_000)}`);
    await healthy.until((xs) => xs.length >= 10_000, 60_000);
    clearInterval(sampler);
    // The stalled stream filled its bounded buffer and fell back to the log instead of growing.
    expect(streams.overflows).toBeGreaterThanOrEqual(1);
    expect(maxBuffered).toBeLessThanOrEqual(1_000 * streams.open);
    global.gc?.();
    const growth = process.memoryUsage().heapUsed - before;
    // 10,000 events of ~2 KB each are ~20 MB of payload; the stall must not hold them.
    expect(growth).toBeLessThan(64 * 1024 * 1024);
    expect(healthy.items.at(-1)?.seq).toBe(10_000);
    stalled.terminate();
    healthy.dispose();
    await client.dispose();
  }, 120_000);

  it('rejects more than the per-connection subscription cap with RATE_LIMITED', async () => {
    const client = wsClient(t.wsUrl, { workspace: 'rt-cap' });
    const subs = Array.from({ length: 101 }, () => collect(client, 'subscription { events { seq } }'));
    const last = subs[100];
    await new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const tick = () => {
        if (last && last.errors.length > 0) return resolve();
        if (Date.now() - started > 10_000) return reject(new Error('no error for the 101st subscription'));
        setTimeout(tick, 20);
      };
      tick();
    });
    expect(JSON.stringify(last?.errors)).toContain('RATE_LIMITED');
    for (const s of subs) s.dispose();
    await client.dispose();
  });
});

describe('subscriptions over server-sent events', () => {
  it('streams events to an SSE client too', async () => {
    const workspace = 'rt-sse';
    const controller = new AbortController();
    const res = await fetch(t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-workspace': workspace },
      body: JSON.stringify({ query: 'subscription { events(sinceSeq: 0) { seq type entry { content } } }' }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    await capture(workspace, 'sent over server-sent events');
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('sent over server-sent events')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { data?: { events: { seq: number; type: string } } });
    expect(data.find((d) => d.data)?.data?.events).toMatchObject({ seq: 1, type: 'CAPTURED' });
  });
});

describe('shared live subscriptions', () => {
  it('runs identical subscriptions once per workspace, never across workspaces, and survives a subscriber leaving', async () => {
    const query = 'subscription { events { seq entry { content } } }';
    const a1c = wsClient(t.wsUrl, { workspace: 'rt-share-a' });
    const a2c = wsClient(t.wsUrl, { workspace: 'rt-share-a' });
    const bc = wsClient(t.wsUrl, { workspace: 'rt-share-b' });
    const a1 = collect(a1c, query);
    const a2 = collect(a2c, query);
    const b = collect(bc, query);
    await settle(300);
    await capture('rt-share-a', 'for workspace a');
    await capture('rt-share-b', 'for workspace b');
    await Promise.all([a1.until((x) => x.length >= 1), a2.until((x) => x.length >= 1), b.until((x) => x.length >= 1)]);
    await settle(200);
    expect(a1.items.map((e) => e.entry.content)).toEqual(['for workspace a']);
    expect(a2.items.map((e) => e.entry.content)).toEqual(['for workspace a']);
    expect(b.items.map((e) => e.entry.content)).toEqual(['for workspace b']);

    a1.dispose();
    await a1c.dispose();
    await capture('rt-share-a', 'after one left');
    await a2.until((x) => x.length >= 2);
    expect(a2.items.map((e) => e.seq)).toEqual([1, 2]);
    a2.dispose();
    b.dispose();
    await a2c.dispose();
    await bc.dispose();
  });
});

/** A raw graphql-transport-ws subscriber of `events { seq }` that records each seq it receives. */
async function seqSubscriber(wsUrl: string, workspace: string, onSeq: (seq: number) => void): Promise<WebSocket> {
  const socket = new WebSocket(wsUrl, 'graphql-transport-ws');
  await new Promise((r) => socket.once('open', r));
  socket.send(JSON.stringify({ type: 'connection_init', payload: { workspace } }));
  await new Promise((r) => socket.once('message', r));
  socket.on('message', (data: Buffer) => {
    const seq = /"seq":(\d+)/.exec(data.toString())?.[1];
    if (seq) onSeq(Number(seq));
  });
  socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { events { seq } }' } }));
  return socket;
}

describe('fan-out across workspaces', () => {
  it("delivers a quiet workspace's event while a flooded workspace's backlog is still going out, and every flood subscriber gets every event once, in order", async () => {
    const SUBSCRIBERS = 100;
    const EVENTS = 200;
    const got: number[][] = Array.from({ length: SUBSCRIBERS }, () => []);
    let floodReceived = 0;
    const sockets: WebSocket[] = [];
    for (let i = 0; i < SUBSCRIBERS; i++) {
      sockets.push(
        await seqSubscriber(t.wsUrl, 'rt-flooded', (seq) => {
          got[i]?.push(seq);
          floodReceived++;
        }),
      );
    }
    // The quiet workspace exists before the flood: its write below opens no database.
    await capture('rt-quiet', 'an earlier quiet note');
    let floodReceivedWhenQuietArrived = -1;
    const quietArrived = new Promise<void>((resolve) => {
      void seqSubscriber(t.wsUrl, 'rt-quiet', () => {
        floodReceivedWhenQuietArrived = floodReceived;
        resolve();
      }).then((s) => sockets.push(s));
    });
    await settle(300);

    // 200 events to 100 subscribers: 20,000 sends queue up for the flooded workspace at once.
    await bulkCapture('rt-flooded', EVENTS, 'flood');
    await capture('rt-quiet', 'one quiet note');
    await quietArrived;
    const total = SUBSCRIBERS * EVENTS;
    // The quiet event went out at its workspace's next turn, not behind the flood's backlog.
    expect(floodReceivedWhenQuietArrived).toBeLessThan(total / 2);

    const deadline = Date.now() + 60_000;
    while (floodReceived < total && Date.now() < deadline) await settle(100);
    const expected = Array.from({ length: EVENTS }, (_, i) => i + 1);
    for (const seqs of got) expect(seqs).toEqual(expected);
    for (const s of sockets) s.terminate();
  }, 120_000);
});
