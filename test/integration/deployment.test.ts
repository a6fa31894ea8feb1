import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBinary } from '../helpers/binaries.ts';
import { runCli, type ServerProcess, startServerProcess } from '../helpers/cli.ts';
import { type HranaTestServer, startHranaServer } from '../helpers/hrana-server.ts';
import { CAPTURE } from '../helpers/operations.ts';
import { type RedisServer, startRedis } from '../helpers/redis.ts';
import type { GqlResponse } from '../helpers/server.ts';
import { collect, type Received, settle, wsClient } from '../helpers/ws.ts';

// The deployment the README describes under "Deploying several instances", on real parts:
// two `mini-sphere serve` processes, one redis-server, every workspace database and the
// control database hosted on a Hrana service whose files the tests read directly.

const redisBinary = requireBinary('redis-server');

/** The hosted databases' token (SPHERE_DB_AUTH_TOKEN), not a Mini-Sphere token. */
const DB_TOKEN = 'deployment-group-token';
const CLIENTS_PER_INSTANCE = 8;
const WRITES_PER_CLIENT = 6;
/** Revocation is rechecked every second; this bound leaves a tenfold margin and more. */
const REVOCATION_BOUND_MS = 15_000;
/** Events reach every subscriber well within this (Redis, or the log poll every second). */
const DELIVERY_BOUND_MS = 30_000;

let dir: string;
let hrana: HranaTestServer;
let redis: RedisServer;
let a: ServerProcess;
let b: ServerProcess;

function deployEnv(): Record<string, string> {
  return {
    SPHERE_DATA_DIR: join(dir, 'data'),
    SPHERE_DB_URL: hrana.urlTemplate,
    SPHERE_DB_AUTH_TOKEN: DB_TOKEN,
    SPHERE_CONTROL_DB_URL: hrana.url('_control'),
    REDIS_URL: redis.url,
    SPHERE_RATE_LIMIT: '0',
  };
}

/** `mini-sphere token create` run as an operator would, against the shared control database. */
async function createToken(workspace: string, role = 'agent'): Promise<{ id: string; token: string }> {
  const res = await runCli(['token', 'create', '--workspace', workspace, '--role', role], deployEnv());
  if (res.code !== 0) throw new Error(`token create failed: ${res.stderr}`);
  const lines = res.stdout.trim().split('\n');
  return { id: lines[0]?.replace(/^id: /, '') ?? '', token: lines.at(-1) ?? '' };
}

async function gql(
  url: string,
  token: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<GqlResponse> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return { ...((await res.json()) as Omit<GqlResponse, 'status'>), status: res.status };
}

/** Rows of a hosted database, read from the service's file, not through either instance. */
function fileRows(name: string, sql: string): Record<string, unknown>[] {
  const db = new Database(hrana.dbPath(name), { timeout: 5_000 });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/** What the instances logged about refusing as UNAVAILABLE, with the cause: shown when a write failed. */
const unavailableLog = () =>
  [a, b]
    .flatMap((s) => s.output().split('\n'))
    .filter((l) => l.includes('database unavailable'))
    .join('\n');

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

async function until(check: () => Promise<boolean> | boolean, boundMs: number, what: string): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${boundMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What one writing client saw: contents acknowledged as stored, and what stopped it, if anything. */
interface ClientRun {
  acked: string[];
  failures: string[];
}

/**
 * One client capturing `WRITES_PER_CLIENT` distinct contents in turn. A refused connection
 * (its instance is gone) ends it; any other failure is recorded and it goes on.
 */
async function writeClient(url: string, token: string, label: string, onAck?: () => void): Promise<ClientRun> {
  const run: ClientRun = { acked: [], failures: [] };
  for (let i = 0; i < WRITES_PER_CLIENT; i++) {
    const content = `${label} wrote number ${i}`;
    let res: GqlResponse;
    try {
      res = await gql(url, token, CAPTURE, { input: { content } });
    } catch (error) {
      run.failures.push(`connection: ${(error as Error).message}`);
      return run;
    }
    if (res.data?.capture?.outcome === 'STORED') {
      run.acked.push(content);
      onAck?.();
    } else {
      run.failures.push(JSON.stringify(res.errors ?? res.data));
    }
  }
  return run;
}

/** Eight clients on each instance, all writing to the token's workspace at once. */
function loadBoth(token: string, tag: string, onAckA?: () => void): Promise<{ onA: ClientRun[]; onB: ClientRun[] }> {
  const clients = (server: ServerProcess, name: string, onAck?: () => void) =>
    Promise.all(range(1, CLIENTS_PER_INSTANCE).map((c) => writeClient(server.url, token, `${tag} ${name}${c}`, onAck)));
  return Promise.all([clients(a, 'a', onAckA), clients(b, 'b')]).then(([onA, onB]) => ({ onA, onB }));
}

const ackedOf = (runs: ClientRun[]) => runs.flatMap((r) => r.acked);

/** A live `events` subscription over WebSocket, with the agent's token. */
function subscribe(server: ServerProcess, token: string, sinceSeq?: number): Received<{ seq: number }> {
  const client = wsClient(server.url.replace(/^http/, 'ws'), { authorization: `Bearer ${token}` });
  const query =
    sinceSeq === undefined
      ? 'subscription { events { seq } }'
      : `subscription { events(sinceSeq: ${sinceSeq}) { seq } }`;
  const received = collect<{ seq: number }>(client, query);
  const dispose = received.dispose;
  received.dispose = () => {
    dispose();
    void client.dispose();
  };
  return received;
}

/**
 * Subscribes on both instances, then writes one marker on A and waits until both
 * subscribers have it: from then on both are live. Returns the marker's seq.
 */
async function liveOnBoth(token: string, label: string) {
  const subs = [subscribe(a, token), subscribe(b, token)] as const;
  await settle(300);
  const marker = await gql(a.url, token, 'mutation ($c: String!) { capture(input: { content: $c }) { outcome } }', {
    c: `${label} marker`,
  });
  expect(marker.data?.capture?.outcome).toBe('STORED');
  const seq = Number(fileRows(label, 'SELECT max(seq) AS s FROM events')[0]?.s);
  for (const sub of subs) await sub.until((items) => items.length >= 1, DELIVERY_BOUND_MS);
  return { subs, markerSeq: seq };
}

/** Every acknowledged write is in the database file and answered by the API on the given instances. */
async function expectStored(workspace: string, token: string, acked: string[], servers: ServerProcess[]) {
  const inFile = new Set(fileRows(workspace, 'SELECT content FROM entries').map((r) => r.content));
  for (const content of acked) expect(inFile.has(content), `acknowledged but not stored: ${content}`).toBe(true);
  for (const server of servers) {
    const res = await gql(server.url, token, '{ recent(n: 200) { content } }');
    expect(res.errors, `recent on ${server.url}`).toBeUndefined();
    const listed = new Set(((res.data?.recent ?? []) as { content: string }[]).map((e) => e.content));
    for (const content of acked) expect(listed.has(content), `not answered by ${server.url}: ${content}`).toBe(true);
  }
}

/** The log's seqs are 1..N without gap or duplicate; returns N. */
function expectGaplessLog(workspace: string): number {
  const seqs = fileRows(workspace, 'SELECT seq FROM events ORDER BY seq').map((r) => Number(r.seq));
  expect(seqs).toEqual(range(1, seqs.length));
  return seqs.length;
}

/** Waits until a subscriber has seen seq `last`, then checks it saw `from..last` once each, in order. */
async function expectDelivered(sub: Received<{ seq: number }>, from: number, last: number): Promise<void> {
  await sub.until((items) => items.some((e) => e.seq >= last), DELIVERY_BOUND_MS);
  await settle(300);
  expect(sub.items.map((e) => e.seq)).toEqual(range(from, last));
}

beforeAll(async () => {
  if (!redisBinary.available) return;
  dir = await mkdtemp(join(tmpdir(), 'mini-sphere-deploy-'));
  hrana = await startHranaServer({ dir: join(dir, 'hosted'), token: DB_TOKEN });
  redis = await startRedis();
  [a, b] = await Promise.all([startServerProcess(deployEnv()), startServerProcess(deployEnv())]);
}, 60_000);

afterAll(async () => {
  for (const p of [a, b]) {
    if (p && p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  }
  await redis?.stop();
  await hrana?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Health {
  status: string;
  redis?: { state: string; reason: string | null };
}

/** Polls an instance's /health until `test` holds, within the delivery bound. */
async function healthOf(server: ServerProcess, test: (h: Health) => boolean): Promise<Health> {
  let last: Health | null = null;
  await until(
    async () => {
      last = (await (await fetch(server.url.replace(/\/graphql$/, '/health'))).json()) as Health;
      return test(last);
    },
    DELIVERY_BOUND_MS,
    `/health of ${server.url}: last ${JSON.stringify(last)}`,
  );
  return last as unknown as Health;
}

/** Stops Redis, waits until both instances report it in /health, and starts it again on the same port. */
async function redisOutage(): Promise<Health[]> {
  await redis.stop();
  const seen = [await healthOf(a, (h) => h.status !== 'ok'), await healthOf(b, (h) => h.status !== 'ok')];
  await redis.restart();
  return seen;
}

/** Instances subscribed to a Redis channel, as Redis itself counts them. */
async function subscribersOf(channel: string): Promise<number> {
  const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    const [, count] = (await client.pubsub('NUMSUB', channel)) as [string, number];
    return Number(count);
  } catch {
    return -1;
  } finally {
    client.disconnect();
  }
}

/** An SSE subscription: its text so far, and a promise that resolves when the server ends it. */
async function openSse(server: ServerProcess, token: string): Promise<{ text(): string; ended: Promise<void> }> {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: 'subscription { events { seq } }' }),
  });
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  const ended = (async () => {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      text += Buffer.from(value).toString('utf8');
    }
  })();
  return { text: () => text, ended };
}

/** A WebSocket subscription and the close code its socket ends with. */
function openWs(server: ServerProcess, token: string): { sub: Received<{ seq: number }>; closed: Promise<number> } {
  const client = wsClient(server.url.replace(/^http/, 'ws'), { authorization: `Bearer ${token}` });
  const closed = new Promise<number>((resolve) => client.on('closed', (e) => resolve((e as { code: number }).code)));
  const sub = collect<{ seq: number }>(client, 'subscription { events { seq } }');
  return { sub, closed };
}

const refusedWithin = <T>(p: Promise<T>, what: string) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} not within ${REVOCATION_BOUND_MS} ms`)), REVOCATION_BOUND_MS),
    ),
  ]);

/** Each test starts CLI processes and drives two servers on a shared machine: time is not what it checks. */
const TEST_TIMEOUT_MS = 180_000;

describe.skipIf(!redisBinary.available)(
  'two instances sharing a hosted control database: tokens, and the hosted service failing',
  { timeout: TEST_TIMEOUT_MS },
  () => {
    it('a token created with the CLI works on both instances; revoked, it is refused on both, open streams included', async () => {
      const { id, token } = await createToken('revocable');
      for (const server of [a, b]) {
        const res = await gql(server.url, token, '{ count }');
        expect(res.data?.count, JSON.stringify(res.errors)).toBe(0);
      }
      const sockets = [openWs(a, token), openWs(b, token)];
      const streams = await Promise.all([openSse(a, token), openSse(b, token)]);
      await settle(500);

      const revoked = await runCli(['token', 'revoke', id], deployEnv());
      expect(revoked.stdout).toContain(`revoked ${id}`);
      for (const server of [a, b]) {
        await until(
          async () => (await gql(server.url, token, '{ count }')).errors?.[0]?.extensions?.code === 'UNAUTHENTICATED',
          REVOCATION_BOUND_MS,
          `HTTP refusal on ${server.url}`,
        );
      }
      for (const [i, s] of sockets.entries()) {
        expect(await refusedWithin(s.closed, `socket ${i} closed`)).toBe(4403);
        s.sub.dispose();
      }
      for (const [i, s] of streams.entries()) {
        await refusedWithin(s.ended, `SSE stream ${i} ended`);
        expect(s.text()).toContain('UNAUTHENTICATED');
      }
      // A new socket is refused too, on either instance.
      for (const server of [a, b]) expect(await openWs(server, token).closed).toBe(4403);
    });

    it('the hosted service unreachable: UNAVAILABLE with the cause on both instances, /health 503, back when it returns', async () => {
      const { token } = await createToken('outage');
      for (const server of [a, b]) expect((await gql(server.url, token, '{ count }')).data?.count).toBe(0);
      await hrana.refuse();
      try {
        for (const server of [a, b]) {
          const answers = [
            await gql(server.url, token, '{ count }'),
            await gql(server.url, token, CAPTURE, { input: { content: `written to ${server.url} while unreachable` } }),
          ];
          for (const answer of answers) {
            expect(answer.status).toBe(503);
            expect(answer.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
            // The workspace's own failure names its cause (refused, or reset when a kept-alive
            // socket was closed under the request); past the one-second mode cache the control
            // database, on the same service here, is what fails first.
            expect(answer.errors?.[0]?.message).toMatch(/ECONNREFUSED|ECONNRESET|the control database cannot be read/);
          }
          const health = await fetch(server.url.replace(/\/graphql$/, '/health'));
          expect(health.status).toBe(503);
          expect(await health.json()).toMatchObject({ status: 'unavailable' });
        }
      } finally {
        await hrana.start();
      }
      for (const server of [a, b]) {
        const res = await gql(server.url, token, CAPTURE, { input: { content: `written to ${server.url} after` } });
        expect(res.data?.capture?.outcome, JSON.stringify(res.errors)).toBe('STORED');
      }
      const stored = fileRows('outage', 'SELECT content FROM entries').map((r) => String(r.content));
      expect(stored.sort()).toEqual([`written to ${a.url} after`, `written to ${b.url} after`].sort());
    });
  },
);

describe.skipIf(!redisBinary.available)(
  'two instances and Redis under load: writes, a Redis outage, an instance killed',
  { timeout: TEST_TIMEOUT_MS },
  () => {
    it('eight clients on each instance write to one workspace: nothing acknowledged is lost, every subscriber gets every event once, in order', async () => {
      const { token } = await createToken('together');
      const { subs, markerSeq } = await liveOnBoth(token, 'together');
      const { onA, onB } = await loadBoth(token, 'together');
      expect(
        [...onA, ...onB].flatMap((r) => r.failures),
        unavailableLog(),
      ).toEqual([]);
      const acked = [...ackedOf(onA), ...ackedOf(onB)];
      expect(acked).toHaveLength(2 * CLIENTS_PER_INSTANCE * WRITES_PER_CLIENT);

      await expectStored('together', token, acked, [a, b]);
      const last = expectGaplessLog('together');
      expect(last).toBe(markerSeq + acked.length);
      for (const sub of subs) await expectDelivered(sub, markerSeq, last);
      for (const sub of subs) sub.dispose();
    });

    it('Redis down mid-load, then back: /health says degraded meanwhile, no subscriber misses an event', async () => {
      const { token } = await createToken('restarts');
      const { subs, markerSeq } = await liveOnBoth(token, 'restarts');
      let ackedOnA = 0;
      let outage: Promise<Health[]> | null = null;
      const load = loadBoth(token, 'restarts', () => {
        if (++ackedOnA === 8) outage = redisOutage();
      });
      const { onA, onB } = await load;
      expect(outage, 'Redis went down while clients wrote').not.toBeNull();
      for (const health of (await outage) ?? []) {
        expect(health).toMatchObject({ status: 'degraded', redis: { state: 'down' } });
      }
      expect(
        [...onA, ...onB].flatMap((r) => r.failures),
        unavailableLog(),
      ).toEqual([]);
      const acked = [...ackedOf(onA), ...ackedOf(onB)];

      await expectStored('restarts', token, acked, [a, b]);
      const last = expectGaplessLog('restarts');
      expect(last).toBe(markerSeq + acked.length);
      for (const sub of subs) await expectDelivered(sub, markerSeq, last);

      // Back to normal: both instances healthy and subscribed to the workspace's channel again.
      for (const server of [a, b]) await healthOf(server, (h) => h.status === 'ok');
      await until(async () => (await subscribersOf('sphere-events:restarts')) === 2, DELIVERY_BOUND_MS, 'resubscribed');
      for (const sub of subs) sub.dispose();
    });

    it('an instance killed mid-load: its acknowledged writes stay, the other goes on, a client resumes there by seq', async () => {
      const { token } = await createToken('survives');
      const { subs, markerSeq } = await liveOnBoth(token, 'survives');
      const [onVictim, onSurvivor] = subs;
      let ackedOnA = 0;
      const load = loadBoth(token, 'survives', () => {
        if (++ackedOnA === 8) a.child.kill('SIGKILL');
      });
      const { onA, onB } = await load;
      expect((await a.exited).signal).toBe('SIGKILL');
      // A's clients lose their connection. B's go on: when the killed instance died inside a
      // group sent as two requests, B's writes wait while the hosted database still holds its
      // open transaction (until the 5 s transaction limit rolls it back); one that waits past
      // the database's busy timeout is UNAVAILABLE, never lost.
      expect(onA.some((r) => r.acked.length < WRITES_PER_CLIENT)).toBe(true);
      for (const failure of onB.flatMap((r) => r.failures)) expect(failure).toContain('UNAVAILABLE');
      expect(ackedOf(onB).length).toBeGreaterThan(0);
      const acked = [...ackedOf(onA), ...ackedOf(onB)];

      await expectStored('survives', token, acked, [b]);
      // A write the killed instance had committed but not yet answered may be stored too:
      // at most the one each of its clients had in flight, and nothing else unacknowledged.
      const inFlightOnA = new Set(onA.map((r, i) => `survives a${i + 1} wrote number ${r.acked.length}`));
      const ackedSet = new Set(acked);
      const unacked = fileRows('survives', 'SELECT content FROM entries')
        .map((r) => String(r.content))
        .filter((content) => / wrote number /.test(content) && !ackedSet.has(content));
      for (const content of unacked) expect(inFlightOnA.has(content), `stored unacknowledged: ${content}`).toBe(true);
      const last = expectGaplessLog('survives');
      expect(last).toBe(markerSeq + acked.length + unacked.length);
      await expectDelivered(onSurvivor, markerSeq, last);

      // The victim's subscriber reconnects to the survivor from the last seq it saw.
      const seen = onVictim.items.map((e) => e.seq);
      expect(seen).toEqual(range(markerSeq, seen.at(-1) ?? markerSeq));
      const resumed = subscribe(b, token, seen.at(-1));
      // One write more, so that there is something to resume to even when the victim's
      // subscriber had seen every write before it died.
      const after = await gql(b.url, token, 'mutation { capture(input: { content: "survives resumed" }) { outcome } }');
      expect(after.data?.capture?.outcome).toBe('STORED');
      await expectDelivered(resumed, (seen.at(-1) ?? markerSeq) + 1, last + 1);
      for (const sub of [...subs, resumed]) sub.dispose();
    });
  },
);
