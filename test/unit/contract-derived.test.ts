import { readFileSync } from 'node:fs';
import { type GraphQLEnumType, isEnumType } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  CAPTURE_OUTCOMES,
  CLAIM_TAGS,
  DIRECTIONS,
  EDGE_TYPES,
  ENTRY_KINDS,
  ENTRY_STATUSES,
  EVENT_TYPES,
  FRESHNESS,
  PROVENANCES,
  REVISION_OPS,
  VOLATILITIES,
} from '../../src/contract/enums.ts';
import { GRAPH_WALK } from '../../src/contract/policy.ts';
import { buildSchema } from '../../src/graphql/schema.ts';
import { STORED_FANOUT } from '../../src/retrieval/graph.ts';

/** Things written twice, once where they cannot import the contract: each copy must agree with it. */
describe('values derived from the contract', () => {
  it("the stored neighbour lists (drizzle/0002) keep as many edges as the walk's fanout", () => {
    const migration = readFileSync(new URL('../../drizzle/0002_neighbours.sql', import.meta.url), 'utf8');
    const limits = [...migration.matchAll(/\bLIMIT\s+(\d+)/gi)].map((m) => Number(m[1]));
    expect(limits.length).toBeGreaterThan(0);
    for (const limit of limits) expect(limit).toBe(GRAPH_WALK.fanout);
    expect(STORED_FANOUT).toBe(GRAPH_WALK.fanout);
  });

  it("each GraphQL enum holds exactly the contract's values, in the contract's order", () => {
    const schema = buildSchema();
    const contract: Record<string, readonly string[]> = {
      EntryKind: ENTRY_KINDS,
      EntryStatus: ENTRY_STATUSES,
      Volatility: VOLATILITIES,
      ClaimTag: CLAIM_TAGS,
      EdgeType: EDGE_TYPES,
      Provenance: PROVENANCES,
      CaptureOutcome: CAPTURE_OUTCOMES,
      Freshness: FRESHNESS,
      Direction: DIRECTIONS,
      RevisionOp: REVISION_OPS,
      MemoryEventType: EVENT_TYPES,
    };
    for (const [name, values] of Object.entries(contract)) {
      const type = schema.getType(name);
      expect(isEnumType(type), name).toBe(true);
      const names = (type as GraphQLEnumType).getValues().map((v) => v.name);
      expect(names, name).toEqual([...values]);
    }
  });
});
