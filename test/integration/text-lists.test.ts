import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Lists with entry text read their rows 25 a statement once they hold more (`recent`, an
 * `entries` page, the whole texts of entries loaded by id): the same entries, in the same
 * order, as a read without text, with or without a tag, each with its own text.
 */

let t: TestServer;
const ws = freshWorkspace('text-lists');
const ENTRIES = 80;
/** Longer than the 4,096 characters an entry loaded by id starts with, so its content is read apart. */
const text = (i: number) => `note ${i} `.repeat(600);

beforeAll(async () => {
  t = await startTestServer();
  for (let i = 0; i < ENTRIES; i++) {
    const tags = i % 2 === 0 ? ['even'] : ['odd'];
    const { capture } = await t.gqlOk(CAPTURE, { input: { content: text(i), tags } }, { workspace: ws });
    expect(capture.outcome).toBe('STORED');
  }
});
afterAll(async () => {
  await t?.stop();
});

type Listed = { id: string; content: string; tags: string[] }[];

describe('lists with entry text', () => {
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

  it('pages entries with their text in order, and gives entries loaded by id their whole text', async () => {
    const page = `query($first: Int!, $after: String) {
      entries(first: $first, after: $after, orderBy: { field: CREATED_AT, direction: ASC }) {
        edges { node { id content } } pageInfo { endCursor }
      }
    }`;
    const first = (await t.gqlOk(page, { first: 60 }, { workspace: ws })).entries;
    const rest = (await t.gqlOk(page, { first: 60, after: first.pageInfo.endCursor }, { workspace: ws })).entries;
    const nodes = [...first.edges, ...rest.edges].map((e: { node: { id: string; content: string } }) => e.node);
    expect(nodes).toHaveLength(ENTRIES);
    nodes.forEach((node, i) => {
      expect(node.content).toBe(text(i));
    });
    const ids = nodes.map((node) => node.id);
    const { nodes: loaded } = await t.gqlOk(
      'query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Entry { content } } }',
      { ids: [...ids].reverse() },
      { workspace: ws },
    );
    expect(loaded.map((e: { id: string }) => e.id)).toEqual([...ids].reverse());
    loaded.forEach((e: { content: string }, i: number) => {
      expect(e.content).toBe(text(ENTRIES - 1 - i));
    });
  });
});
