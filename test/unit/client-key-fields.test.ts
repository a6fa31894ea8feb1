import { describe, expect, it } from 'vitest';
import { missingKeyFields, shippedDocuments, shippedSchema } from '../../client/key-fields.ts';

describe('the shipped documents and the caches keys', () => {
  const schema = shippedSchema();

  it('select the key fields of every keyed type they touch', () => {
    expect(missingKeyFields(schema, shippedDocuments())).toEqual([]);
  });

  it('finds a keyed type selected without its key, through fragments and on Node', () => {
    const documents = [
      {
        name: 'Bad.graphql',
        text: `query Bad($id: ID!) {
          entry(id: $id) { ...Fields revisions { content } connections { edge { src } entry { id } } }
          brief { text stats { entries } }
          node(id: $id) { ... on Entry { content } }
        }
        fragment Fields on Entry { content }`,
      },
    ];
    expect(missingKeyFields(schema, documents).sort()).toEqual(
      [
        'Bad.graphql: entry selects Entry without id',
        'Bad.graphql: entry.revisions selects Revision without id',
        'Bad.graphql: entry.connections.edge selects Edge without id',
        'Bad.graphql: brief selects Brief without workspace',
        'Bad.graphql: brief.stats selects Stats without workspace',
        'Bad.graphql: node selects Entry without id',
        'Bad.graphql: node selects Edge without id',
        'Bad.graphql: node selects Revision without id',
      ].sort(),
    );
  });
});
