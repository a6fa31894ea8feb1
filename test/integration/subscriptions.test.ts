import { type Client, createClient } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { APPEND, CAPTURE, FORGET, LINK } from '../helpers/operations.ts';
import { type Data, freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

type Result = { data?: Data | null; errors?: { message: string; extensions?: { code?: string } }[] };

let srv: TestServer;
const clients: Client[] = [];
beforeAll(async () => {
  srv = await startTestServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  // Closed sockets release their streams at once; the next test counts listeners from zero.
  const deadline = Date.now() + 5_000;
  while (srv.server.bus.listeners > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  expect(srv.server.bus.listeners).toBe(0);
});
afterAll(async () => {
  await srv?.stop();
});

function wsClient(workspace: unknown): Client {
  const client = createClient({
    url: srv.wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: { workspace },
    retryAttempts: 0,
    lazy: true,
  });
  clients.push(client);
  return client;
}

/** Subscribes and collects results as they come; `next(n)` waits for n of them. */
function subscribe(client: Client, query: string, variables?: Record<string, unknown>) {
  const results: Result[] = [];
  let error: unknown = null;
  let done = false;
  let wake: (() => void) | null = null;
  const stop = client.subscribe<Data>(
    { query, variables },
    {
      next: (r) => {
        results.push(r as Result);
        wake?.();
      },
      error: (e) => {
        error = e;
        wake?.();
      },
      complete: () => {
        done = true;
        wake?.();
      },
    },
  );
  const next = async (n: number, timeoutMs = 3_000): Promise<Result[]> => {
    const deadline = Date.now() + timeoutMs;
    while (results.length < n && !error && !done && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 25);
      });
      wake = null;
    }
    if (error) throw new Error(`subscription error: ${JSON.stringify(error)}`);
    return results.slice(0, n);
  };
  return { results, next, stop, errorOf: () => error };
}

/** Waits until the server holds `count` more event-bus listeners than before (the subscription is live). */
async function untilListening(before: number, count = 1): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (srv.server.bus.listeners < before + count) {
    if (Date.now() > deadline) throw new Error('subscription never started listening');
    await new Promise((r) => setTimeout(r, 5));
  }
}

const capture = async (ws: string, input: Record<string, unknown>) =>
  (await srv.gqlOk(CAPTURE, { input }, { workspace: ws })).capture as { outcome: string; entry: { id: string } };

describe('subscriptions over graphql-ws', () => {
  it('events delivers committed writes live, with exactly the selected fields', async () => {
    const ws = freshWorkspace('sub');
    const listeners = srv.server.bus.listeners;
    const sub = subscribe(wsClient(ws), 'subscription { events { seq type outcome entry { id content tags } } }');
    await untilListening(listeners);

    const a = await capture(ws, { content: 'live one', tags: ['x'] });
    const b = await capture(ws, { content: 'live two' });
    await capture(ws, { content: 'LIVE ONE', tags: ['x'] }); // BLOCKED: no event
    await srv.gqlOk(APPEND, { id: b.entry.id, addition: 'more' }, { workspace: ws });

    const got = await sub.next(3);
    expect(got).toEqual([
      {
        data: {
          events: {
            seq: 1,
            type: 'CAPTURED',
            outcome: 'STORED',
            entry: { id: a.entry.id, content: 'live one', tags: ['x'] },
          },
        },
      },
      {
        data: {
          events: {
            seq: 2,
            type: 'CAPTURED',
            outcome: 'STORED',
            entry: { id: b.entry.id, content: 'live two', tags: [] },
          },
        },
      },
      {
        data: {
          events: {
            seq: 3,
            type: 'APPENDED',
            outcome: null,
            entry: { id: b.entry.id, content: 'live two\n\nmore', tags: [] },
          },
        },
      },
    ]);
    await new Promise((r) => setTimeout(r, 100));
    expect(sub.results).toHaveLength(3);
  });

  it('captured(tag:) only delivers CAPTURED events of entries carrying the tag (MERGED and REPLACED included)', async () => {
    const ws = freshWorkspace('sub');
    const listeners = srv.server.bus.listeners;
    const sub = subscribe(wsClient(ws), 'subscription ($tag: String) { captured(tag: $tag) { seq outcome entryId } }', {
      tag: ' Hot ',
    });
    await untilListening(listeners);

    const plain = await capture(ws, { content: 'not hot' });
    const hot = await capture(ws, { content: 'hot one', tags: ['hot'] });
    await srv.gqlOk(LINK, { input: { src: hot.entry.id, dst: plain.entry.id, type: 'RELATES_TO' } }, { workspace: ws });
    const merged = await capture(ws, { content: 'NOT HOT', tags: ['HOT'] });
    expect(merged.outcome).toBe('MERGED');
    const replaced = await capture(ws, { content: 'hot two', tags: ['hot'], replaces: hot.entry.id });
    expect(replaced.outcome).toBe('REPLACED');
    await capture(ws, { content: 'cold', tags: ['cold'] });

    const got = await sub.next(3);
    expect(got.map((r) => r.data?.captured)).toEqual([
      { seq: 2, outcome: 'STORED', entryId: hot.entry.id },
      { seq: 4, outcome: 'MERGED', entryId: plain.entry.id },
      { seq: 5, outcome: 'REPLACED', entryId: replaced.entry.id },
    ]);
    await new Promise((r) => setTimeout(r, 100));
    expect(sub.results).toHaveLength(3);
  });

  it('events(sinceSeq: N) replays the log after N, then goes live, with no gap and no duplicate', async () => {
    const ws = freshWorkspace('sub');
    for (let i = 0; i < 6; i++) await capture(ws, { content: `before ${i}` });
    const sub = subscribe(wsClient(ws), 'subscription { events(sinceSeq: 2) { seq entryId } }');
    // Writes race the replay: some commit before the subscription reads the log, some after.
    const racing = Promise.all(Array.from({ length: 20 }, (_, i) => capture(ws, { content: `during ${i}` })));
    await racing;
    for (let i = 0; i < 4; i++) await capture(ws, { content: `after ${i}` });

    const got = await sub.next(28);
    expect(got.map((r) => r.data?.events.seq)).toEqual(Array.from({ length: 28 }, (_, i) => i + 3));
    await new Promise((r) => setTimeout(r, 100));
    expect(sub.results).toHaveLength(28);
    const log = await srv.gqlOk('{ eventLog(sinceSeq: 2, limit: 1000) { seq entryId } }', {}, { workspace: ws });
    expect(got.map((r) => r.data?.events)).toEqual(log.eventLog);
  });

  it('events(types:) filters, and linked(type:) only sees LINKED events of that type', async () => {
    const ws = freshWorkspace('sub');
    const listeners = srv.server.bus.listeners;
    const client = wsClient(ws);
    const appended = subscribe(client, 'subscription { events(types: [APPENDED, FORGOTTEN]) { seq type } }');
    const linked = subscribe(client, 'subscription { linked(type: CAUSED_BY) { seq type edge { type } } }');
    await untilListening(listeners, 2);

    const a = await capture(ws, { content: 'a' });
    const b = await capture(ws, { content: 'b' });
    const link = (type: string) =>
      srv.gqlOk(LINK, { input: { src: a.entry.id, dst: b.entry.id, type } }, { workspace: ws });
    await link('RELATES_TO');
    await link('CAUSED_BY');
    await srv.gqlOk(APPEND, { id: a.entry.id, addition: 'x' }, { workspace: ws });
    await srv.gqlOk(FORGET, { id: b.entry.id }, { workspace: ws });

    expect((await appended.next(2)).map((r) => r.data?.events)).toEqual([
      { seq: 5, type: 'APPENDED' },
      { seq: 6, type: 'FORGOTTEN' },
    ]);
    expect((await linked.next(1)).map((r) => r.data?.linked)).toEqual([
      { seq: 4, type: 'LINKED', edge: { type: 'CAUSED_BY' } },
    ]);
  });

  it('a subscription never sees another workspace', async () => {
    const mine = freshWorkspace('sub');
    const other = freshWorkspace('sub');
    const listeners = srv.server.bus.listeners;
    const sub = subscribe(wsClient(mine), 'subscription { events { seq entryId } }');
    const replay = subscribe(wsClient(mine), 'subscription { events(sinceSeq: 0) { seq entryId } }');
    await untilListening(listeners, 2);
    await capture(other, { content: 'elsewhere 1' });
    await capture(other, { content: 'elsewhere 2' });
    const own = await capture(mine, { content: 'mine' });
    expect((await sub.next(1)).map((r) => r.data?.events)).toEqual([{ seq: 1, entryId: own.entry.id }]);
    expect((await replay.next(1)).map((r) => r.data?.events)).toEqual([{ seq: 1, entryId: own.entry.id }]);
    await new Promise((r) => setTimeout(r, 100));
    expect(sub.results).toHaveLength(1);
    expect(replay.results).toHaveLength(1);
  });

  it('an invalid workspace in connectionParams is BAD_USER_INPUT', async () => {
    for (const workspace of ['../x', 'UPPER', 'a/b']) {
      const sub = subscribe(wsClient(workspace), 'subscription { events { seq } }');
      const deadline = Date.now() + 3_000;
      while (!sub.errorOf() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const errors = sub.errorOf() as { message: string; extensions?: { code?: string } }[] | null;
      expect(Array.isArray(errors), workspace).toBe(true);
      expect(errors?.[0]?.extensions?.code, workspace).toBe('BAD_USER_INPUT');
    }
  });

  it('errors over the socket carry the same extensions as over HTTP (no transport internals)', async () => {
    const ws = freshWorkspace('sub');
    const client = wsClient(ws);
    const query = 'mutation { forget(input: { id: "no-such-entry" }) { forgotten } }';
    const overHttp = await srv.gql(query, {}, { workspace: ws });
    const executed = subscribe(client, query);
    const [res] = await executed.next(1);
    expect(res?.errors?.[0]?.extensions).toEqual(overHttp.errors?.[0]?.extensions);
    expect(res?.errors?.[0]?.extensions).toEqual({ code: 'NOT_FOUND', id: 'no-such-entry' });
    // Refused before it runs (validation), the error comes as the subscription's error.
    const invalid = subscribe(client, '{ noSuchField }');
    await expect.poll(() => invalid.errorOf(), { timeout: 10_000 }).not.toBeNull();
    const errors = invalid.errorOf() as { extensions?: Record<string, unknown> }[];
    expect(errors[0]?.extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
  });

  it('queries and mutations work over the socket too, in the connection’s workspace', async () => {
    const ws = freshWorkspace('sub');
    const client = wsClient(ws);
    const sub = subscribe(client, CAPTURE, { input: { content: 'over the socket' } });
    const [res] = await sub.next(1);
    expect(res?.data?.capture.outcome).toBe('STORED');
    const count = await srv.gqlOk('{ count }', {}, { workspace: ws });
    expect(count.count).toBe(1);
  });
});
