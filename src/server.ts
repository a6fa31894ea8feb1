import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { type ExecutionArgs, GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { createYoga, type YogaInitialContext } from 'graphql-yoga';
import { WebSocketServer } from 'ws';
import type { Config } from './config.ts';
import type { QueryListener } from './db/client.ts';
import { EventBus } from './events/bus.ts';
import { createRedisTarget } from './events/redis.ts';
import type { Context } from './graphql/context.ts';
import { maskError, toGraphQLError } from './graphql/errors.ts';
import { createLoaders } from './graphql/loaders.ts';
import { buildSchema } from './graphql/schema.ts';
import { DomainError } from './memory/errors.ts';
import { openAccess } from './workspaces/access.ts';
import { WorkspaceRegistry } from './workspaces/registry.ts';

export const GRAPHQL_PATH = '/graphql';
/** Largest accepted WebSocket message. */
export const MAX_WS_PAYLOAD = 1024 * 1024;
/** Subscriptions one WebSocket connection may hold at once. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;
/** How long shutdown waits for in-flight HTTP requests before cutting them. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface MiniSphereServer {
  /** Listens on the configured host and port (0 picks a free port). */
  start(): Promise<{ url: string; port: number }>;
  /** Stops taking requests, finishes in-flight writes, closes every socket (1001) and database. */
  stop(): Promise<void>;
  readonly registry: WorkspaceRegistry;
  readonly bus: EventBus;
  readonly http: Server;
}

export interface ServerDeps {
  /** Where events travel between the writer and subscribers (Redis fans them out across instances). */
  bus?: EventBus;
  clock?: () => number;
  /** Sees every SQL statement run through drizzle. */
  onQuery?: QueryListener;
}

/** What graphql-ws passes as the envelop's initial context. */
interface WsInitialContext {
  connectionParams?: Readonly<Record<string, unknown>>;
}

/** Builds the HTTP + WebSocket server over one workspace registry; nothing listens until `start`. */
export function buildServer(config: Config, deps: ServerDeps = {}): MiniSphereServer {
  const clock = deps.clock ?? Date.now;
  const redis = !deps.bus && config.redisUrl ? createRedisTarget(config.redisUrl) : null;
  const bus = deps.bus ?? new EventBus(redis?.target);
  // Only a bus that can drop messages (Redis) needs subscribers to look at the log while idle.
  const realtime = { pollMs: redis ? 1_000 : 0, bufferMax: 1_000 };
  const registry = new WorkspaceRegistry({
    dataDir: config.dataDir,
    dbUrl: config.dbUrl,
    dbAuthToken: config.dbAuthToken,
    clock,
    onQuery: deps.onQuery,
    onCommit: (events) => bus.publish(events),
  });

  const createContext = async (initial: YogaInitialContext & WsInitialContext): Promise<Context> => {
    const hint = initial.connectionParams
      ? initial.connectionParams.workspace
      : initial.request?.headers.get('x-workspace');
    const access = openAccess(hint);
    const workspace = await registry.get(access.workspaceId);
    return { access, workspace, loaders: createLoaders(workspace.db), bus, realtime, now: clock };
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
    maskedErrors: { maskError },
    graphiql: config.playground ? { subscriptionsProtocol: 'WS', title: 'Mini-Sphere' } : false,
    renderGraphiQL,
    landingPage: false,
    healthCheckEndpoint: '/__yoga_health',
    logging: false,
  });

  const health = async (res: ServerResponse) => {
    const open = await registry.opened();
    const checks = await Promise.allSettled(open.map((ws) => ws.client.execute('SELECT 1')));
    const failed = checks.filter((c) => c.status === 'rejected').length;
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
    void yoga.requestListener(req, res);
  });

  const wss = new WebSocketServer({ server: http, path: GRAPHQL_PATH, maxPayload: MAX_WS_PAYLOAD });
  const ws = useServer<Record<string, unknown>>(
    {
      execute: (args) => (args.rootValue as { execute: (a: ExecutionArgs) => unknown }).execute(args) as never,
      subscribe: (args) => (args.rootValue as { subscribe: (a: ExecutionArgs) => unknown }).subscribe(args) as never,
      connectionInitWaitTimeout: 5_000,
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
          if (errors.length > 0) return errors;
          return {
            schema,
            operationName: params.operationName,
            document,
            variableValues: params.variables,
            contextValue: await contextFactory(),
            rootValue: { execute, subscribe },
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
    start: () =>
      new Promise((resolve, reject) => {
        http.once('error', reject);
        http.listen(config.port, config.host, () => {
          http.off('error', reject);
          const { port } = http.address() as AddressInfo;
          const host = config.host.includes(':') ? `[${config.host}]` : config.host;
          resolve({ url: `http://${host}:${port}${GRAPHQL_PATH}`, port });
        });
      }),
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
      })();
      return stopping;
    },
  };
}
