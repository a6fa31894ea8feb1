import { getOperationAST, type OperationDefinitionNode, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { replays } from '../../src/server/ws.ts';

function operation(query: string): OperationDefinitionNode {
  const op = getOperationAST(parse(query));
  if (!op) throw new Error(`no single operation in ${query}`);
  return op;
}

const replaysFor = (query: string, variables: Record<string, unknown> = {}) => replays(operation(query), variables);

describe('replays', () => {
  it('holds for a sinceSeq literal, zero included', () => {
    expect(replaysFor('subscription { events(sinceSeq: 5) { seq } }')).toBe(true);
    expect(replaysFor('subscription { events(sinceSeq: 0) { seq } }')).toBe(true);
  });

  it('does not hold for a sinceSeq of null, or none at all', () => {
    expect(replaysFor('subscription { events(sinceSeq: null) { seq } }')).toBe(false);
    expect(replaysFor('subscription { events { seq } }')).toBe(false);
    expect(replaysFor('subscription { events(types: [CAPTURED]) { seq } }')).toBe(false);
    expect(replaysFor('subscription { captured(tag: "sinceSeq") { seq } }')).toBe(false);
  });

  it('follows a variable: given replays, absent or null does not', () => {
    const query = 'subscription ($s: Int) { events(sinceSeq: $s) { seq } }';
    expect(replaysFor(query, { s: 3 })).toBe(true);
    expect(replaysFor(query, { s: 0 })).toBe(true);
    expect(replaysFor(query, {})).toBe(false);
    expect(replaysFor(query, { s: null })).toBe(false);
    expect(replaysFor(query, { other: 3 })).toBe(false);
  });

  it('finds sinceSeq wherever it sits in the operation', () => {
    expect(replaysFor('subscription { a: events { seq } b: events(sinceSeq: 1) { seq } }')).toBe(true);
    expect(
      replaysFor('subscription { events { entry { id } } ... on Subscription { events(sinceSeq: 2) { seq } } }'),
    ).toBe(true);
    expect(replaysFor('subscription { live: events { seq } events(sinceSeq: null) { seq } }')).toBe(false);
    // A nested field taking the argument counts as well: the walk does not stop at the root.
    expect(replaysFor('subscription { events { entry { related(sinceSeq: 4) { id } } } }')).toBe(true);
  });
});
