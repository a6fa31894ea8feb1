import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBinary } from '../helpers/binaries.ts';
import { type ServerProcess, startServerProcess } from '../helpers/cli.ts';
import { CAPTURE } from '../helpers/operations.ts';
import { type RedisServer, startRedis } from '../helpers/redis.ts';
import { collect, settle, wsClient } from '../helpers/ws.ts';

const redisBinary = requireBinary('redis-server');

interface Health {
  status: string;
  redis?: { state: string; reason: string | null; attempts: number };
  reasons?: string[];
}

/** Polls /health until `test` holds (Redis reconnects on its own schedule; the test's timeout bounds the wait). */
async function healthUntil(origin: string, test: (h: Health, status: number) => boolean): Promise<Health> {
  for (;;) {
    const res = await fetch(`${origin}/health`);
    const body = (await res.json()) as Health;
    if (test(body, res.status)) return body;
    await settle(100);
  }
}

function logLines(p: ServerProcess): Record<string, unknown>[] {
  return p
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const redisWarnings = (p: ServerProcess) =>
  logLines(p).filter((l) => l.level === 40 && String(l.msg).startsWith('redis unreachable'));

async function capture(url: string, workspace: string, content: string): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({ query: CAPTURE, variables: { input: { content } } }),
  });
  expect(((await res.json()) as { errors?: unknown }).errors).toBeUndefined();
}

describe.skipIf(!redisBinary.available)('a server whose Redis is unreachable', () => {
  let redis: RedisServer;
  let dataDir: string;
  let server: ServerProcess;

  beforeAll(async () => {
    redis = await startRedis();
    // Redis is not there when the server starts: its port is closed until the test starts it.
    await redis.stop();
    dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-redis-down-'));
    server = await startServerProcess({ SPHERE_DATA_DIR: dataDir, REDIS_URL: redis.url });
  }, 60_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await redis?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('says so at start, answers /health "degraded" with the reason, and recovers when Redis does', async () => {
    const origin = new URL(server.url).origin;
    expect(server.output()).toContain(`  redis      ${redis.url} (unreachable: ECONNREFUSED; retrying)`);

    const down = await healthUntil(origin, (h, status) => status === 200 && h.redis?.state === 'down');
    expect(down).toMatchObject({ status: 'degraded', redis: { state: 'down', reason: 'ECONNREFUSED' } });
    expect(down.reasons?.[0]).toMatch(/^redis unreachable \(ECONNREFUSED, \d+ reconnection attempts\)/);

    // Retries keep failing for a few seconds: still one warning, not one per attempt.
    await healthUntil(origin, (h) => (h.redis?.attempts ?? 0) >= 5);
    expect(redisWarnings(server)).toHaveLength(1);
    expect(redisWarnings(server)[0]?.msg).toContain('check REDIS_URL');

    await redis.restart();
    expect(await healthUntil(origin, (h) => h.status === 'ok')).toMatchObject({
      status: 'ok',
      redis: { state: 'up', reason: null, attempts: 0 },
    });
    expect(logLines(server).some((l) => String(l.msg).startsWith('redis reachable again'))).toBe(true);
  }, 60_000);

  it('keeps delivering captures to subscribers on the same instance while Redis is down', async () => {
    const origin = new URL(server.url).origin;
    await redis.stop();
    await healthUntil(origin, (h) => h.status === 'degraded');

    const client = wsClient(server.url.replace(/^http/, 'ws'), { workspace: 'local' });
    const sub = collect(client, 'subscription { events { seq type entry { content } } }');
    await settle(300);
    await capture(server.url, 'local', 'written while redis is down');
    await capture(server.url, 'local', 'and another one');
    const items = await sub.until((xs) => xs.length >= 2, 20_000);
    expect(items.map((e) => e.entry.content)).toEqual(['written while redis is down', 'and another one']);

    await redis.restart();
    await healthUntil(origin, (h) => h.status === 'ok');
    await capture(server.url, 'local', 'after redis is back');
    await sub.until((xs) => xs.length >= 3, 20_000);
    await settle(300);
    // Delivered here directly and not again when Redis echoes it back.
    expect(sub.items.map((e) => e.seq)).toEqual([1, 2, 3]);
    sub.dispose();
    await client.dispose();
  }, 60_000);
});
