import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBinary } from '../helpers/binaries.ts';
import { CAPTURE } from '../helpers/operations.ts';
import { type ServerProcess, spawnServer } from '../helpers/process.ts';
import { type RedisServer, startRedis } from '../helpers/redis.ts';
import { collect, settle, wsClient } from '../helpers/ws.ts';

const redisBinary = requireBinary('redis-server');

async function capture(url: string, workspace: string, content: string): Promise<{ id: string } | null> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({
      query: CAPTURE,
      variables: { input: { content } },
    }),
  });
  const body = (await res.json()) as { data?: { capture: { entry: { id: string } } }; errors?: unknown };
  return body.errors || !body.data ? null : body.data.capture.entry;
}

describe.skipIf(!redisBinary.available)('fan-out across server instances through Redis', () => {
  let redis: RedisServer;
  let dataDir: string;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    redis = await startRedis();
    dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-fanout-'));
    const env = { SPHERE_DATA_DIR: dataDir, REDIS_URL: redis.url };
    [a, b] = await Promise.all([spawnServer(env), spawnServer(env)]);
  });

  afterAll(async () => {
    for (const p of [a, b]) {
      if (p && p.proc.exitCode === null) {
        p.proc.kill('SIGTERM');
        await p.exited;
      }
    }
    await redis?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('delivers a capture made on one instance to a subscriber on the other, and recovers what a Redis restart dropped', async () => {
    const workspace = 'fanout';
    const client = wsClient(b.wsUrl, { workspace });
    const sub = collect(client, 'subscription { events(sinceSeq: 0) { seq type entry { content } } }');
    await settle(300);

    const first = await capture(a.url, workspace, 'written on instance A');
    expect(first).not.toBeNull();
    await sub.until((xs) => xs.length >= 1);
    expect(sub.items[0]?.entry.content).toBe('written on instance A');

    // Redis goes away and comes back: pub/sub messages sent meanwhile are lost.
    await redis.restart();
    const during: string[] = [];
    for (let i = 0; i < 20; i++)
      if (await capture(a.url, workspace, `after restart ${i}`)) during.push(`after restart ${i}`);
    expect(during).toHaveLength(20);

    // The subscriber on B catches up from the event log: no gap, no duplicate.
    await sub.until((xs) => xs.length >= 21, 20_000);
    await settle(500);
    expect(sub.items.map((e) => e.seq)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect(sub.items.slice(1).map((e) => e.entry.content)).toEqual(during);

    // And live fan-out works again once Redis is back.
    await capture(b.url, workspace, 'written on instance B');
    await capture(a.url, workspace, 'written on instance A again');
    await sub.until((xs) => xs.length >= 23, 20_000);
    expect(sub.items.map((e) => e.seq)).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
    sub.dispose();
    await client.dispose();
  });

  it('closes WebSockets with 1001 on SIGTERM, exits promptly and loses no acknowledged write', async () => {
    const workspace = 'shutdown';
    const closeCode = new Promise<number>((resolve) => {
      const client = wsClient(a.wsUrl, { workspace });
      client.on('closed', (event) => resolve((event as { code: number }).code));
      collect(client, 'subscription { events { seq } }');
    });
    await settle(300);

    const acknowledged: string[] = [];
    let stop = false;
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        try {
          const entry = await capture(a.url, workspace, `writer ${w} note ${i}`);
          if (entry) acknowledged.push(entry.id);
        } catch {
          return; // the server stopped taking requests
        }
      }
    });
    await settle(400);
    const signalled = Date.now();
    a.proc.kill('SIGTERM');
    const exit = await a.exited;
    const tookMs = Date.now() - signalled;
    stop = true;
    await Promise.all(writers);

    expect(exit.code).toBe(0);
    expect(tookMs).toBeLessThan(10_000);
    expect(await closeCode).toBe(1001);
    expect(acknowledged.length).toBeGreaterThan(0);

    const db = createClient({ url: `file:${join(dataDir, `${workspace}.db`)}` });
    const rows = await db.execute('SELECT id FROM entries');
    const stored = new Set(rows.rows.map((r) => String(r.id)));
    db.close();
    for (const id of acknowledged) expect(stored.has(id)).toBe(true);
  });
});
