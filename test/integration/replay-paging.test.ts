import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type ServerProcess, startServerProcess } from '../helpers/cli.ts';
import { CAPTURE } from '../helpers/operations.ts';

const EVENTS = 30_000;
const SOCKETS = 10;

async function stop(server: ServerProcess | undefined): Promise<void> {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

/**
 * A workspace with one entry and a log of `events` events naming it (`data` of each), the
 * rest written straight into its file: the API would take minutes.
 */
async function seedLog(dataDir: string, workspace: string, events: number, data: (i: number) => string) {
  const first = await startServerProcess({ SPHERE_DATA_DIR: dataDir });
  const res = await fetch(first.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({ query: CAPTURE, variables: { input: { content: 'the entry every event names' } } }),
  });
  const id = ((await res.json()) as { data: { capture: { entry: { id: string } } } }).data.capture.entry.id;
  await stop(first);
  const db = createClient({ url: `file:${join(dataDir, `${workspace}.db`)}` });
  await db.batch(
    Array.from({ length: events }, (_, i) => ({
      sql: "INSERT INTO events (type, at, entry_id, outcome, data) VALUES ('CAPTURED', ?, ?, 'STORED', ?)",
      args: [Date.now(), id, data(i)],
    })),
    'write',
  );
  db.close();
}

/** A graphql-ws subscriber that replays the whole log and then stops reading its socket. */
function pausedReplayer(wsUrl: string, workspace: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, 'graphql-transport-ws');
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { workspace } })));
    ws.on('message', (data: Buffer) => {
      if ((JSON.parse(data.toString('utf8')) as { type: string }).type !== 'connection_ack') return;
      ws.send(
        JSON.stringify({
          id: '1',
          type: 'subscribe',
          payload: { query: 'subscription { events(sinceSeq: 0) { seq type at data entry { id content } } }' },
        }),
      );
      // The client stops reading: what the server sends piles up in the kernel, then in the server.
      (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      resolve(ws);
    });
  });
}

describe('event-log replay to sockets that do not read', () => {
  let dataDir: string;
  let server: ServerProcess;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-replay-'));
    const padding = 'x'.repeat(400);
    await seedLog(dataDir, 'replay', EVENTS, (i) => JSON.stringify({ i, padding }));
    server = await startServerProcess({ SPHERE_DATA_DIR: dataDir });
  });

  afterAll(async () => {
    await stop(server);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the server answering while 10 paused sockets replay 30,000 events', async () => {
    const wsUrl = server.url.replace(/^http/, 'ws');
    const health = new URL('/health', server.url);
    // The server's answer time alone, before any replay.
    for (let i = 0; i < 5; i++) await fetch(health);

    const sockets = await Promise.all(Array.from({ length: SOCKETS }, () => pausedReplayer(wsUrl, 'replay')));
    const latencies: number[] = [];
    const until = Date.now() + 4_000;
    while (Date.now() < until) {
      const t0 = performance.now();
      expect((await fetch(health)).status).toBe(200);
      latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const ws of sockets) ws.terminate();
    const worst = Math.max(...latencies);
    console.log(`/health during the replay: ${latencies.length} answers, worst ${worst.toFixed(0)} ms`);
    // Each replay reads and sends a page at a time, yielding between pages.
    expect(worst).toBeLessThan(500);
  });
});

describe('event-log replays of one client', () => {
  const LOG = 300;
  const SUBSCRIPTIONS = 8;
  let dataDir: string;
  let server: ServerProcess;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-replays-'));
    // The capture's own event and LOG - 1 more: seqs 1 to LOG.
    await seedLog(dataDir, 'turns', LOG - 1, (i) => JSON.stringify({ i }));
    server = await startServerProcess({ SPHERE_DATA_DIR: dataDir });
  });

  afterAll(async () => {
    await stop(server);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('take turns: at most four replay at once, each whole and in order', async () => {
    const ws = new WebSocket(server.url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    const seen = new Map<string, number[]>();
    let active = 0;
    let mostActive = 0;
    const done = new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.once('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { workspace: 'turns' } })));
      ws.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString('utf8')) as {
          type: string;
          id?: string;
          payload?: { data?: { events: { seq: number } } };
        };
        if (message.type === 'connection_ack') {
          for (let i = 0; i < SUBSCRIPTIONS; i++) {
            const query = 'subscription { events(sinceSeq: 0) { seq } }';
            ws.send(JSON.stringify({ id: `s${i}`, type: 'subscribe', payload: { query } }));
          }
          return;
        }
        if (message.type !== 'next' || !message.id) return reject(new Error(data.toString('utf8')));
        const seqs = seen.get(message.id) ?? [];
        seen.set(message.id, seqs);
        const seq = message.payload?.data?.events.seq ?? -1;
        if (seqs.length === 0) active++;
        seqs.push(seq);
        mostActive = Math.max(mostActive, active);
        if (seq === LOG) active--;
        if ([...seen.values()].filter((s) => s.at(-1) === LOG).length === SUBSCRIPTIONS) resolve();
      });
    });
    await done;
    ws.terminate();
    console.log(`${SUBSCRIPTIONS} subscriptions of one client replaying ${LOG} events: at most ${mostActive} at once`);
    for (const seqs of seen.values()) expect(seqs).toEqual(Array.from({ length: LOG }, (_, i) => i + 1));
    expect(mostActive).toBeLessThanOrEqual(4);
  });
});
