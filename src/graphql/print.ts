import { lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchema } from './schema.ts';

/** The schema as committed in schema.graphql: sorted, so diffs stay readable. */
export function printSchemaText(): string {
  return `${printSchema(lexicographicSortSchema(buildSchema()))}\n`;
}
