import {
  type AnyVariables,
  Client,
  type CombinedError,
  fetchExchange,
  type OperationResult,
  type RequestPolicy,
  subscriptionExchange,
} from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import type { Client as SocketClient } from 'graphql-ws/client';
import { urqlCacheOptions } from '../../client/src/caches/urql.ts';
import { type Document, documentNamed } from './documents.ts';
import { type Session, sessionHeaders } from './session.ts';

export const GRAPHQL_PATH = '/graphql';

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

  /** Whether documents already go by hash (a refusal can no longer switch them). */
  get sendsHashes(): boolean {
    return this.byHash;
  }

  /** Whether a refusal with this code means the same document should be sent again, by hash. */
  switchesToHash(code: string | undefined): boolean {
    if (code !== 'PERSISTED_QUERY_ONLY' || this.byHash) return false;
    this.byHash = true;
    return true;
  }
}

/** The first error of a result as the dashboard shows it: the server's words and code, or why nothing came. */
export function apiError(error: CombinedError): ApiError {
  const first = error.graphQLErrors[0];
  if (first) return new ApiError(first.message, first.extensions?.code as string | undefined);
  const status = (error.response as Response | undefined)?.status;
  if (status) return new ApiError(`The server answered ${status} without a GraphQL response.`, 'NETWORK');
  return new ApiError('The server cannot be reached.', 'NETWORK');
}

/** Variables are required exactly when the document has a required one. */
type VariablesOf<V> = Record<string, never> extends V ? [variables?: V] : [variables: V];

/**
 * Runs one of the client package's documents and resolves its data, or rejects with an ApiError.
 * Queries read through the normalized cache (cache-first); `fresh` reads from the server, for what
 * changed elsewhere (an agent's write the live feed announced), and updates the cache with it.
 */
export interface Gql {
  <R, V>(document: Document<R, V>, ...variables: VariablesOf<V>): Promise<R>;
  fresh<R, V>(document: Document<R, V>, ...variables: VariablesOf<V>): Promise<R>;
  /**
   * Shows a query's data as the cache has it, now and after every change to it (a write's result, an
   * invalidation that refetched, an event that carried an entity), until `signal` aborts. The first
   * read follows `requestPolicy` (cache-and-network: what the cache has at once, then the server's).
   */
  watch<R, V extends AnyVariables>(
    document: Document<R, V>,
    variables: V,
    onData: (data: R) => void,
    onError: (error: ApiError) => void,
    signal: AbortSignal,
    requestPolicy?: RequestPolicy,
  ): void;
}

/** The dashboard's GraphQL client: urql with graphcache configured by the client package, and its sockets. */
export interface Api {
  client: Client;
  gql: Gql;
  /** The live socket subscriptions travel on, set by LiveEvents once it connects. */
  socket: SocketClient | null;
}

function sessionFetch(session: () => Session, sender: DocumentSender): typeof fetch {
  // urql prints the document it was given (with __typename where graphcache wanted it); what goes out is the
  // manifest's own text or hash for that operation, so a trusted-documents server knows every request.
  const bodyFor = (init: RequestInit | undefined) => {
    if (typeof init?.body !== 'string') return init?.body;
    const body = JSON.parse(String(init?.body ?? '{}')) as { operationName?: string; variables?: unknown };
    const document = documentNamed(body.operationName ?? '');
    return JSON.stringify({ operationName: body.operationName, ...sender.params(document, body.variables) });
  };
  const send = (url: RequestInfo | URL, init: RequestInit | undefined) =>
    fetch(url, {
      ...init,
      headers: { ...(init?.headers as Record<string, string>), ...sessionHeaders(session()) },
      body: bodyFor(init),
    });
  return async (url, init) => {
    const response = await send(url, init);
    if (sender.sendsHashes) return response;
    const refusal = (await response
      .clone()
      .json()
      .catch(() => null)) as { errors?: { extensions?: { code?: string } }[] } | null;
    // Refused before it ran, so sending it again by hash cannot repeat a write.
    if (sender.switchesToHash(refusal?.errors?.[0]?.extensions?.code)) return send(url, init);
    return response;
  };
}

/**
 * The urql client for the current session. `onUnauthenticated` runs when the server answers
 * UNAUTHENTICATED, so the dashboard can ask for a token.
 */
export function createApi(session: () => Session, onUnauthenticated: () => void, sender: DocumentSender): Api {
  const client = new Client({
    url: GRAPHQL_PATH,
    requestPolicy: 'cache-first',
    // Every request is a POST whose body the fetch below rewrites to the manifest's text or hash.
    preferGetMethod: false,
    fetch: sessionFetch(session, sender),
    exchanges: [
      cacheExchange(urqlCacheOptions),
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => {
            // Asked for only once LiveEvents has connected, which sets the socket.
            const socket = api.socket;
            if (!socket) {
              sink.error(new Error('no live connection'));
              return { unsubscribe: () => {} };
            }
            const document = documentNamed(request.operationName ?? '');
            // graphql-ws wants a query string; a server running trusted documents takes an empty one as none.
            const payload = { query: '', ...sender.params(document, request.variables) };
            return { unsubscribe: socket.subscribe(payload, sink) };
          },
        }),
      }),
    ],
  });

  const settle = <R>(result: OperationResult<R>): R => {
    if (result.error) {
      const error = apiError(result.error);
      if (error.code === 'UNAUTHENTICATED') onUnauthenticated();
      throw error;
    }
    if (!result.data) throw new ApiError('The server sent no data.', undefined);
    return result.data;
  };
  const run = async <R, V>(document: Document<R, V>, variables: V | undefined, requestPolicy?: RequestPolicy) => {
    const vars = (variables ?? {}) as AnyVariables;
    const source =
      document.kind === 'mutation'
        ? client.mutation<R>(document.text, vars)
        : client.query<R>(document.text, vars, requestPolicy ? { requestPolicy } : undefined);
    return settle(await source.toPromise());
  };
  const gql = (<R, V>(document: Document<R, V>, ...[variables]: VariablesOf<V>) => run(document, variables)) as Gql;
  gql.fresh = (document, ...[variables]) => run(document, variables, 'network-only');
  gql.watch = <R, V extends AnyVariables>(
    document: Document<R, V>,
    variables: V,
    onData: (data: R) => void,
    onError: (error: ApiError) => void,
    signal: AbortSignal,
    requestPolicy?: RequestPolicy,
  ) => {
    const context = requestPolicy ? { requestPolicy } : undefined;
    const { unsubscribe } = client.query<R, V>(document.text, variables, context).subscribe((result) => {
      if (signal.aborted) return;
      let data: R;
      try {
        data = settle(result);
      } catch (error) {
        onError(error as ApiError);
        return;
      }
      onData(data);
    });
    signal.addEventListener('abort', unsubscribe);
  };
  const api: Api = { client, gql, socket: null };
  return api;
}
