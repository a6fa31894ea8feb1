import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import {
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  NoSchemaIntrospectionCustomRule,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LIST_PAGES } from '../contract/limits.ts';
import { NODE_IDS_MAX } from '../contract/node-ids.ts';
import { GRAPH_WALK, READ_DEFAULTS } from '../contract/policy.ts';

/**
 * Where the document limits sit: a document of depth ≤ 8, ≤ 15 aliases, ≤ 2,000 tokens and
 * ≤ 100 fields per selection set, with arguments in range, is never rejected; one of depth
 * ≥ 20, ≥ 100 aliases or ≥ 10,000 tokens always is.
 */
export const DOCUMENT_LIMITS = {
  maxDepth: 15,
  maxAliases: 30,
  maxTokens: 5_000,
  maxDirectives: 50,
  /**
   * Cost: each field costs 1 times the list sizes above it, each list counted at the size
   * its arguments allow (`first` at its default when absent). ~1,000 fields under one
   * eventLog(limit: 1000) stay under 1,000,000; a topK or limit of 1e9 does not, nor do
   * connections nested two deep at their default of 50 under recent(n: 200).
   */
  maxCost: 1_000_000,
} as const;

/** How many items a field can return, from its arguments (1 when it has no size argument). */
function listFactor(field: FieldNode, variables: Record<string, unknown>): number {
  const arg = (name: string, fallback: number): number => {
    const node = field.arguments?.find((a) => a.name.value === name)?.value;
    const value = node ? literalValue(node, variables) : undefined;
    return typeof value === 'number' && Number.isFinite(value) ? Math.max(1, Math.abs(value)) : fallback;
  };
  switch (field.name.value) {
    case 'recall':
      return arg('topK', READ_DEFAULTS.recall.topK) * (1 + arg('hops', READ_DEFAULTS.recall.hops));
    case 'recent':
      return arg('n', READ_DEFAULTS.recent.n);
    case 'eventLog':
      return arg('limit', READ_DEFAULTS.eventLog.limit);
    case 'entries':
      return Math.min(
        field.arguments?.some((a) => a.name.value === 'last')
          ? arg('last', LIST_PAGES.entries.first)
          : arg('first', LIST_PAGES.entries.first),
        LIST_PAGES.entries.range[1],
      );
    case 'graphView':
      return GRAPH_WALK.nodeCap * (1 + arg('hops', READ_DEFAULTS.graphView.hops));
    // Past NODE_IDS_MAX its resolver refuses with BAD_USER_INPUT; below, each id is one object.
    case 'nodes':
      return Math.min(listLength(field, 'ids', variables), NODE_IDS_MAX);
    // Past their maximum these are refused by their resolvers with BAD_USER_INPUT, which
    // says more than a cost figure would.
    case 'revisions':
    case 'connections':
    // Entry.tags (≤ 32 strings) has no selection set, so only the root list's size matters.
    case 'tags': {
      const page = LIST_PAGES[field.name.value as keyof typeof LIST_PAGES];
      return Math.min(arg('first', page.first), page.range[1]);
    }
    default:
      return 1;
  }
}

/** How many values a list argument holds, literal or variable (1 when unknown). */
function listLength(field: FieldNode, name: string, variables: Record<string, unknown>): number {
  const node = field.arguments?.find((a) => a.name.value === name)?.value;
  if (node?.kind === Kind.LIST) return Math.max(1, node.values.length);
  const value = node?.kind === Kind.VARIABLE ? variables[node.name.value] : undefined;
  return Array.isArray(value) ? Math.max(1, value.length) : 1;
}

function literalValue(node: ValueNode, variables: Record<string, unknown>): unknown {
  if (node.kind === Kind.INT || node.kind === Kind.FLOAT) return Number(node.value);
  if (node.kind === Kind.VARIABLE) return variables[node.name.value];
  return undefined;
}

/** Rejects documents whose estimated cost, scaled by topK, hops, n, limit and first, is too high. */
export function costLimitRule(maxCost: number, variables: () => Record<string, unknown>): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const def of context.getDocument().definitions) {
      if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    }
    const cost = (set: SelectionSetNode | undefined, multiplier: number, seen: ReadonlySet<string>): number => {
      if (!set) return 0;
      let total = 0;
      for (const sel of set.selections) {
        if (total > maxCost) return total;
        if (sel.kind === Kind.FIELD) {
          const m = multiplier * listFactor(sel, variables());
          total += multiplier + cost(sel.selectionSet, m, seen);
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          total += cost(sel.selectionSet, multiplier, seen);
        } else {
          const name = sel.name.value;
          // Fragment cycles are a validation error of their own; never loop on them here.
          if (seen.has(name)) continue;
          total += cost(fragments.get(name)?.selectionSet, multiplier, new Set([...seen, name]));
        }
      }
      return total;
    };
    return {
      OperationDefinition(op) {
        const total = cost(op.selectionSet, 1, new Set());
        if (total > maxCost) {
          context.reportError(
            new GraphQLError(
              `Query cost limit of ${maxCost} exceeded (estimated ${Math.round(total)}): ` +
                'ask for fewer items (n, first, topK, limit) or nest fewer lists.',
              {
                nodes: [op],
                extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
              },
            ),
          );
        }
      },
    };
  };
}

/** Depth, alias, token, directive and cost limits, no field suggestions, and optional introspection. */
export function documentLimitPlugins(opts: { introspection: () => boolean }): Plugin[] {
  // Validation-phase rejections are reported as validation errors with their code rather
  // than thrown, so a client sees GRAPHQL_VALIDATION_FAILED over HTTP and WebSocket alike.
  const report = {
    propagateOnRejection: false,
    onReject: [
      (ctx: ValidationContext | null, error: GraphQLError) =>
        ctx?.reportError(
          new GraphQLError(error.message.replace(/^Syntax Error: /, ''), {
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          }),
        ),
    ],
  };
  const armor = EnvelopArmorPlugin({
    maxDepth: { n: DOCUMENT_LIMITS.maxDepth, ignoreIntrospection: true, ...report },
    maxAliases: { n: DOCUMENT_LIMITS.maxAliases, allowList: [], ...report },
    maxTokens: { n: DOCUMENT_LIMITS.maxTokens },
    maxDirectives: { n: DOCUMENT_LIMITS.maxDirectives, ...report },
    // Our own cost rule scales with topK/hops/n/limit; armor's cannot.
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: true },
  });
  const limits: Plugin = {
    onValidate({ addValidationRule, context }) {
      // Yoga (HTTP) and our graphql-ws glue both put the request's params in the initial context.
      const variables = () =>
        (context as { params?: { variables?: Record<string, unknown> | null } }).params?.variables ?? {};
      addValidationRule(costLimitRule(DOCUMENT_LIMITS.maxCost, variables));
      if (!opts.introspection()) addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
  return [armor as Plugin, limits];
}
