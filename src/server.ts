import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type ExecutionArgs, GraphQLError, getOperationAST } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { createYoga, type YogaInitialContext } from 'graphql-yoga';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Config } from './config.ts';
import { createDashboardHandler } from './dashboard/assets.ts';
import type { QueryListener } from './db/client.ts';
import { EventBus } from './events/bus.ts';
import { Multicast } from './events/multicast.ts';
import { createRedisTarget } from './events/redis.ts';
import type { Context } from './graphql/context.ts';
import { createDirectPost } from './graphql/direct-post.ts';
import { maskError, toGraphQLError, useErrorCodes } from './graphql/errors.ts';
import { documentLimitPlugins } from './graphql/limits.ts';
import { createLoaders } from './graphql/loaders.ts';
import { buildSchema } from './graphql/schema.ts';
import { DomainError } from './memory/errors.ts';
import { createLogger, createMetrics, type Logger, useObservability } from './observability.ts';
import { Cap, onIteratorEnd } from './server/caps.ts';
import { useCsrfPrevention } from './server/csrf.ts';
import { checkRequest, corsAllowed, type Refusal, refusalBody } from './server/guard.ts';
import { createPlayground } from './server/playground.ts';
import { useCodedRefusals } from './server/refusals.ts';
import { rateLimitedSubscription, useSseSubscriptionGuards } from './server/subscriptions.ts';
import type { Access } from './workspaces/access.ts';
import { Authenticator, type Credentials, isLoopback } from './workspaces/auth.ts';
import { ControlStore, tokenIdOf } from './workspaces/control.ts';
import { RateLimiter } from './workspaces/rate-limit.ts';
import { WorkspaceRegistry } from './workspaces/registry.ts';

export const GRAPHQL_PATH = '/graphql';
/** Largest accepted request body and WebSocket message. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Subscriptions one WebSocket connection may hold at once. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;
/** Mutations per minute per workspace once tokens exist, unless SPHERE_RATE_LIMIT says otherwise. */
export const DEFAULT_TOKEN_RATE_LIMIT = 6_000;
/** How long shutdown waits for in-flight HTTP requests before cutting them. */
const SHUTDOWN_GRACE_MS = 10_000;
/** How often an open WebSocket re-checks that its token is still valid. */
const TOKEN_RECHECK_MS = 1_000;

export interface MiniSphereServer {
  /** Listens on the configured host and port (0 picks a free port). */
  start(): Promise<{ url: string; port: number }>;
  /** Stops taking requests, finishes in-flight writes, closes every socket (1001) and database. */
  stop(): Promise<void>;
  readonly registry: WorkspaceRegistry;
  readonly bus: EventBus;
  readonly http: Server;
  /** The control database (tokens, audit log), opened on first use. */
  control(): Promise<ControlStore>;
}

export interface ServerDeps {
  /** Where events travel between the writer and subscribers (Redis fans them out across instances). */
  bus?: EventBus;
  clock?: () => number;
  /** Sees every SQL statement run through drizzle. */
  onQuery?: QueryListener;
  logger?: Logger;
  /**
   * Answer plain JSON POSTs without fetch-API request and response objects (default true);
   * false sends every request through Yoga's full handling, which tests compare it with.
   */
  directPost?: boolean;
}

/** What graphql-ws passes as the envelop's initial context. */
interface WsInitialContext {
  connectionParams?: Readonly<Record<string, unknown>>;
}

function credentialsOf(initial: YogaInitialContext & WsInitialContext): Credentials {
  if (initial.connectionParams) {
    return { authorization: initial.connectionParams.authorization, workspace: initial.connectionParams.workspace };
  }
  return {
    authorization: initial.request?.headers.get('authorization'),
    workspace: initial.request?.headers.get('x-workspace'),
  };
}

/** The node request behind an initial context: Yoga's and the direct path's `req`, graphql-ws's `extra.request`. */
function peerOf(initial: { req?: IncomingMessage }): string | undefined {
  return initial.req?.socket.remoteAddress;
}

function sendJsonError(res: ServerResponse, status: number, message: string, code: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
  res.end(refusalBody({ message, code }));
}

/** Answers an upgrade request with an HTTP error and no socket. */
function rejectUpgrade(socket: Socket, status: number, message: string, code: string): void {
  const body = refusalBody({ message, code });
  const reason = status === 403 ? 'Forbidden' : status === 404 ? 'Not Found' : 'Service Unavailable';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Builds the HTTP + WebSocket server over one workspace registry; nothing listens until `start`. */
export function buildServer(config: Config, deps: ServerDeps = {}): MiniSphereServer {
  const clock = deps.clock ?? Date.now;
  const redis = !deps.bus && config.redisUrl ? createRedisTarget(config.redisUrl) : null;
  const bus = deps.bus ?? new EventBus(redis?.target);
  // Only a bus that can drop messages (Redis) needs subscribers to look at the log while idle.
  const realtime = { pollMs: redis ? 1_000 : 0, bufferMax: 1_000 };
  const multicast = new Multicast(bus.streams, realtime.bufferMax);
  const registry = new WorkspaceRegistry({
    dataDir: config.dataDir,
    dbUrl: config.dbUrl,
    dbAuthToken: config.dbAuthToken,
    clock,
    onQuery: deps.onQuery,
    onCommit: (events) => bus.publish(events),
  });
  let controlStore: Promise<ControlStore> | null = null;
  const control = () => {
    controlStore ??= ControlStore.open(config, clock);
    controlStore.catch(() => {
      controlStore = null;
    });
    return controlStore;
  };
  const rateLimiter = new RateLimiter(clock);
  const logger = deps.logger ?? createLogger(config.logLevel);
  const metrics = createMetrics(registry, bus);
  // The dashboard at / is a client of the public API, bundled from web/ on first request.
  const dashboard = createDashboardHandler({ onBuildError: (err) => logger.error({ err }, 'dashboard build failed') });
  const playground = createPlayground({ endpoint: GRAPHQL_PATH, title: 'Mini-Sphere' });
  const sockets = new Cap(config.maxSocketsPerClient);
  const subscriptions = new Cap(config.maxSubscriptionsPerWorkspace);

  let authenticatorP: Promise<Authenticator> | null = null;
  const authenticator = () => {
    authenticatorP ??= control().then((c) => new Authenticator(c, { authRequired: config.authRequired }));
    authenticatorP.catch(() => {
      authenticatorP = null;
    });
    return authenticatorP;
  };
  /** Open or token mode: a state of the control store (and SPHERE_AUTH), the same for every request. */
  const tokenMode = async () => (await authenticator()).tokenMode();
  // Introspection's default follows the mode as the control store last read it.
  let knownTokenMode = config.authRequired;
  const refreshMode = async () => {
    knownTokenMode = await tokenMode();
    return knownTokenMode;
  };

  /** Authenticates, and logs and counts refused credentials (token id or "unknown", never the token). */
  const authenticate = async (creds: Credentials, peer: string | undefined): Promise<Access> => {
    try {
      return await (await authenticator()).authenticate(creds);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'UNAUTHENTICATED') {
        const presented = typeof creds.authorization === 'string' && creds.authorization !== '';
        const token = presented ? /^Bearer\s+(\S+)/i.exec(creds.authorization as string)?.[1] : undefined;
        const reason = presented ? 'invalid' : 'missing';
        metrics.authRefused.inc({ reason });
        logger[presented ? 'warn' : 'info'](
          { tokenId: presented ? tokenIdOf(token ?? '') : null, peer, reason },
          'credentials refused',
        );
      }
      throw error;
    }
  };

  const createContext = async (initial: YogaInitialContext & WsInitialContext): Promise<Context> => {
    const access = await authenticate(credentialsOf(initial), peerOf(initial as { req?: IncomingMessage }));
    const workspace = await registry.get(access.workspaceId);
    const store = await control();
    const rateLimit = config.rateLimit ?? (access.role === 'open' ? 0 : DEFAULT_TOKEN_RATE_LIMIT);
    return {
      access,
      workspace,
      loaders: createLoaders(workspace.db),
      bus,
      realtime,
      now: clock,
      takeWriteQuota: () => rateLimiter.take(access.workspaceId, rateLimit),
      audit: (action, details) =>
        store.audit({ tokenId: access.tokenId, workspace: access.workspaceId, action, details }),
    };
  };
  const tokenStillValid = async (access: Access, token: string) => {
    const now = await (await control()).verify(token);
    return now?.tokenId === access.tokenId;
  };

  const yoga = createYoga<Record<string, unknown>, Context>({
    schema: buildSchema(),
    graphqlEndpoint: GRAPHQL_PATH,
    context: async (initial) => {
      try {
        return await createContext(initial as YogaInitialContext & WsInitialContext);
      } catch (error) {
        throw error instanceof DomainError ? toGraphQLError(error) : error;
      }
    },
    maskedErrors: {
      maskError: (error, message) => {
        const masked = maskError(error, message);
        if ((masked as GraphQLError).extensions?.code === 'INTERNAL_SERVER_ERROR') {
          const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
          logger.error({ err: original, path: (error as GraphQLError).path }, 'unexpected error');
        }
        return masked;
      },
    },
    // GraphiQL is served by the playground handler below, with its own headers.
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
      useCodedRefusals(),
      useObservability(logger, metrics),
      useErrorCodes(),
      useCsrfPrevention(['x-graphql-yoga-csrf', 'x-workspace', 'authorization']),
      useSseSubscriptionGuards({
        cap: subscriptions,
        recheckMs: TOKEN_RECHECK_MS,
        tokenStillValid: async (ctx) => {
          const header = (ctx as Context & { request?: Request }).request?.headers.get('authorization') ?? '';
          const token = /^Bearer\s+(\S+)/i.exec(header)?.[1];
          return token !== undefined && (await tokenStillValid(ctx.access, token));
        },
      }),
      ...documentLimitPlugins({ introspection: () => config.introspection ?? !knownTokenMode }),
    ],
  });

  const direct =
    deps.directPost === false
      ? null
      : createDirectPost(yoga, {
          path: GRAPHQL_PATH,
          onError: (err) => logger.error({ err }, 'unexpected error'),
        });

  const health = async (res: ServerResponse) => {
    const open = await registry.opened();
    const checks = await Promise.allSettled([
      control().then((c) => c.tokensExist()),
      ...open.map((ws) => ws.client.execute('SELECT 1')),
    ]);
    // A workspace whose database could not be opened lately counts as failing too.
    const failed = checks.filter((c) => c.status === 'rejected').length + registry.recentFailures().length;
    res.writeHead(failed ? 503 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: failed ? 'unavailable' : 'ok', workspaces: open.length, failed }));
  };

  /** /metrics: open on loopback in open mode; with tokens, only for SPHERE_METRICS_TOKEN, or off. */
  const serveMetrics = async (req: IncomingMessage, res: ServerResponse) => {
    if (knownTokenMode) {
      if (!config.metricsToken) {
        sendJsonError(res, 404, 'metrics are off in token mode; set SPHERE_METRICS_TOKEN to serve them', 'NOT_FOUND');
        return;
      }
      const given = Buffer.from(String(req.headers.authorization ?? ''));
      const wanted = Buffer.from(`Bearer ${config.metricsToken}`);
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
        metrics.authRefused.inc({ reason: 'metrics' });
        logger.warn({ peer: req.socket.remoteAddress, reason: 'metrics' }, 'credentials refused');
        sendJsonError(res, 401, 'metrics need Authorization: Bearer $SPHERE_METRICS_TOKEN', 'UNAUTHENTICATED');
        return;
      }
    }
    const text = await metrics.registry.metrics();
    res.writeHead(200, { 'content-type': metrics.registry.contentType });
    res.end(text);
  };

  /** Whether GraphiQL is served: SPHERE_PLAYGROUND, else on in open mode and off with tokens. */
  const playgroundOn = () => config.playground ?? !knownTokenMode;

  const route = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/health' && (req.method === 'GET' || req.method === 'HEAD')) {
      void health(res);
      return;
    }
    if (path === '/metrics' && req.method === 'GET') {
      void serveMetrics(req, res);
      return;
    }
    if (path === '/' || path === '/index.html' || path === '/app.js' || path === '/app.css') {
      void dashboard(req, res).then((served) => {
        if (!served) void yoga.requestListener(req, res);
      });
      return;
    }
    if (playground.wants(req)) {
      if (playgroundOn()) playground.serve(req, res);
      else sendJsonError(res, 404, 'the playground is off in token mode; set SPHERE_PLAYGROUND=on', 'NOT_FOUND');
      return;
    }
    if (req.method === 'POST') {
      // Bodies are bounded before anything reads them: a stated length over the cap is
      // refused at once, and a body without a stated length is not accepted at all.
      const length = req.headers['content-length'];
      if (length === undefined) {
        sendJsonError(res, 411, 'a Content-Length header is required', 'BAD_USER_INPUT');
        return;
      }
      if (Number(length) > MAX_BODY_BYTES) {
        sendJsonError(res, 413, `request body is larger than ${MAX_BODY_BYTES} bytes`, 'BAD_USER_INPUT');
        return;
      }
      if (direct?.accepts(req)) {
        void direct.handle(req, res);
        return;
      }
    }
    void yoga.requestListener(req, res);
  };

  /**
   * Every HTTP request and WebSocket upgrade passes the request guard first: the mode is
   * read from the control store (cached for a second), then the peer, Host and Origin are
   * checked against it. Null means go on.
   */
  const admit = async (req: IncomingMessage): Promise<Refusal | null> => {
    const listening = http.address() as AddressInfo | null;
    const refusal = checkRequest(
      {
        headers: req.headers,
        peer: req.socket.remoteAddress,
        listening: { address: listening?.address ?? config.host, port: listening?.port ?? config.port },
      },
      await refreshMode(),
      config.corsOrigins,
    );
    if (refusal) {
      metrics.requestsRefused.inc({ reason: refusal.reason });
      logger.warn(
        { peer: req.socket.remoteAddress, reason: refusal.reason, host: req.headers.host, origin: req.headers.origin },
        'request refused',
      );
    }
    return refusal;
  };
  const controlUnavailable = 'the control database cannot be read right now; retry later';

  let inFlight = 0;
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    res.once('close', () => inFlight--);
    admit(req).then(
      (refusal) => {
        if (refusal) sendJsonError(res, refusal.status, refusal.message, refusal.code);
        else route(req, res);
      },
      (err: unknown) => {
        logger.error({ err }, 'control database unavailable');
        sendJsonError(res, 503, controlUnavailable, 'UNAVAILABLE');
      },
    );
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });
  http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if ((req.url ?? '/').split('?')[0] !== GRAPHQL_PATH) {
      rejectUpgrade(socket, 404, `WebSockets are served at ${GRAPHQL_PATH}`, 'NOT_FOUND');
      return;
    }
    admit(req).then(
      (refusal) => {
        if (refusal) rejectUpgrade(socket, refusal.status, refusal.message, refusal.code);
        else wss.handleUpgrade(req, socket, head, (client) => wss.emit('connection', client, req));
      },
      () => rejectUpgrade(socket, 503, controlUnavailable, 'UNAVAILABLE'),
    );
  });

  // What each socket holds (its place under the socket cap, its subscriptions' places),
  // given back when it closes, whatever else ended them.
  const held = new WeakMap<WebSocket, Set<() => void>>();
  const releaseOnClose = (socket: WebSocket, release: () => void) => {
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
  };

  const ws = useServer<Record<string, unknown>>(
    {
      execute: (args) => (args.rootValue as { execute: (a: ExecutionArgs) => unknown }).execute(args) as never,
      subscribe: async (args) => {
        const root = args.rootValue as {
          subscribe: (a: ExecutionArgs) => unknown;
          shareKey: string | null;
          release: () => void;
        };
        let result: unknown;
        try {
          result = await (root.shareKey
            ? multicast.subscribe(root.shareKey, () => root.subscribe(args) as never)
            : root.subscribe(args));
        } catch (error) {
          root.release();
          throw error;
        }
        if (typeof result !== 'object' || result === null || !(Symbol.asyncIterator in result)) {
          root.release();
          return result as never;
        }
        return onIteratorEnd(result as AsyncIterable<unknown>, root.release) as never;
      },
      connectionInitWaitTimeout: 5_000,
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const socket = ctx.extra.socket;
        const peer = ctx.extra.request.socket.remoteAddress;
        let access: Access;
        try {
          access = await authenticate({ authorization: params.authorization, workspace: params.workspace }, peer);
        } catch (error) {
          // No valid credentials: graphql-ws closes with 4403 Forbidden. Anything else (a bad
          // workspace id) is reported on each operation with its code.
          return !(error instanceof DomainError && error.code === 'UNAUTHENTICATED');
        }
        // Sockets per token, or per peer address in open mode: one client cannot hold them all.
        const release = sockets.acquire(access.tokenId ? `token:${access.tokenId}` : `peer:${peer}`);
        if (!release) {
          socket.close(4429, `Too many connections: at most ${sockets.max} per client`);
          return false;
        }
        releaseOnClose(socket, release);
        const token = typeof params.authorization === 'string' ? params.authorization : null;
        const bearer = token ? /^Bearer\s+(\S+)/i.exec(token)?.[1] : undefined;
        if (access.tokenId && bearer) {
          // A revoked token loses its open sockets too, within a second.
          const timer = setInterval(() => {
            tokenStillValid(access, bearer).then(
              (valid) => {
                if (valid) return;
                clearInterval(timer);
                socket.close(4403, 'Forbidden: token revoked');
              },
              () => {},
            );
          }, TOKEN_RECHECK_MS);
          timer.unref();
          socket.once('close', () => clearInterval(timer));
        }
        return true;
      },
      onSubscribe: async (ctx, _id, params) => {
        if (Object.keys(ctx.subscriptions).length >= MAX_SUBSCRIPTIONS_PER_CONNECTION) {
          return [
            new GraphQLError(`at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions per connection`, {
              extensions: { code: 'RATE_LIMITED' },
            }),
          ];
        }
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
        });
        try {
          const document = parse(params.query);
          const errors = validate(schema, document);
          if (errors.length > 0) return errors.map((e: GraphQLError) => maskError(e, e.message) as GraphQLError);
          const contextValue = (await contextFactory()) as unknown as Context;
          const isSubscription = getOperationAST(document, params.operationName)?.operation === 'subscription';
          const release = isSubscription ? subscriptions.acquire(contextValue.access.workspaceId) : () => {};
          if (!release) return [rateLimitedSubscription(subscriptions)];
          releaseOnClose(ctx.extra.socket, release);
          // Identical live subscriptions in one workspace run once and share their results;
          // replays (sinceSeq) depend on where each subscriber stands, so they run alone.
          const shareKey = /\bsinceSeq\b/.test(params.query)
            ? null
            : JSON.stringify([
                contextValue.access.workspaceId,
                contextValue.access.role,
                params.operationName ?? null,
                params.query,
                params.variables ?? {},
              ]);
          return {
            schema,
            operationName: params.operationName,
            document,
            variableValues: params.variables,
            contextValue,
            rootValue: { execute, subscribe, shareKey, release },
          };
        } catch (error) {
          const masked = maskError(error, 'Unexpected error.');
          return [masked instanceof GraphQLError ? masked : new GraphQLError(masked.message)];
        }
      },
    },
    wss,
  );

  let stopping: Promise<void> | null = null;
  return {
    registry,
    bus,
    http,
    control,
    start: async () => {
      if (!isLoopback(config.host) && !(await tokenMode())) {
        throw new Error(
          `refusing to listen on ${config.host} without tokens: open mode is for loopback only. ` +
            'Create a token (mini-sphere token create --workspace W --role agent) or set HOST=127.0.0.1.',
        );
      }
      await refreshMode();
      return new Promise((resolve, reject) => {
        http.once('error', reject);
        http.listen(config.port, config.host, () => {
          http.off('error', reject);
          const { port } = http.address() as AddressInfo;
          const host = config.host.includes(':') ? `[${config.host}]` : config.host;
          resolve({ url: `http://${host}:${port}${GRAPHQL_PATH}`, port });
        });
      });
    },
    stop: () => {
      stopping ??= (async () => {
        // Stop taking connections, tell every WebSocket client we are going away (1001),
        // let in-flight requests finish (their writes commit and are answered), then close.
        const closed = new Promise<void>((resolve) => http.close(() => resolve()));
        await ws.dispose();
        http.closeIdleConnections();
        const deadline = Date.now() + SHUTDOWN_GRACE_MS;
        while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        await registry.close();
        http.closeAllConnections();
        await closed;
        await redis?.close();
        if (controlStore) (await controlStore.catch(() => null))?.close();
      })();
      return stopping;
    },
  };
}
