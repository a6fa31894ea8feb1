import { buildSchema, graphql } from 'graphql';
import { describe, expect, it } from 'vitest';
import { selects } from '../../src/graphql/selection.ts';

const schema = buildSchema(`
  type Entry { id: ID! }
  type Node { hop: Int! entry: Entry! }
  type View { nodes: [Node!]! truncated: Boolean! }
  type Query { view: View! }
`);

/** What `selects(info, ['nodes', 'entry'])` says in the view's resolver for an operation. */
async function asksForEntries(source: string): Promise<boolean> {
  let seen: boolean | undefined;
  const rootValue = {
    view: (_args: unknown, _ctx: unknown, info: Parameters<typeof selects>[0]) => {
      seen = selects(info, ['nodes', 'entry']);
      return { nodes: [], truncated: false };
    },
  };
  const result = await graphql({ schema, source, rootValue });
  expect(result.errors).toBeUndefined();
  return seen!;
}

describe('selects', () => {
  it('finds a field below the resolved one, directly, aliased and through fragments', async () => {
    expect(await asksForEntries('{ view { nodes { entry { id } } } }')).toBe(true);
    expect(await asksForEntries('{ view { n: nodes { e: entry { id } } } }')).toBe(true);
    expect(
      await asksForEntries('{ view { ... on View { nodes { ...N } } } } fragment N on Node { entry { id } }'),
    ).toBe(true);
    expect(await asksForEntries('{ view { ...V } } fragment V on View { nodes { ... { entry { id } } } }')).toBe(true);
  });

  it('says no when the path is not asked for', async () => {
    expect(await asksForEntries('{ view { truncated } }')).toBe(false);
    expect(await asksForEntries('{ view { nodes { hop } } }')).toBe(false);
    expect(await asksForEntries('{ view { ...V } } fragment V on View { nodes { hop } }')).toBe(false);
  });
});
