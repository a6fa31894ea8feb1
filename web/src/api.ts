import type { Document } from './documents.ts';
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

/** What a GraphQL request carries: a document's text, or only its sha-256 (persisted-query form). */
export interface OperationParams {
  query?: string;
  variables?: Record<string, unknown>;
  extensions?: { persistedQuery: { version: 1; sha256Hash: string } };
}

/**
 * How documents travel. They go as text until a server that runs trusted documents only
 * (SPHERE_TRUSTED_DOCUMENTS) refuses text, and from then on by their hash alone: every document
 * the dashboard sends is one of the client package's manifest, with the sha-256 listed there, so
 * both kinds of server serve the dashboard, the trusted one at the cost of one refused request.
 */
export class DocumentSender {
  private byHash = false;

  params<R, V>(document: Document<R, V>, variables: V | undefined): OperationParams {
    const vars = variables as Record<string, unknown> | undefined;
    if (this.byHash) {
      return { variables: vars, extensions: { persistedQuery: { version: 1, sha256Hash: document.hash } } };
    }
    return { query: document.text, variables: vars };
  }

  /** Whether a refusal with this code means the same document should be sent again, by hash. */
  switchesToHash(code: string | undefined): boolean {
    if (code !== 'PERSISTED_QUERY_ONLY' || this.byHash) return false;
    this.byHash = true;
    return true;
  }
}

/** Variables are required exactly when the document has a required one. */
type VariablesOf<V> = Record<string, never> extends V ? [variables?: V] : [variables: V];

export type Gql = <R, V>(document: Document<R, V>, ...variables: VariablesOf<V>) => Promise<R>;

/**
 * A GraphQL-over-HTTP client for the current session, sending the generated documents only.
 * `onUnauthenticated` runs when the server answers UNAUTHENTICATED, so the dashboard can ask for a token.
 */
export function createGql(session: () => Session, onUnauthenticated: () => void, sender: DocumentSender): Gql {
  const post = async (params: OperationParams) => {
    let response: Response;
    try {
      response = await fetch(GRAPHQL_PATH, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
          ...sessionHeaders(session()),
        },
        body: JSON.stringify(params),
      });
    } catch {
      throw new ApiError('The server cannot be reached.', 'NETWORK');
    }
    try {
      return (await response.json()) as { data?: unknown; errors?: GraphQLErrorShape[] };
    } catch {
      throw new ApiError(`The server answered ${response.status} without a GraphQL response.`, 'NETWORK');
    }
  };
  return async <R, V>(document: Document<R, V>, ...[variables]: VariablesOf<V>): Promise<R> => {
    let body = await post(sender.params(document, variables));
    // Refused before it ran, so sending it again by hash cannot repeat a write.
    if (sender.switchesToHash(body.errors?.[0]?.extensions?.code))
      body = await post(sender.params(document, variables));
    const first = body.errors?.[0];
    if (first) {
      const code = first.extensions?.code;
      if (code === 'UNAUTHENTICATED') onUnauthenticated();
      throw new ApiError(first.message, code);
    }
    if (!body.data) throw new ApiError('The server sent no data.', undefined);
    return body.data as R;
  };
}
