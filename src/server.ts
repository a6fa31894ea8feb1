import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { type ExecutionArgs, GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { createYoga, type YogaInitialContext } from 'graphql-yoga';
import { WebSocketServer } from 'ws';
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
import { Authenticator, type Credentials, isLoopback } from './workspaces/auth.ts';
import { ControlStore } from './workspaces/control.ts';
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

function sendJsonError(res: ServerResponse, status: number, message: string, code: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
  res.end(JSON.stringify({ errors: [{ message, extensions: { code } }] }));
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
  // Introspection and the rate limit follow the mode the last request found.
  let tokenModeSeen = config.authRequired;

  const authenticator = async () => new Authenticator(await control(), { authRequired: config.authRequired });
  const authenticate = async (creds: Credentials) => {
    const access = await (await authenticator()).authenticate(creds);
    tokenModeSeen = access.role !== 'open';
    return access;
  };

  const createContext = async (initial: YogaInitialContext & WsInitialContext): Promise<Context> => {
    const access = await authenticate(credentialsOf(initial));
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
    graphiql: config.playground ? { subscriptionsProtocol: 'WS', title: 'Mini-Sphere' } : false,
    renderGraphiQL,
    landingPage: false,
    healthCheckEndpoint: '/__yoga_health',
    logging: false,
    plugins: [
      useObservability(logger, metrics),
      useErrorCodes(),
      useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf', 'x-workspace', 'authorization'] }),
      ...documentLimitPlugins({ introspection: () => config.introspection ?? !tokenModeSeen }),
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

  let inFlight = 0;
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    res.once('close', () => inFlight--);
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/health' && (req.method === 'GET' || req.method === 'HEAD')) {
      void health(res);
      return;
    }
    if (path === '/metrics' && req.method === 'GET') {
      void metrics.registry.metrics().then((text) => {
        res.writeHead(200, { 'content-type': metrics.registry.contentType });
        res.end(text);
      });
      return;
    }
    if (path === '/' || path === '/index.html' || path === '/app.js' || path === '/app.css') {
      void dashboard(req, res).then((served) => {
        if (!served) void yoga.requestListener(req, res);
      });
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
  });

  const wss = new WebSocketServer({ server: http, path: GRAPHQL_PATH, maxPayload: MAX_BODY_BYTES });
  const ws = useServer<Record<string, unknown>>(
    {
      execute: (args) => (args.rootValue as { execute: (a: ExecutionArgs) => unknown }).execute(args) as never,
      subscribe: (args) => {
        const root = args.rootValue as { subscribe: (a: ExecutionArgs) => unknown; shareKey: string | null };
        if (!root.shareKey) return root.subscribe(args) as never;
        return multicast.subscribe(root.shareKey, () => root.subscribe(args) as never) as never;
      },
      connectionInitWaitTimeout: 5_000,
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        let access: Awaited<ReturnType<typeof authenticate>>;
        try {
          access = await authenticate({ authorization: params.authorization, workspace: params.workspace });
        } catch (error) {
          // No valid credentials: graphql-ws closes with 4403 Forbidden. Anything else (a bad
          // workspace id) is reported on each operation with its code.
          return !(error instanceof DomainError && error.code === 'UNAUTHENTICATED');
        }
        const token = typeof params.authorization === 'string' ? params.authorization : null;
        if (access.tokenId && token) {
          // A revoked token loses its open sockets too, within a second.
          const timer = setInterval(() => {
            authenticate({ authorization: token, workspace: null }).catch(() => {
              clearInterval(timer);
              ctx.extra.socket.close(4403, 'Forbidden: token revoked');
            });
          }, TOKEN_RECHECK_MS);
          timer.unref();
          ctx.extra.socket.once('close', () => clearInterval(timer));
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
            rootValue: { execute, subscribe, shareKey },
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
      if (!isLoopback(config.host) && !(await (await authenticator()).tokenMode())) {
        throw new Error(
          `refusing to listen on ${config.host} without tokens: open mode is for loopback only. ` +
            'Create a token (mini-sphere token create --workspace W --role agent) or set HOST=127.0.0.1.',
        );
      }
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
        metrics.close();
        http.closeAllConnections();
        await closed;
        await redis?.close();
        if (controlStore) (await controlStore.catch(() => null))?.close();
      })();
      return stopping;
    },
  };
}
