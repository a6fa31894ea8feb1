import {
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  getOperationAST,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { DomainError } from '../contract/errors.ts';
import { assertCan } from '../workspaces/access.ts';
import type { Context } from './context.ts';
import { maskError } from './errors.ts';
import { type MutationFieldExtensions, spendsWriteQuota } from './guards.ts';

/**
 * The root fields a mutation operation will execute, by response key (aliases apart, fields
 * sharing a key merged, fragments and inline fragments followed, @skip/@include applied),
 * in execution order.
 */
function rootFields(
  operation: OperationDefinitionNode,
  document: DocumentNode,
  variables: Record<string, unknown>,
): Map<string, FieldNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  const out = new Map<string, FieldNode>();
  const included = (node: Parameters<typeof getDirectiveValues>[1]) =>
    getDirectiveValues(GraphQLSkipDirective, node, variables)?.if !== true &&
    getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
  const visited = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const sel of set.selections) {
      if (!included(sel)) continue;
      if (sel.kind === Kind.FIELD) {
        const key = sel.alias?.value ?? sel.name.value;
        if (!out.has(key)) out.set(key, sel);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        walk(sel.selectionSet);
      } else if (!visited.has(sel.name.value)) {
        visited.add(sel.name.value);
        const fragment = fragments.get(sel.name.value);
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return out;
}

function refused(errors: GraphQLError[]): ExecutionResult {
  return { data: null, errors };
}

/**
 * A mutation document is refused whole for anything this guard can know in advance. Mutation
 * fields run one after another and each payload is nullable, so a field that fails on the
 * database's state answers null with its own error while the others still run; what can be
 * checked without the database should not get that far. So before any field runs, every
 * root field's arguments are checked (role and input, as its resolver will) and the
 * document's writes, one per root field, are taken from the workspace's rate limit at once.
 * Any failure refuses the document whole, with the failing fields' errors at their paths,
 * before a single write. Writes reserved but not made go back to the bucket when the
 * document ends.
 */
export function useMutationGuard(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      const mutation = args.schema.getMutationType();
      if (operation?.operation !== 'mutation' || !mutation) return;
      const coerced = getVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {});
      // Bad variables are reported by execution itself, which then runs nothing.
      if (coerced.errors) return;
      const ctx = args.contextValue as unknown as Context;
      const fieldDefs = mutation.getFields();
      const errors: GraphQLError[] = [];
      let writes = 0;
      for (const [key, node] of rootFields(operation, args.document, coerced.coerced)) {
        const def = fieldDefs[node.name.value];
        if (!def) continue;
        const ext = def.extensions as MutationFieldExtensions;
        const capability = ext.capability ?? 'write';
        if (spendsWriteQuota(capability)) writes++;
        try {
          assertCan(ctx.access, capability);
          ext.checkInput?.(getArgumentValues(def, node, coerced.coerced));
        } catch (error) {
          const located = new GraphQLError(error instanceof Error ? error.message : String(error), {
            nodes: [node],
            path: [key],
            originalError: error instanceof Error ? error : undefined,
          });
          errors.push(maskError(located, 'Unexpected error.') as GraphQLError);
        }
      }
      if (errors.length > 0) {
        setResultAndStopExecution(refused(errors));
        return;
      }
      if (writes === 0) return;
      if (!ctx.writeQuota.reserve(writes)) {
        const limited = new DomainError(
          'RATE_LIMITED',
          `this document makes ${writes} writes, more than this workspace may make now; nothing was written`,
        );
        setResultAndStopExecution(refused([maskError(limited, limited.message) as GraphQLError]));
        return;
      }
      return { onExecuteDone: () => ctx.writeQuota.release() };
    },
  };
}
