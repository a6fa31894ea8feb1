import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { budget } from '../helpers/budget.ts';
import { type ServerInTempDir, spawnServerInTempDir } from '../helpers/process.ts';
import { wsClient } from '../helpers/ws.ts';

/**
 * An answer of megabytes within every limit, 30 aliases of `tags(first: 10000)` (about 9 MB
 * of JSON, 300,000 objects), is measured and serialized a slice at a time, and its aliases
 * are completed a turn of the loop each: other clients are served meanwhile, over HTTP and
 * WebSocket alike. A real server process, so the loop measured is its own.
 */

const WORKSPACE = 'many-tags';
/** 313 captures of 32 distinct tags each. */
const CAPTURES = 313;
const TAGS = CAPTURES * 32;
const DOC = `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: tags(first: 10000) { tag count }`).join(' ')} }`;

let server: ServerInTempDir;
let origin: string;

type Tag = { tag: string; count: number };
type Answer = { data?: Record<string, Tag[]> | null; errors?: { message: string; extensions?: { code?: string } }[] };

function send(query: string): Promise<Response> {
  return fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': WORKSPACE },
    body: JSON.stringify({ query }),
  });
}

async function post(query: string): Promise<{ answer: Answer; bytes: number }> {
  const text = await (await send(query)).text();
  return { answer: JSON.parse(text) as Answer, bytes: Buffer.byteLength(text) };
}

/**
 * The attack while /health is timed: its answer is received but not parsed, since parsing
 * 9 MB would hold this process's loop, and the /health requests it times with it.
 */
async function postUnread(query: string): Promise<void> {
  const res = await send(query);
  expect(res.status).toBe(200);
  expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(8_000_000);
}

/** The same over a bare graphql-transport-ws socket, for the same reason. */
function overWebSocketUnread(query: string): Promise<void> {
  const socket = new WebSocket(server.wsUrl, 'graphql-transport-ws');
  return new Promise<void>((resolve, reject) => {
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { workspace: WORKSPACE } })),
    );
    socket.on('message', (data: Buffer) => {
      if (data.length > 8_000_000) {
        const head = data.subarray(0, 42).toString();
        if (head === '{"id":"1","type":"next","payload":{"data":') resolve();
        else reject(new Error(`unexpected ${head}`));
        return;
      }
      const message = JSON.parse(data.toString()) as { type: string };
      if (message.type === 'connection_ack')
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
      else reject(new Error(`unexpected ${data.toString().slice(0, 300)}`));
    });
    socket.on('error', reject);
  }).finally(() => socket.close());
}

function overWebSocket(query: string): Promise<Answer> {
  const client = wsClient(server.wsUrl, { workspace: WORKSPACE });
  return new Promise<Answer>((resolve, reject) => {
    let answer: Answer | null = null;
    client.subscribe(
      { query },
      {
        next: (value) => {
          answer = value as Answer;
        },
        error: (error) => reject(error instanceof Error ? error : new Error(JSON.stringify(error))),
        complete: () => (answer ? resolve(answer) : reject(new Error('completed without an answer'))),
      },
    );
  }).finally(() => client.dispose());
}

/**
 * The slowest /health answer while `attack` runs, asking again as soon as each is answered;
 * the best of three rounds, so that one hiccup of a busy machine does not count.
 */
async function healthThroughout(attack: () => Promise<unknown>): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    let done = false;
    const running = attack().finally(() => {
      done = true;
    });
    let worst = 0;
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${origin}/health`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      worst = Math.max(worst, performance.now() - started);
    }
    await running;
    best = Math.min(best, worst);
  }
  return best;
}

beforeAll(async () => {
  server = await spawnServerInTempDir('large');
  origin = new URL(server.url).origin;
  // Sixteen captures a request, each with 32 tags no other entry has.
  for (let first = 0; first < CAPTURES; first += 16) {
    const captures = Array.from({ length: Math.min(16, CAPTURES - first) }, (_, k) => {
      const i = first + k;
      const tags = Array.from({ length: 32 }, (_, j) => `"tag-${String(i).padStart(3, '0')}-${j}"`).join(', ');
      return `c${k}: capture(input: { content: "entry ${i}", tags: [${tags}] }) { outcome }`;
    });
    const { answer } = await post(`mutation { ${captures.join(' ')} }`);
    expect(answer.errors).toBeUndefined();
  }
});
afterAll(async () => {
  await server?.stop();
});

describe('an answer of 9 MB', () => {
  it('comes whole over a JSON POST, and /health is answered while it is built', async () => {
    const { answer: one } = await post('{ tags(first: 10000) { tag count } }');
    const expected = one.data?.tags as Tag[];
    expect(expected).toHaveLength(10_000);
    expect(expected[0]).toEqual({ tag: 'tag-000-0', count: 1 });
    const { answer, bytes } = await post(DOC);
    expect(answer.errors).toBeUndefined();
    expect(bytes).toBeGreaterThan(8_000_000);
    const lists = Object.values(answer.data ?? {});
    expect(lists).toHaveLength(30);
    for (const list of lists) expect(list).toEqual(expected);
    const worst = await healthThroughout(() => postUnread(DOC));
    console.log(
      `/health while 30 × tags(first: 10000) are answered over HTTP (${TAGS} tags): worst ${worst.toFixed(1)} ms`,
    );
    expect(worst).toBeLessThan(budget(100));
  });

  it('comes whole over WebSocket, and /health is answered while it is built', async () => {
    const answer = await overWebSocket(DOC);
    expect(answer.errors).toBeUndefined();
    const lists = Object.values(answer.data ?? {});
    expect(lists).toHaveLength(30);
    expect(lists[29]).toEqual(lists[0]);
    expect(lists[0]?.[9_999]).toEqual({ tag: expect.stringMatching(/^tag-\d{3}-\d+$/), count: 1 });
    const worst = await healthThroughout(() => overWebSocketUnread(DOC));
    console.log(`/health while 30 × tags(first: 10000) are answered over WebSocket: worst ${worst.toFixed(1)} ms`);
    expect(worst).toBeLessThan(budget(100));
  });
});
