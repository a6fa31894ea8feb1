import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureId } from '../helpers/operations.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { collect, wsClient } from '../helpers/ws.ts';

/**
 * A live subscription reads where the log ends as it starts, on a reader thread, after it is
 * already listening. An event committed in between reached it before that read answered, and
 * the read then counted it as already there: the subscriber never got it.
 */

const ws = { workspace: 'starting' };
let t: TestServer;

beforeAll(async () => {
  // One reader thread, so that a slow read holds the subscription's first read back.
  t = await startTestServer({ config: { readerThreads: 1 } });
  await captureId(t, { content: 'before anyone listens' }, ws);
});
afterAll(() => t?.stop());

describe('a live subscription as it starts', () => {
  it('gets an event committed while it reads where the log ends', async () => {
    const { client: database } = await t.server.registry.get(ws.workspace);
    // About a second of work on the only reader thread: the subscription's read waits behind it.
    const slow = database.execute(
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4000000) SELECT count(*) AS n FROM c',
    );
    const listening = t.server.bus.listeners;
    const client = wsClient(t.wsUrl, ws);
    try {
      const events = collect(client, 'subscription { events { seq type entryId } }', {}, (d) => d.events);
      while (t.server.bus.listeners === listening) await new Promise((r) => setTimeout(r, 2));
      // Listening, and its read of the log's end not answered yet: this capture commits meanwhile.
      const id = await captureId(t, { content: 'while it starts' }, ws);
      expect(Number((await slow).rows[0]?.n)).toBe(4_000_000);
      await events.until((xs) => xs.length > 0, 20_000);
      expect(events.items[0]).toMatchObject({ type: 'CAPTURED', entryId: id });
    } finally {
      await client.dispose();
    }
  });
});
