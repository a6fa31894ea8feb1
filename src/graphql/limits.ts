import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import {
  type ExecutionArgs,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isInputObjectType,
  Kind,
  NoSchemaIntrospectionCustomRule,
  type OperationDefinitionNode,
  type SelectionSetNode,
  typeFromAST,
  type ValidationContext,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LIMITS, LIST_PAGES } from '../contract/limits.ts';
import { NODE_IDS_MAX } from '../contract/node-ids.ts';
import { GRAPH_WALK, READ_DEFAULTS } from '../contract/policy.ts';
import { RANKING_POLICY } from '../retrieval/policy.ts';

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
  /**
   * Bytes: every content counts at its maximum (100,000 characters) and every snippet at
   * its widest window, so the estimate is a ceiling that real answers rarely approach; a
   * document may be estimated at up to this many times SPHERE_MAX_RESPONSE_BYTES. What it
   * really returns is held to the cap itself while it is read (read-budget.ts).
   */
  bytesPerResponseByte: 16,
  /** Selections the estimate may visit in all, whatever the fragments: far above any document within maxTokens. */
  maxCostVisits: 100_000,
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
    // Its lists are counted where they are selected (graphViewList): nodes at the node cap.
    case 'graphView':
      return 1;
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

/**
 * The lists of a graph view: at most `nodeCap` nodes in all, however many hops; its edges
 * counted as the walk could reach them (nodeCap per hop).
 */
function graphViewList(field: FieldNode, hops: number): number {
  if (field.name.value === 'nodes') return GRAPH_WALK.nodeCap;
  if (field.name.value === 'edges') return GRAPH_WALK.nodeCap * (1 + hops);
  return 1;
}

function hopsOf(field: FieldNode, variables: Record<string, unknown>): number {
  const node = field.arguments?.find((a) => a.name.value === 'hops')?.value;
  const value = node ? literalValue(node, variables) : undefined;
  return typeof value === 'number' && Number.isFinite(value) ? Math.abs(value) : READ_DEFAULTS.graphView.hops;
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

/** What a document is estimated to cost: fields resolved, and bytes of entry text returned. */
export interface Estimate {
  cost: number;
  bytes: number;
  /** Whether the operation selects `content` anywhere (else the contents it reads are not answered). */
  content?: boolean;
}

/**
 * The text fields a document's bytes are estimated by, at the most each can return: an
 * entry's or a revision's content at its maximum length, and a recall hit's snippet at the
 * snippet policy's largest window (the whole content with `full`). Every other field counts
 * `FIELD_BYTES`.
 */
const CONTENT_FIELDS = new Set(['content', 'snippet']);
const FIELD_BYTES = 16;
const snippetBytes = (full: boolean) => (full ? LIMITS.contentMax : RANKING_POLICY.snippet.topChars);

/**
 * Estimates each operation of a document (fields times the list sizes above them, and bytes
 * of entry text) in one walk that is linear in the document: the cost of a fragment scales
 * with the multiplier it is spread under, so each fragment is walked once and its totals
 * remembered (cycles count nothing: they are a validation error of their own), and the whole
 * walk shares one budget of `maxVisits` selections.
 */
export function estimateOperation(
  op: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  memo: Map<string, Estimate | 'walking'>,
  visits: { left: number },
): Estimate | null {
  // `inView`: the hops of the graph view whose selection this is, or null outside one.
  const walk = (set: SelectionSetNode | undefined, full: boolean, inView: number | null = null): Estimate | null => {
    const total: Estimate = { cost: 0, bytes: 0 };
    if (!set) return total;
    // A text field selected twice under one name is answered once.
    const texts = new Set<string>();
    for (const sel of set.selections) {
      if (--visits.left < 0) return null;
      let part: Estimate | null;
      if (sel.kind === Kind.FIELD) {
        const name = sel.name.value;
        const factor = inView === null ? listFactor(sel, variables) : graphViewList(sel, inView);
        const fullBelow = name === 'recall' ? booleanArg(sel, 'full', variables) : full;
        const below = walk(sel.selectionSet, fullBelow, name === 'graphView' ? hopsOf(sel, variables) : null);
        if (!below) return null;
        const key = sel.alias?.value ?? name;
        const text = CONTENT_FIELDS.has(name) && !texts.has(key);
        texts.add(key);
        const own = !text ? FIELD_BYTES : name === 'snippet' ? snippetBytes(full) : LIMITS.contentMax;
        part = {
          cost: 1 + factor * below.cost,
          bytes: own + factor * below.bytes,
          content: name === 'content' || below.content === true,
        };
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        part = walk(sel.selectionSet, full, inView);
      } else {
        part = spread(sel.name.value, full, inView);
      }
      if (!part) return null;
      total.cost += part.cost;
      total.bytes += part.bytes;
      total.content ||= part.content;
    }
    return total;
  };
  const spread = (name: string, full: boolean, inView: number | null): Estimate | null => {
    const key = `${full ? 'full' : 'windowed'} ${inView ?? '-'} ${name}`;
    const known = memo.get(key);
    if (known === 'walking') return { cost: 0, bytes: 0 };
    if (known) return known;
    memo.set(key, 'walking');
    const estimate = walk(fragments.get(name)?.selectionSet, full, inView);
    if (estimate) memo.set(key, estimate);
    return estimate;
  };
  return walk(op.selectionSet, false);
}

function booleanArg(field: FieldNode, name: string, variables: Record<string, unknown>): boolean {
  const node = field.arguments?.find((a) => a.name.value === name)?.value;
  if (node?.kind === Kind.BOOLEAN) return node.value;
  return node?.kind === Kind.VARIABLE && variables[node.name.value] === true;
}

/** What the cost limit is held to, and who hears an accepted operation's estimate. */
export interface CostLimits {
  maxCost: number;
  /** Most bytes of entry text a document may be estimated to return. */
  maxBytes: number;
  /** Hears each operation's estimate once it is accepted, with its context. */
  onEstimate?: (contextValue: unknown, estimate: Estimate) => void;
}

/**
 * The variables an estimate can read: the estimate reads arguments (n, first, topK, hops,
 * full, ids), never the fields of an input object, so a variable of an input object type
 * (a capture's `$input`, with its content) is left for execution to coerce, once. Kept per
 * operation node, which the parsed-document cache reuses.
 */
const estimatedVariables = new WeakMap<OperationDefinitionNode, readonly VariableDefinitionNode[]>();

function variablesToEstimate(
  schema: ExecutionArgs['schema'],
  op: OperationDefinitionNode,
): readonly VariableDefinitionNode[] {
  let defs = estimatedVariables.get(op);
  if (!defs) {
    defs = (op.variableDefinitions ?? []).filter((d) => {
      const type = typeFromAST(schema, d.type as Parameters<typeof typeFromAST>[1]);
      return !type || !isInputObjectType(getNamedType(type));
    });
    estimatedVariables.set(op, defs);
  }
  return defs;
}

/**
 * The refusal of an operation by its estimate, or null when it may run. `variables` are the
 * ones sent; those the estimate reads are read as execution will coerce them (defaults
 * included), and when they do not coerce, execution refuses them itself before anything runs.
 */
export function refuseByEstimate(
  args: Pick<ExecutionArgs, 'schema' | 'document' | 'operationName' | 'variableValues'>,
  limits: CostLimits,
): { error: GraphQLError | null; estimate: Estimate | null } {
  const op = getOperationAST(args.document, args.operationName);
  if (!op) return { error: null, estimate: null };
  const defs = variablesToEstimate(args.schema, op);
  const coerced =
    defs.length === 0
      ? { coerced: {} }
      : getVariableValues(args.schema, defs, args.variableValues ?? {}, {
          maxErrors: 1,
        });
  if (coerced.errors) return { error: null, estimate: null };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of args.document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  const visits = { left: DOCUMENT_LIMITS.maxCostVisits };
  const estimate = estimateOperation(op, fragments, coerced.coerced, new Map(), visits);
  // As validation errors are: 400 for application/graphql-response+json, 200 for application/json.
  const refuse = (message: string, code: string) =>
    new GraphQLError(message, { nodes: [op], extensions: { code, http: { spec: true, status: 400 } } });
  if (!estimate) {
    const error = refuse(
      'the document is too large to estimate: send fewer fields and fragments',
      'GRAPHQL_VALIDATION_FAILED',
    );
    return { error, estimate };
  }
  if (estimate.cost > limits.maxCost) {
    const error = refuse(
      `Query cost limit of ${limits.maxCost} exceeded (estimated ${Math.round(estimate.cost)}): ` +
        'ask for fewer items (n, first, topK, limit) or nest fewer lists.',
      'GRAPHQL_VALIDATION_FAILED',
    );
    return { error, estimate };
  }
  if (estimate.bytes > limits.maxBytes) {
    const error = refuse(
      `the answer could hold ${Math.round(estimate.bytes)} bytes of entry text, more than ${limits.maxBytes}: ` +
        'ask for fewer items (n, first, topK, limit) or leave out content and snippets',
      'RESPONSE_TOO_LARGE',
    );
    return { error, estimate };
  }
  return { error: null, estimate };
}

/**
 * Refuses operations whose estimated cost, scaled by topK, hops, n, limit and first, is too
 * high (GRAPHQL_VALIDATION_FAILED), or whose estimated bytes of entry text are
 * (RESPONSE_TOO_LARGE): the same sizes refused inline, as sent variables or as defaults.
 * It runs as each operation starts, not as a validation rule, because validation results
 * are cached per document while the estimate depends on the variables.
 */
export function useCostLimit(limits: CostLimits): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const { error, estimate } = refuseByEstimate(args, limits);
      if (error) setResultAndStopExecution({ errors: [error] });
      else if (estimate) limits.onEstimate?.(args.contextValue, estimate);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const { error, estimate } = refuseByEstimate(args, limits);
      if (error) setResultAndStopExecution({ errors: [error] });
      else if (estimate) limits.onEstimate?.(args.contextValue, estimate);
    },
  };
}

/** Depth, alias, token, directive and cost limits, no field suggestions, and optional introspection. */
export function documentLimitPlugins(opts: {
  introspection: () => boolean;
  maxResponseBytes: number;
  /** Hears each accepted operation's estimate, with its context. */
  onEstimate?: CostLimits['onEstimate'];
}): Plugin[] {
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
    // Our own cost limit scales with topK/hops/n/limit and the variables; armor's cannot.
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: true },
  });
  const introspection: Plugin = {
    onValidate({ addValidationRule }) {
      if (!opts.introspection()) addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
  const cost = useCostLimit({
    maxCost: DOCUMENT_LIMITS.maxCost,
    maxBytes: opts.maxResponseBytes * DOCUMENT_LIMITS.bytesPerResponseByte,
    onEstimate: opts.onEstimate,
  });
  return [armor as Plugin, introspection, cost];
}
