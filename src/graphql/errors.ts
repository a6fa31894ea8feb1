import { GraphQLError } from 'graphql';
import { type Plugin, maskError as yogaMaskError } from 'graphql-yoga';
import { DomainError } from '../memory/errors.ts';

const HTTP_STATUS: Partial<Record<string, number>> = { UNAUTHENTICATED: 401, FORBIDDEN: 403, RATE_LIMITED: 429 };

/** A client-facing GraphQLError for an expected failure. */
export function toGraphQLError(error: DomainError, source?: GraphQLError): GraphQLError {
  const status = HTTP_STATUS[error.code];
  return new GraphQLError(error.message, {
    nodes: source?.nodes,
    source: source?.source,
    positions: source?.positions,
    path: source?.path,
    extensions: { code: error.code, ...error.details, ...(status ? { http: { status } } : {}) },
  });
}

/**
 * The one place where errors become what a client sees. Expected failures keep their
 * contract code; GraphQL's own errors (parse, validation, variables) pass through;
 * everything else, SQL errors included, is masked as an internal error with no details.
 */
export function maskError(error: unknown, message: string): Error {
  const original = error instanceof GraphQLError ? error.originalError : error;
  if (original instanceof DomainError)
    return toGraphQLError(original, error instanceof GraphQLError ? error : undefined);
  if (error instanceof GraphQLError && original instanceof GraphQLError && original.extensions?.code) {
    return new GraphQLError(error.message, {
      nodes: error.nodes,
      path: error.path,
      extensions: original.extensions,
    });
  }
  return yogaMaskError(error, message, false);
}

const isVariableError = (e: GraphQLError) => !e.extensions?.code && e.message.startsWith('Variable "$');

/**
 * graphql-js reports bad variable values (an unknown enum value, a string for an Int, a
 * missing required field) as execution results without a code; the contract calls them
 * BAD_USER_INPUT, over HTTP and WebSocket alike.
 */
export function useVariableErrorCodes(): Plugin {
  return {
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (!('errors' in result) || !result.errors?.some(isVariableError)) return;
        setResult({
          ...result,
          errors: result.errors.map((e) =>
            isVariableError(e)
              ? new GraphQLError(e.message, {
                  nodes: e.nodes,
                  extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
                })
              : e,
          ),
        });
      },
    }),
  };
}
