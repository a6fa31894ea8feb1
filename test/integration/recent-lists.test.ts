import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * `recent` with entry text reads its rows a few a statement once it asks for more than 25:
 * the same entries, in the same order, as a read without text, with or without a tag.
 */

let t: TestServer;
const ws = freshWorkspace('recent-lists');
const ENTRIES = 80;

beforeAll(async () => {
  t = await startTestServer();
  for (let i = 0; i < ENTRIES; i++) {
    const tags = i % 2 === 0 ? ['even'] : ['odd'];
    const { capture } = await t.gqlOk(
      CAPTURE,
      { input: { content: `note ${i} `.repeat(40), tags } },
      { workspace: ws },
    );
    expect(capture.outcome).toBe('STORED');
  }
});
afterAll(async () => {
  await t?.stop();
});

type Listed = { id: string; content: string; tags: string[] }[];

describe('recent with entry text', () => {
  it('lists the same entries in the same order as without it, newest first', async () => {
    for (const n of [5, 25, 26, 60, 200]) {
      const { recent: ids } = await t.gqlOk(`{ recent(n: ${n}) { id } }`, {}, { workspace: ws });
      const { recent: whole } = await t.gqlOk(`{ recent(n: ${n}) { id content tags } }`, {}, { workspace: ws });
      expect(whole.map((e: { id: string }) => e.id)).toEqual(ids.map((e: { id: string }) => e.id));
      expect(whole).toHaveLength(Math.min(n, ENTRIES));
      // Newest first: the last captured leads, and each content is its own entry's.
      expect((whole as Listed)[0]!.content.startsWith(`note ${ENTRIES - 1} `)).toBe(true);
      (whole as Listed).forEach((e, i) => {
        expect(e.content.startsWith(`note ${ENTRIES - 1 - i} `)).toBe(true);
        expect(e.tags).toEqual([(ENTRIES - 1 - i) % 2 === 0 ? 'even' : 'odd']);
      });
    }
  });

  it('keeps to a tag, in order', async () => {
    const { recent } = await t.gqlOk('{ recent(n: 30, tag: "even") { id content } }', {}, { workspace: ws });
    expect(recent).toHaveLength(30);
    (recent as Listed).forEach((e, i) => {
      expect(e.content.startsWith(`note ${ENTRIES - 2 - 2 * i} `)).toBe(true);
    });
  });
});
