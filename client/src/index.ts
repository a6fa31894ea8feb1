import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { type DocumentNode, print } from 'graphql';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import {
  AppendDocument,
  type AppendInput,
  type AppendMutation,
  CaptureDocument,
  type CaptureInput,
  type CaptureMutation,
  EntriesDocument,
  type EntriesQuery,
  type EntriesQueryVariables,
  EntryDocument,
  type EntryQuery,
  EventsDocument,
  type EventsSubscription,
  ForgetDocument,
  type ForgetMutation,
  GraphViewDocument,
  type GraphViewQuery,
  type GraphViewQueryVariables,
  LastEventSeqDocument,
  LinkDocument,
  type LinkInput,
  type LinkMutation,
  type MemoryEventType,
  RecallDocument,
  type RecallQuery,
  type RecallQueryVariables,
  UnlinkDocument,
  type UnlinkInput,
  type UnlinkMutation,
} from './generated/graphql.ts';

export type * from './generated/graphql.ts';

export interface SphereClientOptions {
  /** The GraphQL endpoint, e.g. http://127.0.0.1:4000/graphql (its ws:// twin serves subscriptions). */
  url: string;
  /** Sent as `authorization: Bearer <token>`. */
  token?: string;
  /** Sent as `x-workspace` (open mode picks the workspace this way). */
  workspace?: string;
  /** A WebSocket constructor where there is no global one (e.g. `ws` on Node 20). */
  webSocketImpl?: unknown;
  /**
   * How many times in a row a dropped subscription socket may be re-opened before the subscriptions give up;
   * unlimited by default (waits grow to 10 s and stay there). When a set budget runs out, each subscription's
   * `onError` gets a `SphereReconnectError` and the subscription ends.
   */
  retryAttempts?: number;
  /**
   * Send only `extensions.persistedQuery.sha256Hash` instead of the document text: what a server
   * started with SPHERE_TRUSTED_DOCUMENTS (and the generated persisted-documents.json) requires.
   */
  persisted?: boolean;
  fetch?: typeof fetch;
}

/** A GraphQL error as the server reported it; `code` is its `extensions.code`. */
export class SphereError extends Error {
  readonly code: string;
  readonly extensions: Record<string, unknown>;
  readonly path: readonly (string | number)[] | undefined;
  constructor(message: string, extensions: Record<string, unknown> = {}, path?: (string | number)[]) {
    super(message);
    this.name = 'SphereError';
    this.extensions = extensions;
    this.code = typeof extensions.code === 'string' ? extensions.code : 'INTERNAL_SERVER_ERROR';
    this.path = path;
  }
}

/**
 * A subscription's end when the caller's `retryAttempts` ran out with the server still unreachable; `cause` is
 * the last close event or error. Without a budget the client keeps trying and this never happens.
 */
export class SphereReconnectError extends Error {
  readonly code = 'RECONNECT_BUDGET_EXHAUSTED';
  readonly attempts: number;
  constructor(attempts: number, cause: unknown) {
    super(`gave up reconnecting after ${attempts} attempts`, { cause });
    this.name = 'SphereReconnectError';
    this.attempts = attempts;
  }
}

export type SphereEvent = EventsSubscription['events'];
export type EntriesPage = EntriesQuery['entries'];

export interface SubscribeOptions {
  /** Replay the committed events after this seq first; without it, events from now on. */
  sinceSeq?: number;
  types?: MemoryEventType[];
  /**
   * Called once when the subscription ends for good: a GraphQL error (a `SphereError`), the server refusing the
   * socket's credentials (close code 4403), or a set `retryAttempts` budget running out (a `SphereReconnectError`).
   */
  onError?: (error: unknown) => void;
}

export interface SphereClient {
  capture(input: CaptureInput): Promise<NonNullable<CaptureMutation['capture']>>;
  append(input: AppendInput): Promise<NonNullable<AppendMutation['append']>>;
  link(input: LinkInput): Promise<NonNullable<LinkMutation['link']>>;
  unlink(input: UnlinkInput): Promise<NonNullable<UnlinkMutation['unlink']>>;
  forget(id: string): Promise<NonNullable<ForgetMutation['forget']>>;
  entry(id: string): Promise<EntryQuery['entry']>;
  recall(args: RecallQueryVariables): Promise<RecallQuery['recall']>;
  graphView(args: GraphViewQueryVariables): Promise<NonNullable<GraphViewQuery['graphView']>>;
  /** Every page of the listing in turn, following `pageInfo.endCursor` until there is no next page. */
  entries(args?: Omit<EntriesQueryVariables, 'after' | 'before' | 'last'>): AsyncIterableIterator<EntriesPage>;
  /**
   * Events of the workspace, each once and in seq order: a dropped socket is re-opened with
   * backoff and the subscription resumes after the last seq the handler saw. Returns an unsubscribe.
   */
  subscribe(handler: (event: SphereEvent) => void, opts?: SubscribeOptions): () => void;
  close(): Promise<void>;
}

interface GqlBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
}

const hashOf = (doc: DocumentNode): string | undefined => (doc as { __meta__?: { hash?: string } }).__meta__?.hash;

/** The request body for a document: its text, or with `persisted` only its hash. */
function paramsFor(doc: DocumentNode, variables: Record<string, unknown>, persisted: boolean) {
  const hash = hashOf(doc);
  if (persisted && hash) {
    return { variables, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } };
  }
  return { query: print(doc), variables };
}

/** Throws the first error of a response, so callers get `code` instead of a half-filled result. */
function throwIfErrors(body: GqlBody, status: number): void {
  const first = body.errors?.[0];
  if (first) throw new SphereError(first.message, first.extensions, first.path);
  if (!body.data) throw new SphereError(`empty response (HTTP ${status})`, { code: 'INTERNAL_SERVER_ERROR' });
}

function authHeaders(opts: SphereClientOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.workspace) headers['x-workspace'] = opts.workspace;
  return headers;
}

function createRequester(opts: SphereClientOptions) {
  const doFetch = opts.fetch ?? fetch;
  const persisted = opts.persisted ?? false;
  return async <R, V>(doc: TypedDocumentNode<R, V>, variables: V): Promise<R> => {
    const res = await doFetch(opts.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...authHeaders(opts),
      },
      body: JSON.stringify(paramsFor(doc, variables as Record<string, unknown>, persisted)),
    });
    const text = await res.text();
    let body: GqlBody;
    try {
      body = JSON.parse(text) as GqlBody;
    } catch {
      throw new SphereError(`non-JSON response (HTTP ${res.status}): ${text.slice(0, 200)}`, {
        code: res.status === 429 ? 'RATE_LIMITED' : 'UNAVAILABLE',
      });
    }
    throwIfErrors(body, res.status);
    return body.data as R;
  };
}

/** A nullable mutation payload is null only beside an error, which the requester already threw. */
function present<T>(value: T | null | undefined, field: string): T {
  if (value == null) throw new SphereError(`${field} returned null`, { code: 'INTERNAL_SERVER_ERROR' });
  return value;
}

/** Waits 0.5 s, 1 s, 2 s ... up to 10 s, with jitter so clients dropped together do not return together. */
async function backoff(retries: number): Promise<void> {
  const base = Math.min(10_000, 500 * 2 ** retries);
  await new Promise((resolve) => setTimeout(resolve, base / 2 + Math.random() * (base / 2)));
}

/** Close codes that say the server will not take this socket as it is; trying again would only repeat them. */
const REFUSED = new Set([4400, 4401, 4403]);

interface Socket {
  client: WsClient;
  /** Failed attempts since the last successful connection. */
  failures(): number;
}

function createSocket(opts: SphereClientOptions): Socket {
  let failures = 0;
  const client = createWsClient({
    url: opts.url.replace(/^http/, 'ws'),
    webSocketImpl: opts.webSocketImpl,
    lazy: true,
    connectionParams: () => ({
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.workspace ? { workspace: opts.workspace } : {}),
    }),
    retryAttempts: opts.retryAttempts ?? Number.POSITIVE_INFINITY,
    retryWait: backoff,
    // A server restarting closes with 1001 or refuses the connection; both are worth another try. A thrown
    // Error is a fault on this side that a retry would only repeat (graphql-ws retries it without waiting).
    shouldRetry: (errOrCloseEvent) =>
      !(errOrCloseEvent instanceof Error) && !REFUSED.has((errOrCloseEvent as { code?: number })?.code ?? 0),
    on: {
      connecting: (isRetry) => {
        if (isRetry) failures += 1;
      },
      connected: () => {
        failures = 0;
      },
    },
  });
  return { client, failures: () => failures };
}

type Request = ReturnType<typeof createRequester>;

function subscribeEvents(
  socket: () => Socket,
  request: Request,
  persisted: boolean,
  handler: (event: SphereEvent) => void,
  opts: SubscribeOptions,
  retryAttempts: number | undefined,
): () => void {
  let stopped = false;
  let unsubscribe: (() => void) | null = null;
  // graphql-ws re-sends this same payload object, serialised afresh, each time it re-opens the socket;
  // keeping `sinceSeq` at the last seq handled makes every re-subscription resume right after it.
  const variables: { sinceSeq: number; types?: MemoryEventType[] } = { sinceSeq: 0, types: opts.types };
  const start = (since: number) => {
    if (stopped) return;
    variables.sinceSeq = since;
    // graphql-ws refuses to send a payload without a string query; the server takes an empty one as absent.
    const payload = { query: '', ...paramsFor(EventsDocument, variables, persisted) };
    const ws = socket();
    unsubscribe = ws.client.subscribe<EventsSubscription>(payload, {
      next: (result) => {
        if (result.errors?.length) {
          const e = result.errors[0]!;
          opts.onError?.(new SphereError(e.message, e.extensions as Record<string, unknown>));
          return;
        }
        const event = result.data?.events;
        // A replay that overlaps what was already handled is dropped, so no seq is seen twice.
        if (!event || event.seq <= variables.sinceSeq) return;
        variables.sinceSeq = event.seq;
        handler(event);
      },
      error: (error) => {
        const budget = retryAttempts;
        const code = (error as { code?: unknown } | null)?.code;
        const spent =
          budget !== undefined &&
          !(error instanceof Error) &&
          !(typeof code === 'number' && REFUSED.has(code)) &&
          ws.failures() >= budget;
        opts.onError?.(spent ? new SphereReconnectError(budget, error) : error);
      },
      complete: () => {},
    });
  };
  if (opts.sinceSeq !== undefined) start(opts.sinceSeq);
  else {
    // "From now on" is pinned to a seq up front, so a drop before the first event still resumes correctly.
    request(LastEventSeqDocument, {}).then(
      (data) => start(data.lastEventSeq),
      (error) => opts.onError?.(error),
    );
  }
  return () => {
    stopped = true;
    unsubscribe?.();
  };
}

/** A typed client of one Mini-Sphere server and workspace. */
export function createSphereClient(opts: SphereClientOptions): SphereClient {
  const request = createRequester(opts);
  let ws: Socket | null = null;
  const socket = () => {
    ws ??= createSocket(opts);
    return ws;
  };
  return {
    capture: async (input) => present((await request(CaptureDocument, { input })).capture, 'capture'),
    append: async (input) => present((await request(AppendDocument, { input })).append, 'append'),
    link: async (input) => present((await request(LinkDocument, { input })).link, 'link'),
    unlink: async (input) => present((await request(UnlinkDocument, { input })).unlink, 'unlink'),
    forget: async (id) => present((await request(ForgetDocument, { input: { id } })).forget, 'forget'),
    entry: async (id) => (await request(EntryDocument, { id })).entry,
    recall: async (args) => (await request(RecallDocument, args)).recall,
    graphView: async (args) => present((await request(GraphViewDocument, args)).graphView, 'graphView'),
    entries: async function* (args = {}) {
      let after: string | null = null;
      for (;;) {
        const page: EntriesPage = (await request(EntriesDocument, { ...args, after })).entries;
        yield page;
        if (!page.pageInfo.hasNextPage || !page.pageInfo.endCursor) return;
        after = page.pageInfo.endCursor;
      }
    },
    subscribe: (handler, subOpts = {}) =>
      subscribeEvents(socket, request, opts.persisted ?? false, handler, subOpts, opts.retryAttempts),
    close: async () => {
      const closing = ws;
      ws = null;
      // graphql-ws rejects dispose() with the last connect error when the server is down at that moment;
      // closing is still done then, and must not throw.
      await Promise.resolve(closing?.client.dispose()).catch(() => {});
    },
  };
}
