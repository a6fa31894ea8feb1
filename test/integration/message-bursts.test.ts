import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { budget } from '../helpers/budget.ts';
import { type ServerInTempDir, spawnServerInTempDir } from '../helpers/process.ts';

/**
 * 30 sockets each send 100 subscribe messages at once, 3,000 in all, within every cap. A
 * socket's messages arrive in one chunk, and were all handled before anything else ran:
 * the loop stalled 230–280 ms. Now each socket gets one message handled a turn of the loop.
 * A real server process; its loop is measured by its own monitor (/metrics), since this
 * process, sending and receiving thousands of messages, cannot time it from outside.
 */

const SOCKETS = 30;
const PER_SOCKET = 100;
const WORKSPACE = 'bursts';

let server: ServerInTempDir;
let origin: string;

beforeAll(async () => {
  server = await spawnServerInTempDir('bursts');
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  await server?.stop();
});

/** The server's longest event-loop stall since the previous call, in ms. */
async function loopStall(): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const line = /^sphere_event_loop_delay_seconds\{quantile="1"\} (\S+)$/m.exec(text);
  expect(line).not.toBeNull();
  return Number(line![1]) * 1000;
}

interface Socket {
  ws: WebSocket;
  /** Event ids by subscription id. */
  received: Map<string, number>;
  errors: number;
}

function open(): Promise<Socket> {
  const ws = new WebSocket(server.wsUrl, 'graphql-transport-ws');
  const socket: Socket = { ws, received: new Map(), errors: 0 };
  return new Promise<Socket>((resolve, reject) => {
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { workspace: WORKSPACE } })));
    ws.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as { type: string; id?: string };
      if (message.type === 'connection_ack') resolve(socket);
      else if (message.type === 'next') socket.received.set(message.id!, (socket.received.get(message.id!) ?? 0) + 1);
      else if (message.type === 'error') socket.errors++;
    });
    ws.on('error', reject);
  });
}

describe('a burst of subscribe messages', () => {
  it('is taken a message a socket at a time, without a long stall of the loop, and every subscription runs', async () => {
    const sockets = await Promise.all(Array.from({ length: SOCKETS }, open));
    try {
      await loopStall();
      for (const { ws } of sockets) {
        for (let i = 0; i < PER_SOCKET; i++) {
          ws.send(
            JSON.stringify({ id: `s${i}`, type: 'subscribe', payload: { query: 'subscription { events { seq } }' } }),
          );
        }
      }
      // Time for the server to take them all (a few hundred milliseconds), then its longest stall.
      await new Promise((r) => setTimeout(r, budget(3_000)));
      const stall = await loopStall();
      // Every subscription is live once an event written afterwards reaches all of them.
      const deadline = performance.now() + budget(60_000);
      let delivered = 0;
      for (let attempt = 0; delivered < SOCKETS * PER_SOCKET && performance.now() < deadline; attempt++) {
        const res = await fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-workspace': WORKSPACE },
          body: JSON.stringify({ query: `mutation { capture(input: { content: "burst ${attempt}" }) { outcome } }` }),
        });
        expect(res.status).toBe(200);
        await new Promise((r) => setTimeout(r, 500));
        delivered = sockets.reduce((n, s) => n + s.received.size, 0);
      }
      console.log(
        `the server's longest stall while ${SOCKETS * PER_SOCKET} subscribes arrive at once: ${stall.toFixed(1)} ms`,
      );
      expect(sockets.map((s) => s.errors)).toEqual(sockets.map(() => 0));
      expect(delivered).toBe(SOCKETS * PER_SOCKET);
      expect(stall).toBeLessThan(budget(120));
    } finally {
      for (const { ws } of sockets) ws.terminate();
    }
  });
});
