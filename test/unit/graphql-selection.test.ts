import { buildSchema, graphql } from 'graphql';
import { describe, expect, it } from 'vitest';
import { columnsFor, selectedFields } from '../../src/graphql/selection.ts';

const schema = buildSchema(`
  type Entry { id: ID! kind: String! content: String! }
  type Node { hop: Int! entry: Entry! }
  type View { nodes: [Node!]! truncated: Boolean! }
  type Query { view: View! }
`);

/** How many times the last entryFields looked a fragment up. */
let fragmentLookups = 0;

/** What `selectedFields(info, ['nodes', 'entry'])` says in the view's resolver for an operation. */
async function entryFields(source: string): Promise<string[] | null> {
  let seen: Set<string> | null | undefined;
  const rootValue = {
    view: (_args: unknown, _ctx: unknown, info: Parameters<typeof selectedFields>[0]) => {
      fragmentLookups = 0;
      const fragments = new Proxy(info.fragments, {
        get(target, name, receiver) {
          fragmentLookups++;
          return Reflect.get(target, name, receiver);
        },
      });
      seen = selectedFields({ ...info, fragments }, ['nodes', 'entry']);
      return { nodes: [], truncated: false };
    },
  };
  const result = await graphql({ schema, source, rootValue });
  expect(result.errors).toBeUndefined();
  return seen === null ? null : [...seen!].sort();
}

describe('selectedFields', () => {
  it('finds the fields below the resolved one, directly, aliased and through fragments', async () => {
    expect(await entryFields('{ view { nodes { entry { id } } } }')).toEqual(['id']);
    expect(await entryFields('{ view { n: nodes { e: entry { i: id k: kind } } } }')).toEqual(['id', 'kind']);
    expect(
      await entryFields('{ view { ... on View { nodes { ...N } } } } fragment N on Node { entry { id __typename } }'),
    ).toEqual(['__typename', 'id']);
    expect(
      await entryFields(
        '{ view { ...V } } fragment V on View { nodes { ... { entry { ...E } } } } fragment E on Entry { content }',
      ),
    ).toEqual(['content']);
  });

  it('merges every selection of the path, as execution does', async () => {
    expect(await entryFields('{ view { nodes { entry { id } } nodes { entry { kind } } } }')).toEqual(['id', 'kind']);
    expect(await entryFields('{ view { nodes { entry { id } } } view { nodes { entry { content } } } }')).toEqual([
      'content',
      'id',
    ]);
  });

  it('walks each fragment once, however many spreads lead to it', async () => {
    // 2^20 paths to the last fragment of each chain, which execution collects once.
    const chain = Array.from({ length: 20 }, (_, i) => `fragment E${i} on Entry { ...E${i + 1} ...E${i + 1} }`);
    const spreads = `${chain.join(' ')} fragment E20 on Entry { kind }`;
    expect(await entryFields(`{ view { nodes { entry { id ...E0 } } } } ${spreads}`)).toEqual(['id', 'kind']);
    expect(fragmentLookups).toBeLessThan(100);
    const views = Array.from({ length: 20 }, (_, i) => `fragment V${i} on View { ...V${i + 1} ...V${i + 1} }`);
    const outer = `${views.join(' ')} fragment V20 on View { nodes { entry { content } } }`;
    expect(await entryFields(`{ view { ...V0 } } ${outer}`)).toEqual(['content']);
    expect(fragmentLookups).toBeLessThan(100);
  });

  it('says null when the path is not asked for', async () => {
    expect(await entryFields('{ view { truncated } }')).toBeNull();
    expect(await entryFields('{ view { nodes { hop } } }')).toBeNull();
    expect(await entryFields('{ view { ...V } } fragment V on View { nodes { hop } }')).toBeNull();
  });
});

describe('columnsFor', () => {
  const map = { id: ['id'], kind: ['kind'], freshness: ['id', 'status', 'updatedAt'] } as const;
  it('unites the columns of the selected fields; __typename reads none', () => {
    expect(columnsFor(map, new Set(['id', 'freshness', '__typename']))?.sort()).toEqual(['id', 'status', 'updatedAt']);
    expect(columnsFor(map, new Set(['__typename']))).toEqual([]);
  });
  it('asks for whole rows when a field is not in the map, including names of Object.prototype', () => {
    expect(columnsFor(map, new Set(['id', 'content']))).toBeNull();
    expect(columnsFor(map, new Set(['toString']))).toBeNull();
  });
});
