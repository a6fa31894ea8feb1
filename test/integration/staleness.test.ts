import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildServer, type MiniSphereServer } from '../../src/server/server.ts';
import { CAPTURE } from '../helpers/operations.ts';
import { openWorkspaceDb } from '../helpers/workspace-db.ts';

/** A parsed response or row: its shape is what the assertions check. */
// biome-ignore lint/suspicious/noExplicitAny: test data, checked by the assertions that read it
type Loose = Record<string, any>;

const DAY = 86_400_000;
const T0 = Date.parse('2026-01-05T12:00:00.000Z');

// The server's only clock: captures, the pass and lazy staleness all read it.
let now = T0;
let server: MiniSphereServer;
let url: string;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-staleness-'));
  server = buildServer(loadConfig({}, { port: 0, host: '127.0.0.1', dataDir, logLevel: 'silent' }), {
    clock: () => now,
  });
  ({ url } = await server.start());
});
afterAll(async () => {
  await server?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function gql(workspace: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: Loose | null; errors?: { extensions?: { code?: string } }[] };
}

async function gqlOk(workspace: string, query: string, variables: Record<string, unknown> = {}) {
  const body = await gql(workspace, query, variables);
  if (body.errors?.length || !body.data) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

const PASS =
  'mutation ($limit: Int) { runStalenessPass(input: { limit: $limit }) { report { scanned markedStale reclassified at } } }';

async function capture(workspace: string, input: Record<string, unknown>): Promise<string> {
  return (await gqlOk(workspace, CAPTURE, { input })).capture.entry.id;
}

async function rows(workspace: string, sql: string) {
  const client = await openWorkspaceDb(join(dataDir, `${workspace}.db`));
  try {
    return (await client.execute(sql)).rows.map((r) => ({ ...r }) as Loose);
  } finally {
    client.close();
  }
}

async function entriesById(workspace: string) {
  const all = await rows(workspace, 'SELECT id, status, volatility, volatility_source, updated_at FROM entries');
  return new Map(all.map((r) => [r.id as string, r]));
}

describe('runStalenessPass', () => {
  it('re-classifies default volatility, marks over-age ACTIVE entries STALE, never DURABLE ones', async () => {
    const ws = 'stale-main';
    now = T0;
    const id = {
      down: await capture(ws, { content: 'The deploy is down right now' }),
      node: await capture(ws, { content: 'Node 20.11 is the current LTS' }),
      birthday: await capture(ws, { content: "Ada Lovelace's birthday is 10 December 1815" }),
      plain: await capture(ws, { content: 'Kim prefers tea over coffee' }),
      evolving: await capture(ws, { content: 'Lunch plans with the team', volatility: 'EVOLVING' }),
      ephemeral: await capture(ws, { content: 'Parking spot 12 is free', volatility: 'EPHEMERAL' }),
      durable: await capture(ws, { content: 'Water boils at 100 C at sea level', volatility: 'DURABLE' }),
      canonical: await capture(ws, { content: 'Release train', volatility: 'EPHEMERAL', status: 'CANONICAL' }),
    };

    // Ten days on: only EPHEMERAL entries are past their limit (7 days).
    now = T0 + 10 * DAY;
    const first = (await gqlOk(ws, PASS, { limit: 500 })).runStalenessPass.report;
    expect(first).toEqual({ scanned: 5, markedStale: 2, reclassified: 4, at: new Date(now).toISOString() });
    let e = await entriesById(ws);
    expect(e.get(id.down)).toMatchObject({ volatility: 'EPHEMERAL', volatility_source: 'heuristic', status: 'STALE' });
    expect(e.get(id.node)).toMatchObject({ volatility: 'EVOLVING', volatility_source: 'heuristic', status: 'ACTIVE' });
    expect(e.get(id.birthday)).toMatchObject({ volatility: 'DURABLE', volatility_source: 'heuristic' });
    expect(e.get(id.plain)).toMatchObject({ volatility: 'EVOLVING', volatility_source: 'heuristic' });
    expect(e.get(id.evolving)).toMatchObject({ volatility_source: 'caller', status: 'ACTIVE' });
    expect(e.get(id.ephemeral)).toMatchObject({ volatility_source: 'caller', status: 'STALE' });
    expect(e.get(id.canonical)).toMatchObject({ status: 'CANONICAL' }); // only ACTIVE entries are marked
    // The pass is bookkeeping: ages keep counting from the last real change.
    for (const row of e.values()) expect(row.updated_at).toBe(T0);

    // A hundred days on: EVOLVING entries (90 days) go stale; DURABLE ones never do.
    now = T0 + 100 * DAY;
    const second = (await gqlOk(ws, PASS, {})).runStalenessPass.report;
    expect(second).toMatchObject({ scanned: 3, markedStale: 3, reclassified: 0 });
    e = await entriesById(ws);
    for (const key of ['node', 'plain', 'evolving'] as const) expect(e.get(id[key])?.status).toBe('STALE');
    expect(e.get(id.birthday)?.status).toBe('ACTIVE');
    expect(e.get(id.durable)?.status).toBe('ACTIVE');

    // Nothing left to do.
    now = T0 + 1000 * DAY;
    expect((await gqlOk(ws, PASS, {})).runStalenessPass.report).toMatchObject({
      scanned: 0,
      markedStale: 0,
      reclassified: 0,
    });

    const audit = await rows(
      ws,
      "SELECT at, actor, action, details FROM audit_log WHERE action = 'staleness_pass' ORDER BY id",
    );
    expect(audit).toHaveLength(3);
    expect(audit[0]).toMatchObject({ at: T0 + 10 * DAY, actor: null });
    expect(JSON.parse(audit[0]?.details)).toMatchObject({ limit: 500, scanned: 5, markedStale: 2, reclassified: 4 });
    expect(JSON.parse(audit[1]?.details)).toMatchObject({ limit: 500, scanned: 3, markedStale: 3, reclassified: 0 });

    const log = (await gqlOk(ws, '{ eventLog(limit: 100) { seq type at entryId data } }')).eventLog as Loose[];
    const passes = log.filter((ev) => ev.type === 'STALENESS_PASS');
    expect(passes).toHaveLength(3);
    expect(passes[0]).toMatchObject({
      at: new Date(T0 + 10 * DAY).toISOString(),
      entryId: null,
      data: { scanned: 5, markedStale: 2, reclassified: 4 },
    });
    expect(log.map((ev) => ev.seq)).toEqual(log.map((_, i) => i + 1));
  });

  it('caps re-classification and marking at `limit` per pass', async () => {
    const ws = 'stale-limit';
    now = T0;
    for (let i = 0; i < 3; i++) await capture(ws, { content: `Server ${i} is down right now` });
    now = T0 + 30 * DAY;
    expect((await gqlOk(ws, PASS, { limit: 1 })).runStalenessPass.report).toMatchObject({
      reclassified: 1,
      markedStale: 1,
    });
    expect((await gqlOk(ws, PASS, { limit: 2 })).runStalenessPass.report).toMatchObject({
      reclassified: 2,
      markedStale: 2,
    });
    const statuses = await rows(ws, 'SELECT status, volatility_source FROM entries');
    expect(statuses.every((r) => r.status === 'STALE' && r.volatility_source === 'heuristic')).toBe(true);
  });

  it('rejects a limit outside 1..10,000 with BAD_USER_INPUT and writes nothing', async () => {
    const ws = 'stale-bad';
    now = T0;
    await capture(ws, { content: 'Something to keep' });
    for (const limit of [0, -1, 10_001]) {
      const body = await gql(ws, PASS, { limit });
      expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect((await gqlOk(ws, PASS, { limit: 10_000 })).runStalenessPass.report.reclassified).toBe(1);
    expect(await rows(ws, "SELECT count(*) AS n FROM audit_log WHERE action = 'staleness_pass'")).toEqual([{ n: 1 }]);
  });
});
