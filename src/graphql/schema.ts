import type { GraphQLSchema } from 'graphql';
import { builder } from './builder.ts';
// Each type module registers its types and fields with the builder.
import './types/scalars.ts';
import './types/enums.ts';
import './types/node.ts';
import './types/entry.ts';
import './types/entry-mutations.ts';
import './types/edge.ts';
import './types/connection.ts';
import './types/graph.ts';
import './types/stats.ts';
import './types/recall.ts';
import './types/events.ts';
import './types/maintenance.ts';
import './types/entry-page.ts';
import './types/llm.ts';

let schema: GraphQLSchema | null = null;

/** The Mini-Sphere GraphQL schema, built once. */
export function buildSchema(): GraphQLSchema {
  schema ??= builder.toSchema({ sortSchema: false });
  return schema;
}
