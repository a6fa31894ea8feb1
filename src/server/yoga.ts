import { GraphQLError } from 'graphql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Config } from '../config.ts';
import { DomainError } from '../contract/errors.ts';
import type { Context } from '../graphql/context.ts';
import { maskError, storageFailure, toGraphQLError, useErrorCodes } from '../graphql/errors.ts';
import { documentLimitPlugins, type Estimate } from '../graphql/limits.ts';
import { useMutationGuard } from '../graphql/mutation-guard.ts';
import { withReadBudget } from '../graphql/read-budget.ts';
import { useResponseCap } from '../graphql/response-size.ts';
import { buildSchema } from '../graphql/schema.ts';
import type { Cap } from './caps.ts';
import type { Gatekeeper, InitialContext } from './context.ts';
import { useCsrfPrevention } from './csrf.ts';
import { corsAllowed } from './guard.ts';
import { HeavyReads, useHeavyReadLimit } from './heavy-reads.ts';
import { countLateRefusal, type Logger, type Metrics, useObservability } from './observability.ts';
import type { Rechecks } from './rechecks.ts';
import { useCodedRefusals, useVaryOrigin } from './refusals.ts';
import { useSseSubscriptionGuards } from './subscriptions.ts';
import { type TrustedDocuments, useTrustedDocuments } from './trusted-documents.ts';

export type Yoga = YogaServerInstance<Record<string, unknown>, Context>;

export const GRAPHQL_PATH = '/graphql';
/** How often a token's open sockets and SSE streams re-check that it is still valid. */
export const TOKEN_RECHECK_MS = 1_000;

export interface YogaDeps {
  config: Pick<Config, 'corsOrigins' | 'introspection' | 'maxResponseBytes'>;
  /** With a manifest, only its operations run. */
  trusted: TrustedDocuments | null;
  gate: Gatekeeper;
  createContext: (initial: InitialContext) => Promise<Context>;
  subscriptions: Cap;
  /** Streams and sockets per client: server-sent-event streams count here as WebSockets do. */
  sockets: Cap;
  /** Shared access rechecks of long-lived streams. */
  rechecks: Rechecks;
  logger: Logger;
  metrics: Metrics;
}

/**
 * A refusal before execution (a bad x-workspace header, say) is a request error: 400 for
 * application/graphql-response+json, 200 for application/json (GraphQL over HTTP). Codes that carry their own
 * status (401, 403, 429, 503) keep it.
 */
function requestError(error: GraphQLError): GraphQLError {
  if ((error.extensions.http as { status?: number } | undefined)?.status) return error;
  return new GraphQLError(error.message, { extensions: { ...error.extensions, http: { spec: true, status: 400 } } });
}

/** The GraphQL handler every transport runs operations through: schema, context, limits, masking, CORS. */
export function createGraphQLHandler(deps: YogaDeps): Yoga {
  const { config, gate, logger } = deps;
  // Each operation's estimate, from the cost limit to the heavy-read limit after it.
  const estimates = new WeakMap<object, Estimate>();
  return createYoga<Record<string, unknown>, Context>({
    schema: withReadBudget(buildSchema()),
    graphqlEndpoint: GRAPHQL_PATH,
    context: async (initial) => {
      try {
        return await deps.createContext(initial as InitialContext);
      } catch (error) {
        throw error instanceof DomainError ? requestError(toGraphQLError(error)) : error;
      }
    },
    maskedErrors: {
      maskError: (error, message) => {
        const masked = maskError(error, message);
        const code = (masked as GraphQLError).extensions?.code;
        if (code === 'INTERNAL_SERVER_ERROR') {
          const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
          logger.error({ err: original, path: (error as GraphQLError).path }, 'unexpected error');
        } else if (code === 'UNAVAILABLE') {
          // Retryable for the client; the operator needs the cause (a dead link, a rotated token,
          // the storage error behind a generic answer).
          const storage = storageFailure(error);
          const cause = storage ? { code: storage.code, cause: storage.message } : {};
          logger.warn({ reason: masked.message, ...cause, path: (error as GraphQLError).path }, 'database unavailable');
        }
        return masked;
      },
    },
    // GraphiQL is served by the playground handler, with its own headers.
    graphiql: false,
    landingPage: false,
    healthCheckEndpoint: '/__yoga_health',
    logging: false,
    // Other web pages get no CORS headers unless SPHERE_CORS_ORIGINS lists their origin;
    // the request guard has refused every other cross-origin request before this.
    cors: (request) => {
      const origin = request.headers.get('origin');
      return corsAllowed(origin, config.corsOrigins)
        ? {
            origin: [origin as string],
            credentials: true,
            methods: ['GET', 'POST'],
            allowedHeaders: ['content-type', 'authorization', 'x-workspace', 'x-graphql-yoga-csrf'],
            maxAge: 600,
          }
        : false;
    },
    plugins: [
      // First, so that every other plugin sees the refusal of an oversized answer.
      useResponseCap(config.maxResponseBytes, countLateRefusal(deps.metrics)),
      useCodedRefusals(),
      // With origins listed, every answer's CORS headers depend on Origin: say so to caches.
      ...(config.corsOrigins.length > 0 ? [useVaryOrigin()] : []),
      useObservability(logger, deps.metrics),
      useErrorCodes(),
      ...(deps.trusted ? [useTrustedDocuments(deps.trusted)] : []),
      useCsrfPrevention(['x-graphql-yoga-csrf', 'x-workspace', 'authorization']),
      useSseSubscriptionGuards({ cap: deps.subscriptions, sockets: deps.sockets, gate, rechecks: deps.rechecks }),
      ...documentLimitPlugins({
        introspection: () => config.introspection ?? !gate.knownTokenMode,
        maxResponseBytes: config.maxResponseBytes,
        onEstimate: (contextValue, estimate) => {
          estimates.set(contextValue as object, estimate);
          (contextValue as Partial<Context>).readBudget?.plan(estimate);
        },
      }),
      useHeavyReadLimit(new HeavyReads(), (contextValue) => estimates.get(contextValue as object)),
      useMutationGuard(),
    ],
  });
}
