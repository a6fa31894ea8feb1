import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Data, freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';
import { dumpWorkspace } from '../helpers/workspace-db.ts';

const CAPTURE = `mutation ($input: CaptureInput!) {
  capture(input: $input) {
    outcome
    matchId
    entry { id content source kind status volatility importance claimTag contentHash freshness tags
      connections { direction edge { src dst type provenance weight } entry { id } } }
  }
}`;

const ENTRY = `query ($id: ID!) {
  entry(id: $id) { id content status freshness tags
    connections { direction edge { src dst type provenance } entry { id } } }
}`;

const EVENTS = '{ eventLog { seq type entryId outcome } }';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

function client(workspace: string) {
  return {
    capture: async (input: Record<string, unknown>) =>
      (await srv.gqlOk(CAPTURE, { input }, { workspace })).capture as {
        outcome: string;
        matchId: string | null;
        entry: Data;
      },
    entry: async (id: string) => (await srv.gqlOk(ENTRY, { id }, { workspace })).entry,
    events: async () => (await srv.gqlOk(EVENTS, {}, { workspace })).eventLog as Data[],
  };
}

describe('capture outcomes', () => {
  it('STORED: a new entry with defaults (SEMANTIC, ACTIVE, EVOLVING from default, 0.5, UNKNOWN)', async () => {
    const ws = freshWorkspace('cap');
    const c = client(ws);
    const res = await c.capture({ content: '  The build uses Vite 8  ', tags: [' Build ', 'TOOLING', 'build'] });
    expect(res.outcome).toBe('STORED');
    expect(res.matchId).toBeNull();
    expect(res.entry).toMatchObject({
      content: '  The build uses Vite 8  ',
      source: null,
      kind: 'SEMANTIC',
      status: 'ACTIVE',
      volatility: 'EVOLVING',
      importance: 0.5,
      claimTag: 'UNKNOWN',
      freshness: 'CURRENT',
      tags: ['build', 'tooling'],
      contentHash: sha256('the build uses vite 8'),
    });
    const dump = await dumpWorkspace(srv.dbPath(ws));
    expect(dump.entries).toHaveLength(1);
    expect(dump.entries[0]).toMatchObject({ id: res.entry.id, volatility: 'EVOLVING', volatility_source: 'default' });
    expect(dump.ftsRows).toBe(1);
    expect(await c.events()).toEqual([{ seq: 1, type: 'CAPTURED', entryId: res.entry.id, outcome: 'STORED' }]);
  });

  it('STORED with a caller volatility records volatility_source caller', async () => {
    const ws = freshWorkspace('cap');
    const c = client(ws);
    const res = await c.capture({ content: 'Durable fact', volatility: 'DURABLE', kind: 'PERSON', source: 'chat' });
    expect(res.entry).toMatchObject({ volatility: 'DURABLE', kind: 'PERSON', source: 'chat' });
    const dump = await dumpWorkspace(srv.dbPath(ws));
    expect(dump.entries[0]).toMatchObject({ volatility_source: 'caller' });
  });

  it('BLOCKED: same content up to case and whitespace, no new tags: nothing written, no event', async () => {
    const ws = freshWorkspace('cap');
    const c = client(ws);
    const first = await c.capture({ content: 'Deploys run on Fridays', tags: ['ops', 'deploy'] });
    const before = await dumpWorkspace(srv.dbPath(ws));
    const res = await c.capture({ content: '\n  DEPLOYS   run\ton fridays ', tags: ['OPS'] });
    expect(res.outcome).toBe('BLOCKED');
    expect(res.matchId).toBe(first.entry.id);
    expect(res.entry.id).toBe(first.entry.id);
    expect(res.entry.content).toBe('Deploys run on Fridays');
    const untagged = await c.capture({ content: 'deploys run on fridays' });
    expect(untagged.outcome).toBe('BLOCKED');
    expect(await dumpWorkspace(srv.dbPath(ws))).toEqual(before);
    expect((await c.events()).map((e) => e.outcome)).toEqual(['STORED']);
  });

  it('MERGED: adds only the missing tags to the existing entry and logs one CAPTURED event', async () => {
    const ws = freshWorkspace('cap');
    const c = client(ws);
    const first = await c.capture({ content: 'Postgres is the primary store', tags: ['db'] });
    const before = await dumpWorkspace(srv.dbPath(ws));
    const res = await c.capture({ content: 'postgres is the PRIMARY store', tags: ['DB', 'Infra', 'infra'] });
    expect(res.outcome).toBe('MERGED');
    expect(res.matchId).toBe(first.entry.id);
    expect(res.entry.id).toBe(first.entry.id);
    expect(res.entry.content).toBe('Postgres is the primary store');
    expect(res.entry.tags).toEqual(['db', 'infra']);
    const after = await dumpWorkspace(srv.dbPath(ws));
    expect(after.entries).toHaveLength(1);
    expect(after.entries[0]?.content).toBe(before.entries[0]?.content);
    expect(after.tags).toEqual([
      { entry_id: first.entry.id, tag: 'db' },
      { entry_id: first.entry.id, tag: 'infra' },
    ]);
    const events = await c.events();
    expect(events).toEqual([
      { seq: 1, type: 'CAPTURED', entryId: first.entry.id, outcome: 'STORED' },
      { seq: 2, type: 'CAPTURED', entryId: first.entry.id, outcome: 'MERGED' },
    ]);
  });

  it('REPLACED: old becomes SUPERSEDED with a SYSTEM SUPERSEDES edge new→old', async () => {
    const ws = freshWorkspace('cap');
    const c = client(ws);
    const old = await c.capture({ content: 'The API runs on port 3000' });
    const res = await c.capture({ content: 'The API runs on port 4000', replaces: old.entry.id });
    expect(res.outcome).toBe('REPLACED');
    expect(res.matchId).toBe(old.entry.id);
    expect(res.entry.id).not.toBe(old.entry.id);
    expect(res.entry.status).toBe('ACTIVE');
    expect(res.entry.connections).toEqual([
      {
        direction: 'OUT',
        edge: { src: res.entry.id, dst: old.entry.id, type: 'SUPERSEDES', provenance: 'SYSTEM', weight: 1 },
        entry: { id: old.entry.id },
      },
    ]);
    const oldNow = await c.entry(old.entry.id);
    expect(oldNow).toMatchObject({
      status: 'SUPERSEDED',
      freshness: 'SUPERSEDED',
      content: 'The API runs on port 3000',
    });
    expect(oldNow.connections).toEqual([
      {
        direction: 'IN',
        edge: { src: res.entry.id, dst: old.entry.id, type: 'SUPERSEDES', provenance: 'SYSTEM' },
        entry: { id: res.entry.id },
      },
    ]);
    expect(await c.events()).toEqual([
      { seq: 1, type: 'CAPTURED', entryId: old.entry.id, outcome: 'STORED' },
      { seq: 2, type: 'CAPTURED', entryId: res.entry.id, outcome: 'REPLACED' },
    ]);
  });

  it('REPLACED answers the replaced entry as it is now; other outcomes answer null', async () => {
    const ws = freshWorkspace('cap');
    const c = client(ws);
    const old = await c.capture({ content: 'The API runs on port 3000' });
    const res = await c.capture({ content: 'The API runs on port 4000', replaces: old.entry.id });
    const replaced = await srv.gqlOk(
      `mutation ($input: CaptureInput!) { capture(input: $input) { outcome replaced { id status freshness connections { direction } } } }`,
      { input: { content: 'The API runs on port 5000', replaces: res.entry.id } },
      { workspace: ws },
    );
    expect(replaced.capture).toEqual({
      outcome: 'REPLACED',
      replaced: {
        id: res.entry.id,
        status: 'SUPERSEDED',
        freshness: 'SUPERSEDED',
        connections: [{ direction: 'OUT' }, { direction: 'IN' }],
      },
    });
    const stored = await srv.gqlOk(
      'mutation { capture(input: { content: "Nothing replaced here" }) { outcome replaced { id } } }',
      {},
      { workspace: ws },
    );
    expect(stored.capture).toEqual({ outcome: 'STORED', replaced: null });
  });

  it('REPLACED wins over a content match (the order of the contract)', async () => {
    const ws = freshWorkspace('cap');
    const c = client(ws);
    const a = await c.capture({ content: 'Same words here' });
    const b = await c.capture({ content: 'Other words' });
    const res = await c.capture({ content: 'same words here', replaces: b.entry.id });
    expect(res.outcome).toBe('REPLACED');
    expect(res.matchId).toBe(b.entry.id);
    expect(res.entry.id).not.toBe(a.entry.id);
  });

  it('replaces with an unknown id is NOT_FOUND and writes nothing', async () => {
    const ws = freshWorkspace('cap');
    const c = client(ws);
    await c.capture({ content: 'Something to keep' });
    const before = await dumpWorkspace(srv.dbPath(ws));
    const huge = 'x'.repeat(300_000);
    for (const id of ['01890000-0000-7000-8000-000000000000', 'nope', "'; DROP TABLE entries; --", huge]) {
      const res = await srv.gql(CAPTURE, { input: { content: 'A replacement', replaces: id } }, { workspace: ws });
      expect(res.data).toEqual({ capture: null });
      expect(res.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      // The answer names the id, but does not grow with whatever a client sends as one.
      expect(JSON.stringify(res.errors).length).toBeLessThan(2_000);
    }
    expect(await dumpWorkspace(srv.dbPath(ws))).toEqual(before);
  });
});
