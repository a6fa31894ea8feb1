import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  GraphQLError,
  type GraphQLFormattedError,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
  visit,
} from 'graphql';
import type { Context as WsContext } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { DomainError } from '../contract/errors.ts';
import type { Context } from '../graphql/context.ts';
import { maskError, toGraphQLError } from '../graphql/errors.ts';
import { measureAnswer, tooLarge, withData } from '../graphql/response-size.ts';
import type { Access } from '../workspaces/access.ts';
import { jsonNestsDeeper, TOO_DEEP } from './caller.ts';
import { type Cap, onIteratorEnd } from './caps.ts';
import type { ConnectionLimits } from './connections.ts';
import { bearerOf, type Gatekeeper } from './context.ts';
import { BAD_TARGET, type Refusal, rawRefusal, toOriginForm } from './guard.ts';
import { CONTROL_UNAVAILABLE, MAX_BODY_BYTES } from './http.ts';
import type { Multicast } from './multicast.ts';
import { type Rechecks, TOKEN_REVOKED, watchAccess } from './rechecks.ts';
import { clientKey, rateLimitedSubscription, tooManyStreams } from './subscriptions.ts';
import { persistedHashOf, TRUSTED_ONLY_MESSAGE, type TrustedDocuments } from './trusted-documents.ts';
import { GRAPHQL_PATH, type Yoga } from './yoga.ts';

/** Subscriptions one WebSocket connection may hold at once. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;

export interface WsDeps {
  yoga: Yoga;
  gate: Gatekeeper;
  multicast: Multicast;
  /** Sockets and SSE streams per token (open mode: per peer address), and live subscriptions per workspace. */
  sockets: Cap;
  subscriptions: Cap;
  /** Shared access rechecks: one per token per second. */
  rechecks: Rechecks;
  /** Learns which connections have authenticated (they leave the per-peer cap of those that have not). */
  connections: ConnectionLimits;
  admit: (req: IncomingMessage) => Promise<Refusal | null>;
  /** With a manifest, an operation names a listed document by hash instead of sending it. */
  trusted: TrustedDocuments | null;
  /** SPHERE_MAX_RESPONSE_BYTES: the largest answer a message may carry. */
  maxResponseBytes: number;
  /** Hears of each answer refused RESPONSE_TOO_LARGE once measured (observability counts it). */
  onRefused: (document: DocumentNode) => void;
}

/** A subscribe message's payload. */
interface OperationParams {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  extensions?: Record<string, unknown> | null;
}

/** What onSubscribe hands to execute/subscribe through graphql-ws's rootValue. */
interface Prepared {
  execute: (args: ExecutionArgs) => unknown;
  subscribe: (args: ExecutionArgs) => unknown;
  shareKey: string | null;
  workspace: string;
  release: () => void;
}

/** Answers an upgrade request with an HTTP error and no socket. */
function rejectUpgrade(socket: Socket, status: number, message: string, code: string): void {
  socket.end(rawRefusal(status, message, code));
}

/**
 * Closes a socket (4400) on a message whose JSON nests deeper than any operation needs,
 * before graphql-ws parses it: its listener is the one wrapped here.
 */
function refuseDeepMessages(client: WebSocket): void {
  const on = client.on.bind(client);
  client.on = ((event: string, listener: (...args: unknown[]) => void) => {
    // A frame over the size cap or one that breaks the protocol: ws has closed the socket
    // with its code (1009, 1002) already; graphql-ws would also log it as a server fault.
    if (event === 'error')
      return on('error', (error: unknown) => {
        if (!String((error as { code?: unknown })?.code).startsWith('WS_ERR_')) listener(error);
      });
    if (event !== 'message') return on(event, listener);
    return on('message', (data: unknown, isBinary: unknown) => {
      if (jsonNestsDeeper(String(data))) client.close(4400, TOO_DEEP);
      else listener(data, isBinary);
    });
  }) as typeof client.on;
}

/**
 * Whether a subscription depends on where its subscriber stands: one that replays the log
 * (a `sinceSeq` argument that is given) runs alone; live ones can share one execution.
 */
export function replays(operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>>): boolean {
  let found = false;
  visit(operation, {
    Argument(node) {
      if (node.name.value !== 'sinceSeq') return;
      const value = node.value;
      if (value.kind === Kind.NULL) return;
      if (value.kind === Kind.VARIABLE && variables[value.name.value] == null) return;
      found = true;
    },
  });
  return found;
}

/** The key identical live subscriptions of one workspace and role share, or null to run alone. */
function shareKeyOf(document: DocumentNode, params: OperationParams, access: Access): string | null {
  const operation = getOperationAST(document, params.operationName);
  if (operation?.operation !== 'subscription') return null;
  if (replays(operation, params.variables ?? {})) return null;
  return JSON.stringify([
    access.workspaceId,
    access.role,
    params.operationName ?? null,
    params.query,
    params.variables ?? {},
  ]);
}

/**
 * WebSockets (graphql-ws) on the GraphQL path. Upgrades pass the request guard; each
 * connection authenticates once, counts against its client's socket cap, and closes
 * (4403) within a second of its token's revocation; operations run through Yoga's
 * envelop, so they get the same context, limits and masking as HTTP.
 */
export function attachWebSockets(http: Server, deps: WsDeps): { dispose(): void | Promise<void> } {
  // One message of a socket a turn of the loop: a socket's messages read in one chunk (100
  // subscribes at once, from each of 30 sockets) were all handled before anything else ran.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES, allowSynchronousEvents: false });
  // Before graphql-ws's own listener: every socket's sends go through the serialized-once cache.
  wss.on('connection', sendingSerializedOnce);
  http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (!toOriginForm(req)) {
      rejectUpgrade(socket, 400, BAD_TARGET, 'BAD_REQUEST');
      return;
    }
    if ((req.url ?? '/').split('?')[0] !== GRAPHQL_PATH) {
      rejectUpgrade(socket, 404, `WebSockets are served at ${GRAPHQL_PATH}`, 'NOT_FOUND');
      return;
    }
    deps.admit(req).then(
      (refusal) => {
        if (refusal) rejectUpgrade(socket, refusal.status, refusal.message, refusal.code);
        else
          wss.handleUpgrade(req, socket, head, (client) => {
            refuseDeepMessages(client);
            wss.emit('connection', client, req);
          });
      },
      () => rejectUpgrade(socket, 503, CONTROL_UNAVAILABLE, 'UNAVAILABLE'),
    );
  });
  return useServer<Record<string, unknown>>(
    {
      execute: (args) => (args.rootValue as Prepared).execute(args) as never,
      subscribe: (args) => subscribeShared(deps, args) as never,
      connectionInitWaitTimeout: 5_000,
      onConnect: (ctx) => connect(deps, ctx),
      onSubscribe: (ctx, _id, params) => prepare(deps, ctx, params),
      onNext: (ctx, id, _payload, args, result) =>
        serializedOnce(ctx.extra.socket, id, result, () => answerJson(result, args, deps)),
      onError: (_ctx, _id, _payload, errors) => asOverHttp(errors),
    },
    wss,
  );
}

/**
 * Errors as HTTP answers show them: Yoga reads `extensions.http` (the status) and
 * `extensions.unexpected` for itself and drops them from HTTP responses, so a WebSocket
 * client gets neither.
 */
function asOverHttp(errors: readonly GraphQLError[]): GraphQLFormattedError[] {
  return errors.map((error) => {
    const { http: _status, unexpected: _unexpected, ...extensions } = error.extensions ?? {};
    const { extensions: _all, ...formatted } = typeof error.toJSON === 'function' ? error.toJSON() : error;
    return Object.keys(extensions).length > 0 ? { ...formatted, extensions } : formatted;
  });
}

/**
 * An answer's JSON as HTTP would send it, within SPHERE_MAX_RESPONSE_BYTES (a larger one is
 * refused with RESPONSE_TOO_LARGE) and, when large, made in slices that leave the event
 * loop free between them (measureAnswer).
 */
async function answerJson(
  result: ExecutionResult,
  args: ExecutionArgs,
  deps: Pick<WsDeps, 'maxResponseBytes' | 'onRefused'>,
): Promise<string> {
  const measured = await measureAnswer(result, deps.maxResponseBytes);
  if (measured.tooLarge) {
    const mutation = getOperationAST(args.document, args.operationName)?.operation === 'mutation';
    result = tooLarge(deps.maxResponseBytes, mutation);
    deps.onRefused(args.document);
  }
  const formatted = result.errors?.length ? { ...result, errors: asOverHttp(result.errors) } : result;
  return !measured.tooLarge && measured.dataJson !== undefined
    ? withData(formatted, measured.dataJson)
    : JSON.stringify(formatted);
}

/**
 * Each result's JSON, made once: subscribers sharing a live subscription (see Multicast)
 * receive the same result object, so 150 subscribers of a workspace cost one
 * serialization per event, not 150. graphql-ws serializes each message itself, so the
 * result is swapped for a stand-in payload that the socket's `send` replaces with the
 * JSON made once (`pending` holds it per socket and operation id).
 */
const serialized = new WeakMap<object, Promise<string>>();
const pending = new WeakMap<WebSocket, Map<string, string>>();
/** A payload no result has (results carry data or errors), so it can only be the stand-in. */
const STAND_IN = Object.freeze({}) as ExecutionResult;

async function serializedOnce(
  socket: WebSocket,
  id: string,
  result: ExecutionResult,
  make: () => Promise<string>,
): Promise<ExecutionResult> {
  let made = serialized.get(result);
  if (made === undefined) {
    made = make();
    serialized.set(result, made);
  }
  const json = await made;
  let bySocket = pending.get(socket);
  if (!bySocket) {
    bySocket = new Map();
    pending.set(socket, bySocket);
  }
  // The exact text graphql-ws makes of the stand-in message (it stringifies { id, type, payload }).
  bySocket.set(JSON.stringify({ id, type: 'next', payload: STAND_IN }), json);
  return STAND_IN;
}

function sendingSerializedOnce(socket: WebSocket): void {
  const send = socket.send.bind(socket) as (data: unknown, cb?: (err?: Error) => void) => void;
  socket.send = ((data: unknown, cb?: (err?: Error) => void) => {
    const bySocket = typeof data === 'string' ? pending.get(socket) : undefined;
    const json = bySocket?.get(data as string);
    if (json === undefined) return send(data, cb);
    bySocket?.delete(data as string);
    const text = data as string;
    // '{"id":"…","type":"next","payload":{}}' → the same with the result's JSON as payload.
    return send(`${text.slice(0, -3)}${json}}`, cb);
  }) as WebSocket['send'];
}

type Ctx = WsContext<Record<string, unknown>, { socket: WebSocket; request: IncomingMessage }>;

/**
 * What each socket holds (its place under the socket cap, its subscriptions' places), given
 * back when it closes, whatever else ended them.
 */
const held = new WeakMap<WebSocket, Set<() => void>>();
function releaseOnClose(socket: WebSocket, release: () => void): void {
  let set = held.get(socket);
  if (!set) {
    const releases = new Set<() => void>();
    set = releases;
    held.set(socket, releases);
    socket.once('close', () => {
      for (const r of releases) r();
    });
  }
  set.add(release);
}

async function connect(deps: WsDeps, ctx: Ctx): Promise<boolean> {
  const params = ctx.connectionParams ?? {};
  const socket = ctx.extra.socket;
  const peer = ctx.extra.request.socket.remoteAddress;
  let access: Access;
  try {
    access = await deps.gate.authenticate({ authorization: params.authorization, workspace: params.workspace }, peer);
  } catch (error) {
    // No valid credentials: graphql-ws closes with 4403 Forbidden. Anything else (a bad
    // workspace id) is reported on each operation with its code.
    return !(error instanceof DomainError && error.code === 'UNAUTHENTICATED');
  }
  // Sockets and server-sent-event streams per token, or per peer address in open mode:
  // one client cannot hold them all.
  const release = deps.sockets.acquire(clientKey(access, peer));
  if (!release) {
    socket.close(4429, tooManyStreams(deps.sockets));
    return false;
  }
  releaseOnClose(socket, release);
  deps.connections.authenticated(ctx.extra.request.socket);
  // A revoked token loses its open sockets too, within a second; so does a socket opened
  // without a token once the server leaves open mode (the first token is created).
  const unwatch = watchAccess(deps.rechecks, deps.gate, access, bearerOf(params.authorization), (reason) =>
    socket.close(
      4403,
      reason === TOKEN_REVOKED ? 'Forbidden: token revoked' : 'Forbidden: the server now requires a bearer token',
    ),
  );
  releaseOnClose(socket, unwatch);
  return true;
}

async function prepare(deps: WsDeps, ctx: Ctx, params: OperationParams) {
  // graphql-ws has already reserved this operation's place in `subscriptions`.
  if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS_PER_CONNECTION) {
    return [
      toGraphQLError(
        new DomainError('RATE_LIMITED', `at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions per connection`),
      ),
    ];
  }
  if (deps.trusted) {
    const resolved = resolveTrusted(deps.trusted, params);
    if (resolved instanceof GraphQLError) return [resolved];
    params = resolved;
  }
  const { schema, execute, subscribe, contextFactory, parse, validate } = deps.yoga.getEnveloped({
    ...ctx,
    req: ctx.extra.request,
    socket: ctx.extra.socket,
    params,
  });
  try {
    // The caller first: nothing is parsed or validated for one who is not known.
    const contextValue = (await contextFactory()) as unknown as Context;
    const document: DocumentNode = parse(params.query);
    const errors = validate(schema, document);
    if (errors.length > 0) return errors.map((e: GraphQLError) => maskError(e, e.message) as GraphQLError);
    const isSubscription = getOperationAST(document, params.operationName)?.operation === 'subscription';
    const release = isSubscription ? deps.subscriptions.acquire(contextValue.access.workspaceId) : () => {};
    if (!release) return [rateLimitedSubscription(deps.subscriptions)];
    releaseOnClose(ctx.extra.socket, release);
    const rootValue: Prepared = {
      execute,
      subscribe,
      // Identical live subscriptions in one workspace run once and share their results.
      shareKey: shareKeyOf(document, params, contextValue.access),
      workspace: contextValue.access.workspaceId,
      release,
    };
    return {
      schema,
      operationName: params.operationName,
      document,
      variableValues: params.variables,
      contextValue,
      rootValue,
    };
  } catch (error) {
    const masked = maskError(error, 'Unexpected error.');
    return [masked instanceof GraphQLError ? masked : new GraphQLError(masked.message)];
  }
}

/**
 * An operation over a socket when only trusted documents run: it must name a listed document
 * by hash (`extensions.persistedQuery.sha256Hash`) and send no query of its own.
 */
function resolveTrusted(trusted: TrustedDocuments, params: OperationParams): OperationParams | GraphQLError {
  const refuse = (message: string, code: string) => new GraphQLError(message, { extensions: { code } });
  if (params.query) return refuse(TRUSTED_ONLY_MESSAGE, 'PERSISTED_QUERY_ONLY');
  const hash = persistedHashOf(params);
  if (hash === null)
    return refuse('send extensions.persistedQuery { version: 1, sha256Hash }', 'PERSISTED_QUERY_ID_REQUIRED');
  const query = trusted.get(hash);
  if (query === null) return refuse('no trusted document has this sha256Hash', 'PERSISTED_QUERY_NOT_IN_LIST');
  return { ...params, query };
}

/** Runs a subscription, shared when it can be, and gives its place back however it ends. */
async function subscribeShared(deps: WsDeps, args: ExecutionArgs): Promise<unknown> {
  const root = args.rootValue as Prepared;
  let result: unknown;
  try {
    result = await (root.shareKey
      ? deps.multicast.subscribe(root.shareKey, root.workspace, () => root.subscribe(args) as never)
      : root.subscribe(args));
  } catch (error) {
    root.release();
    throw error;
  }
  if (typeof result !== 'object' || result === null || !(Symbol.asyncIterator in result)) {
    root.release();
    return result;
  }
  return onIteratorEnd(result as AsyncIterable<unknown>, root.release);
}
