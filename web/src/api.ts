import { type Session, sessionHeaders } from './session.ts';

export const GRAPHQL_PATH = '/graphql';

interface GraphQLErrorShape {
  message: string;
  extensions?: { code?: string };
}

/** A failed GraphQL request; `code` is the contract's `extensions.code` when the server sent one. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type Gql = <T>(query: string, variables?: Record<string, unknown>) => Promise<T>;

/**
 * A GraphQL-over-HTTP client for the current session. `onUnauthenticated` runs when the server
 * answers UNAUTHENTICATED, so the dashboard can ask for a token.
 */
export function createGql(session: () => Session, onUnauthenticated: () => void): Gql {
  return async <T>(query: string, variables?: Record<string, unknown>): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(GRAPHQL_PATH, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
          ...sessionHeaders(session()),
        },
        body: JSON.stringify({ query, variables }),
      });
    } catch {
      throw new ApiError('The server cannot be reached.', 'NETWORK');
    }
    let body: { data?: T | null; errors?: GraphQLErrorShape[] };
    try {
      body = await response.json();
    } catch {
      throw new ApiError(`The server answered ${response.status} without a GraphQL response.`, 'NETWORK');
    }
    const first = body.errors?.[0];
    if (first) {
      const code = first.extensions?.code;
      if (code === 'UNAUTHENTICATED') onUnauthenticated();
      throw new ApiError(first.message, code);
    }
    if (!body.data) throw new ApiError('The server sent no data.', undefined);
    return body.data;
  };
}
