import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.ts';
import type { QueryListener } from '../db/client.ts';
import { EventBus } from '../events/bus.ts';
import { createRedisTarget, type RedisStatus } from '../events/redis.ts';
import type { Semantic } from '../memory/embeddings/semantic.ts';
import type { LlmBinding } from '../memory/llm/binding.ts';
import { isLoopback } from '../workspaces/auth.ts';
import { ControlStore } from '../workspaces/control.ts';
import { DataDirRefusal } from '../workspaces/data-dir.ts';
import { type RegistryOptions, WorkspaceRegistry } from '../workspaces/registry.ts';
import { Cap } from './caps.ts';
import { ConnectionLimits, HTTP_TIMEOUTS } from './connections.ts';
import { createContextFactory, Gatekeeper } from './context.ts';
import { FairFanout, fanoutMetrics } from './fanout.ts';
import { answerClientError, createHttpHandler } from './http.ts';
import { impactUpkeep } from './impact-upkeep.ts';
import { startLlm } from './llm.ts';
import { Multicast } from './multicast.ts';
import { countLateRefusal, createLogger, createMetrics, type Logger } from './observability.ts';
import { Rechecks } from './rechecks.ts';
import { listenFailure, openFailureReporter, REPORT_EVERY_MS, redisReporter } from './reports.ts';
import { startSemantic } from './semantic.ts';
import { loadTrustedDocuments } from './trusted-documents.ts';
import { warmUp } from './warm-up.ts';
import { attachWebSockets } from './ws.ts';
import { createGraphQLHandler, GRAPHQL_PATH, TOKEN_RECHECK_MS } from './yoga.ts';

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
  /** The embedding binding once started; null while off (SPHERE_EMBEDDINGS). */
  semantic(): Semantic | null;
  /** The LLM binding once started; null while off (SPHERE_LLM). */
  llm(): LlmBinding | null;
  /** The control database (tokens, audit log), opened on first use. */
  control(): Promise<ControlStore>;
  /** Redis's state (null without REDIS_URL); `settled` waits up to `ms` for the first connection to succeed or fail. */
  redis: { status(): RedisStatus; settled(ms: number): Promise<RedisStatus> } | null;
  readonly logger: Logger;
}

export interface ServerDeps {
  /** Where events travel between the writer and subscribers (Redis fans them out across instances). */
  bus?: EventBus;
  clock?: () => number;
  /** Sees every SQL statement run through drizzle. */
  onQuery?: QueryListener;
  logger?: Logger;
  /** Answer plain JSON POSTs without fetch-API objects (default true); false sends all through Yoga. */
  directPost?: boolean;
}

/** Listens on the configured host and port; resolves with the GraphQL URL and the port. */
function listen(http: Server, config: Config): Promise<{ url: string; port: number }> {
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) => reject(listenFailure(error, config));
    http.once('error', fail);
    http.listen(config.port, config.host, () => {
      http.off('error', fail);
      const { port } = http.address() as AddressInfo;
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      resolve({ url: `http://${host}:${port}${GRAPHQL_PATH}`, port });
    });
  });
}

/** The control database, opened on first use; a failed open is tried again on the next use. */
function lazyControl(config: Config, clock: () => number): (() => Promise<ControlStore>) & { close(): Promise<void> } {
  let store: Promise<ControlStore> | null = null;
  const open = () => {
    store ??= ControlStore.open(config, clock);
    store.catch(() => {
      store = null;
    });
    return store;
  };
  return Object.assign(open, {
    close: async () => {
      if (store) (await store.catch(() => null))?.close();
    },
  });
}

/** Where committed events go: subscribers, and the embedding and LLM queues once they run. */
function eventSink(bus: EventBus) {
  let semantic: Semantic | null = null;
  let llm: LlmBinding | null = null;
  return {
    semantic: () => semantic,
    llm: () => llm,
    set: (s: Semantic | null) => {
      semantic = s;
    },
    setLlm: (l: LlmBinding | null) => {
      llm = l;
    },
    onCommit: (events: Parameters<EventBus['publish']>[0]) => {
      bus.publish(events);
      semantic?.onCommitted(events);
      llm?.onCommitted(events);
    },
  };
}

/** The event bus: the one given, in-process, or fanned out through Redis (whose trouble goes to the log). */
function createBus(config: Config, deps: ServerDeps, logger: Logger) {
  if (deps.bus || !config.redisUrl) return { bus: deps.bus ?? new EventBus(), redis: null };
  const redis = createRedisTarget(config.redisUrl, { report: redisReporter(logger), reportEveryMs: REPORT_EVERY_MS });
  return { bus: new EventBus(redis.target), redis };
}

/** The workspace registry; databases that fail to open are reported in the log. */
function createRegistry(
  config: Config,
  deps: Pick<ServerDeps, 'onQuery'> & { clock: () => number; logger: Logger },
  onCommit: RegistryOptions['onCommit'],
): WorkspaceRegistry {
  return new WorkspaceRegistry({
    dataDir: config.dataDir,
    dbUrl: config.dbUrl,
    dbAuthToken: config.dbAuthToken,
    clock: deps.clock,
    onQuery: deps.onQuery,
    onCommit,
    maxOpen: config.maxOpenWorkspaces,
    writerThread: config.writerThread,
    readerThreads: config.readerThreads,
    onOpenFailure: openFailureReporter(deps.logger),
  });
}

/** Open mode trusts whoever can connect, so it listens on loopback only. */
async function refuseOpenModeOffLoopback(config: Config, gate: Gatekeeper): Promise<void> {
  if (!isLoopback(config.host) && !(await gate.tokenMode())) {
    throw new Error(
      `refusing to listen on ${config.host} without tokens: open mode is for loopback only. ` +
        'Create a token (mini-sphere token create --workspace W --role agent) or set HOST=127.0.0.1.',
    );
  }
}

/** Builds the HTTP + WebSocket server over one workspace registry; nothing listens until `start`. */
export function buildServer(config: Config, deps: ServerDeps = {}): MiniSphereServer {
  const clock = deps.clock ?? Date.now;
  const logger = deps.logger ?? createLogger(config.logLevel);
  const { bus, redis } = createBus(config, deps, logger);
  // Only a bus that can drop messages (Redis) needs subscribers to look at the log while idle.
  const realtime = { pollMs: redis ? 1_000 : 0, bufferMax: 1_000 };
  const sink = eventSink(bus);
  const registry = createRegistry(config, { ...deps, clock, logger }, sink.onCommit);
  const control = lazyControl(config, clock);
  const metrics = createMetrics(registry, bus);
  const gate = new Gatekeeper({ control, authRequired: config.authRequired, logger, metrics });
  const subscriptions = new Cap(config.maxSubscriptionsPerWorkspace);
  // WebSockets and server-sent-event streams count alike against their client's cap.
  const sockets = new Cap(config.maxSocketsPerClient);
  const rechecks = new Rechecks(TOKEN_RECHECK_MS);
  const connections = new ConnectionLimits({
    max: config.maxConnections,
    maxUnauthenticatedPerPeer: config.maxUnauthenticatedPerPeer,
    onRefused: (reason, peer) => {
      metrics.requestsRefused.inc({ reason });
      logger.warn({ peer, reason }, 'connection refused');
    },
  });
  const contextDeps = {
    gate,
    registry,
    control,
    bus,
    realtime,
    clock,
    config,
    semantic: sink.semantic,
    llm: sink.llm,
    connections,
  };
  const createContext = createContextFactory(contextDeps);
  const trusted = config.trustedDocuments ? loadTrustedDocuments(config.trustedDocuments) : null;
  const yoga = createGraphQLHandler({
    config,
    gate,
    createContext,
    subscriptions,
    sockets,
    rechecks,
    logger,
    metrics,
    trusted,
  });
  const controlHealthy = () => control().then((c) => c.tokensExist());
  // Asked on every request by the request guard; once bound it never changes, and asking the
  // socket is a system call.
  let bound: AddressInfo | null = null;
  const address = () => (bound ??= http.address() as AddressInfo | null);
  // Trusted documents refuse every query text, which the direct path would only hand to Yoga.
  const directPost = deps.directPost !== false && !trusted;
  const handler = createHttpHandler({
    config,
    yoga,
    gate,
    registry,
    controlHealthy,
    logger,
    metrics,
    directPost,
    address,
    redis: () => redis?.status() ?? null,
    embeddings: () => sink.semantic()?.status() ?? null,
    llm: () => sink.llm()?.status() ?? null,
  });
  const http = createServer(HTTP_TIMEOUTS, handler.listener);
  http.on('clientError', answerClientError);
  connections.attach(http);
  const multicast = new Multicast(bus.streams, realtime.bufferMax, new FairFanout(fanoutMetrics(metrics.registry)));
  const admit = handler.admit;
  const ws = attachWebSockets(http, {
    yoga,
    gate,
    multicast,
    sockets,
    subscriptions,
    rechecks,
    connections,
    admit,
    trusted,
    maxResponseBytes: config.maxResponseBytes,
    onRefused: countLateRefusal(metrics),
  });

  const upkeep = impactUpkeep(registry, config.impact, logger);
  let stopping: Promise<void> | null = null;
  return {
    registry,
    bus,
    http,
    control,
    redis,
    logger,
    semantic: sink.semantic,
    llm: sink.llm,
    start: async () => {
      // A control database the server must never use (a link out of the data directory,
      // another program's file) stops it here, with the reason; any other failure to open
      // it is retried on use and shows in /health.
      await control().catch((error: unknown) => {
        if (error instanceof DataDirRefusal) throw error;
      });
      await refuseOpenModeOffLoopback(config, gate);
      if (!sink.semantic()) sink.set(await startSemantic(config, logger));
      if (!sink.llm()) sink.setLlm(startLlm(config, logger, sink.semantic, (id) => registry.exists(id)));
      upkeep.start();
      warmUp(yoga);
      return listen(http, config);
    },
    stop: () => {
      stopping ??= (async () => {
        // Stop taking connections, tell every WebSocket client we are going away (1001),
        // let in-flight requests finish (their writes commit and are answered), then close.
        const closed = new Promise<void>((resolve) => http.close(() => resolve()));
        await ws.dispose();
        http.closeIdleConnections();
        const deadline = Date.now() + SHUTDOWN_GRACE_MS;
        while (handler.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        await Promise.all([sink.semantic()?.close(), sink.llm()?.close(), upkeep.stop()]);
        await registry.close();
        http.closeAllConnections();
        await closed;
        await redis?.close();
        metrics.close();
        await control.close();
      })();
      return stopping;
    },
  };
}
