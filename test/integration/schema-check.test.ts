import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compareSchemas } from '../../scripts/schema-check.ts';
import { printSchemaText } from '../../src/graphql/print.ts';

const BEFORE = `
type Query {
  entry(id: ID!): Entry
}

type Entry {
  id: ID!
  title: String
  score: Float!
  status: Status!
}

enum Status {
  OPEN
  DONE
}
`;

const types = (changes: { type: string }[]) => changes.map((change) => change.type);

describe('schema:check', () => {
  it('reports a removed field as breaking', () => {
    const after = BEFORE.replace('  title: String\n', '');
    const { breaking } = compareSchemas(BEFORE, after);
    expect(types(breaking)).toEqual(['FIELD_REMOVED']);
    expect(breaking[0]?.description).toBe('Entry.title was removed.');
  });

  it('reports a changed field type as breaking', () => {
    const after = BEFORE.replace('title: String', 'title: [String]');
    const { breaking } = compareSchemas(BEFORE, after);
    expect(types(breaking)).toEqual(['FIELD_CHANGED_KIND']);
    expect(breaking[0]?.description).toBe('Entry.title changed type from String to [String].');
  });

  it('reports a type that changed kind as breaking', () => {
    const after = BEFORE.replace(/enum Status \{[^}]*\}/, 'scalar Status');
    const { breaking } = compareSchemas(BEFORE, after);
    expect(types(breaking)).toEqual(['TYPE_CHANGED_KIND']);
    expect(breaking[0]?.description).toBe('Status changed from an Enum type to a Scalar type.');
  });

  it('reports a removed enum value as breaking and an added one as dangerous', () => {
    const removed = compareSchemas(BEFORE, BEFORE.replace('  DONE\n', ''));
    expect(types(removed.breaking)).toEqual(['VALUE_REMOVED_FROM_ENUM']);
    const added = compareSchemas(BEFORE, BEFORE.replace('  DONE\n', '  DONE\n  STALE\n'));
    expect(added.breaking).toEqual([]);
    expect(types(added.dangerous)).toEqual(['VALUE_ADDED_TO_ENUM']);
  });

  it('reports a new required argument as breaking and a new optional one as dangerous', () => {
    const required = compareSchemas(BEFORE, BEFORE.replace('entry(id: ID!)', 'entry(id: ID!, at: Int!)'));
    expect(types(required.breaking)).toEqual(['REQUIRED_ARG_ADDED']);
    const optional = compareSchemas(BEFORE, BEFORE.replace('entry(id: ID!)', 'entry(id: ID!, at: Int)'));
    expect(optional.breaking).toEqual([]);
    expect(types(optional.dangerous)).toEqual(['OPTIONAL_ARG_ADDED']);
  });

  it('does not report an added optional field', () => {
    const after = BEFORE.replace('  score: Float!\n', '  score: Float!\n  summary: String\n');
    expect(after).not.toBe(BEFORE);
    expect(compareSchemas(BEFORE, after)).toEqual({ breaking: [], dangerous: [] });
  });

  it('finds nothing between the committed schema.graphql and the schema the code builds', () => {
    const committed = readFileSync(fileURLToPath(new URL('../../schema.graphql', import.meta.url)), 'utf8');
    expect(compareSchemas(committed, printSchemaText()).breaking).toEqual([]);
  });
});
