import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE, FORGET, LINK, UNLINK } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

const LOG = `query ($since: Int, $limit: Int) {
  eventLog(sinceSeq: $since, limit: $limit) { seq type at entryId outcome entry { id } edge { src dst type } }
}`;

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

describe('eventLog', () => {
  it('one event per committed write, seq +1 per workspace from 1; BLOCKED and failed writes emit nothing', async () => {
    const a = freshWorkspace('log');
    const b = freshWorkspace('log');
    const cap = async (ws: string, input: Record<string, unknown>) =>
      (await srv.gqlOk(CAPTURE, { input }, { workspace: ws })).capture;

    const a1 = await cap(a, { content: 'first in a', tags: ['x'] });
    const b1 = await cap(b, { content: 'first in b' });
    const a2 = await cap(a, { content: 'second in a' });
    expect((await cap(a, { content: 'FIRST in a', tags: ['X'] })).outcome).toBe('BLOCKED');
    expect((await cap(a, { content: 'first in a', tags: ['y'] })).outcome).toBe('MERGED');
    const a3 = await cap(a, { content: 'third in a', replaces: a2.entry.id });
    expect(a3.outcome).toBe('REPLACED');
    await srv.gqlOk(LINK, { input: { src: a1.entry.id, dst: a3.entry.id, type: 'CAUSED_BY' } }, { workspace: a });
    // Failed writes: unknown id, kind gate, bad input.
    await srv.gql('mutation { append(input: { id: "nope", addition: "x" }) { entry { id } } }', {}, { workspace: a });
    await srv.gql(LINK, { input: { src: a1.entry.id, dst: a3.entry.id, type: 'ABOUT_PERSON' } }, { workspace: a });
    await srv.gql('mutation { capture(input: { content: "  " }) { outcome } }', {}, { workspace: a });
    await srv.gqlOk(
      'mutation ($id: ID!) { setStatus(input: { id: $id, status: CANONICAL }) { entry { id } } }',
      { id: a1.entry.id },
      { workspace: a },
    );
    await srv.gqlOk(UNLINK, { src: a1.entry.id, dst: a3.entry.id, type: 'CAUSED_BY' }, { workspace: a });
    // Unlinking nothing is not a write.
    await srv.gqlOk(UNLINK, { src: a1.entry.id, dst: a3.entry.id, type: 'CAUSED_BY' }, { workspace: a });
    await srv.gqlOk(FORGET, { id: a3.entry.id }, { workspace: a });
    const b2 = await cap(b, { content: 'second in b' });

    const logA = (await srv.gqlOk(LOG, {}, { workspace: a })).eventLog;
    expect(logA.map((e: Record<string, unknown>) => [e.seq, e.type, e.entryId, e.outcome])).toEqual([
      [1, 'CAPTURED', a1.entry.id, 'STORED'],
      [2, 'CAPTURED', a2.entry.id, 'STORED'],
      [3, 'CAPTURED', a1.entry.id, 'MERGED'],
      [4, 'CAPTURED', a3.entry.id, 'REPLACED'],
      [5, 'LINKED', a1.entry.id, null],
      [6, 'STATUS_CHANGED', a1.entry.id, null],
      [7, 'UNLINKED', a1.entry.id, null],
      [8, 'FORGOTTEN', a3.entry.id, null],
    ]);
    expect(logA[4].edge).toEqual({ src: a1.entry.id, dst: a3.entry.id, type: 'CAUSED_BY' });
    expect(logA[6].edge).toEqual({ src: a1.entry.id, dst: a3.entry.id, type: 'CAUSED_BY' });
    expect(logA[3].entry).toBeNull();
    expect(logA[0].entry).toEqual({ id: a1.entry.id });
    for (const e of logA) expect(e.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const ats = logA.map((e: { at: string }) => e.at);
    expect([...ats].sort()).toEqual(ats);

    const logB = (await srv.gqlOk(LOG, {}, { workspace: b })).eventLog;
    expect(logB.map((e: Record<string, unknown>) => [e.seq, e.entryId])).toEqual([
      [1, b1.entry.id],
      [2, b2.entry.id],
    ]);
  });

  it('pages with sinceSeq and limit', async () => {
    const ws = freshWorkspace('log');
    for (let i = 0; i < 7; i++) await srv.gqlOk(CAPTURE, { input: { content: `entry ${i}` } }, { workspace: ws });
    const page = async (since: number, limit: number) =>
      (await srv.gqlOk(LOG, { since, limit }, { workspace: ws })).eventLog.map((e: { seq: number }) => e.seq);
    expect(await page(0, 3)).toEqual([1, 2, 3]);
    expect(await page(3, 3)).toEqual([4, 5, 6]);
    expect(await page(6, 3)).toEqual([7]);
    expect(await page(7, 3)).toEqual([]);
    expect(await page(100, 1000)).toEqual([]);
    const fresh = await srv.gqlOk(LOG, {}, { workspace: freshWorkspace('log') });
    expect(fresh.eventLog).toEqual([]);
  });
});

describe('lastEventSeq', () => {
  it('is 0 for an empty log and the newest seq after writes', async () => {
    const s = await startTestServer();
    try {
      expect((await s.gqlOk('{ lastEventSeq }', {}, { workspace: 'head' })).lastEventSeq).toBe(0);
      await s.gqlOk('mutation { capture(input: { content: "one" }) { outcome } }', {}, { workspace: 'head' });
      await s.gqlOk('mutation { capture(input: { content: "two" }) { outcome } }', {}, { workspace: 'head' });
      await s.gqlOk('mutation { capture(input: { content: "two" }) { outcome } }', {}, { workspace: 'head' });
      expect((await s.gqlOk('{ lastEventSeq }', {}, { workspace: 'head' })).lastEventSeq).toBe(2);
    } finally {
      await s.stop();
    }
  });
});
