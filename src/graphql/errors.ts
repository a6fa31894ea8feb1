import { GraphQLError } from 'graphql';
import { type Plugin, maskError as yogaMaskError } from 'graphql-yoga';
import { DomainError } from '../contract/errors.ts';

const HTTP_STATUS: Partial<Record<string, number>> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
};

/** SQLite failures that mean "the database cannot take writes now", not a bug. */
const STORAGE_UNAVAILABLE = /^SQLITE_(FULL|IOERR|READONLY|BUSY|CANTOPEN)/;

function storageCode(error: unknown): string | null {
  const code = (error as { code?: unknown; extendedCode?: unknown } | null)?.code;
  const extended = (error as { extendedCode?: unknown } | null)?.extendedCode;
  for (const c of [extended, code]) if (typeof c === 'string' && STORAGE_UNAVAILABLE.test(c)) return c;
  return null;
}

/**
 * The storage error (its SQLite code and message) that maskError answers as UNAVAILABLE
 * with a generic message, or null: what the operator's log needs to name the cause.
 */
export function storageFailure(error: unknown): { code: string; message: string } | null {
  const original = error instanceof GraphQLError ? error.originalError : error;
  const code = storageCode(original);
  return code ? { code, message: String((original as { message?: unknown }).message) } : null;
}

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
  let original = error instanceof GraphQLError ? error.originalError : error;
  // drizzle wraps whatever a query's client throws (a workspace that cannot be reopened).
  const cause = (original as { cause?: unknown } | null | undefined)?.cause;
  if (cause instanceof DomainError) original = cause;
  if (original instanceof DomainError)
    return toGraphQLError(original, error instanceof GraphQLError ? error : undefined);
  if (storageCode(original)) {
    // A full disk or a read-only file: the write was not acknowledged and can be retried.
    const unavailable = new DomainError(
      'UNAVAILABLE',
      'the workspace database cannot take writes right now; retry later',
    );
    return toGraphQLError(unavailable, error instanceof GraphQLError ? error : undefined);
  }
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
 * The code a client will see for an error of an operation's result, before the plugins
 * below and masking have run: what logs and metrics should count it as.
 */
export function clientCodeOf(error: GraphQLError): string {
  if (isVariableError(error)) return 'BAD_USER_INPUT';
  return String((maskError(error, error.message) as GraphQLError).extensions?.code ?? 'INTERNAL_SERVER_ERROR');
}

const withCode = (e: GraphQLError, code: string, status = 400) =>
  e.extensions?.code
    ? e
    : new GraphQLError(e.message, {
        nodes: e.nodes,
        source: e.source,
        positions: e.positions,
        // `spec`: a 4xx for application/graphql-response+json only; application/json clients get 200, as the
        // GraphQL-over-HTTP spec asks for every well-formed request (Yoga's own parse errors do the same).
        extensions: { ...e.extensions, code, http: { spec: true, status } },
      });

/**
 * Every error a client sees carries a code. Yoga's own parse and validation errors do,
 * but rejections from the document-limit plugins and graphql-js's bad-variable errors
 * (an unknown enum value, a string for an Int) do not: the first become
 * GRAPHQL_PARSE_FAILED / GRAPHQL_VALIDATION_FAILED, the second BAD_USER_INPUT, over
 * HTTP and WebSocket alike.
 */
export function useErrorCodes(): Plugin {
  return {
    onParse:
      () =>
      ({ result, replaceParseResult }) => {
        if (result instanceof GraphQLError && !result.extensions?.code) {
          replaceParseResult(withCode(result, 'GRAPHQL_PARSE_FAILED'));
        }
      },
    onValidate:
      () =>
      ({ result, setResult }) => {
        const errors = result as GraphQLError[];
        if (errors.some((e) => !e.extensions?.code)) {
          setResult(errors.map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED')));
        }
      },
    onExecute: () => ({
      onExecuteDone: ({ result, setResult }) => {
        if (!('errors' in result) || !result.errors?.some(isVariableError)) return;
        setResult({
          ...result,
          errors: result.errors.map((e) => (isVariableError(e) ? withCode(e, 'BAD_USER_INPUT') : e)),
        });
      },
    }),
  };
}
