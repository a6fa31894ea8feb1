import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Config } from '../config.ts';
import type { RedisStatus } from '../events/redis.ts';
import type { EmbedderStatus } from '../memory/embeddings/unavailable.ts';
import type { LlmStatus } from '../memory/llm/binding.ts';
import type { WorkspaceRegistry } from '../workspaces/registry.ts';
import { admitCaller, jsonNestsDeeper, queryNestsDeeper, TOO_DEEP } from './caller.ts';
import type { Gatekeeper } from './context.ts';
import { createDashboardHandler } from './dashboard.ts';
import { createDirectPost } from './direct-post.ts';
import { BAD_TARGET, checkRequest, type Refusal, rawRefusal, refusalBody, toOriginForm } from './guard.ts';
import type { Logger, Metrics } from './observability.ts';
import { createPlayground } from './playground.ts';
import { GRAPHQL_PATH, type Yoga } from './yoga.ts';

/** Largest accepted request body and WebSocket message. */
export const MAX_BODY_BYTES = 1024 * 1024;

export function sendJsonError(res: ServerResponse, status: number, message: string, code: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
  res.end(refusalBody({ message, code }));
}

export const CONTROL_UNAVAILABLE = 'the control database cannot be read right now; retry later';

export interface HttpDeps {
  config: Pick<Config, 'host' | 'port' | 'corsOrigins' | 'metricsToken' | 'playground'>;
  yoga: Yoga;
  gate: Gatekeeper;
  registry: WorkspaceRegistry;
  /** Answers for the control database in /health. */
  controlHealthy: () => Promise<unknown>;
  logger: Logger;
  metrics: Metrics;
  /** Answer plain JSON POSTs without fetch-API objects (see direct-post.ts). */
  directPost: boolean;
  /** Where the server listens, once it does. */
  address: () => AddressInfo | null;
  /** Redis's state for /health; null when events stay in this process. */
  redis?: () => RedisStatus | null;
  /** The embedder's state for /health; null with SPHERE_EMBEDDINGS off. */
  embeddings?: () => EmbedderStatus | null;
  /** The LLM binding's state for /health; null with SPHERE_LLM off. */
  llm?: () => LlmStatus | null;
}

export interface HttpHandler {
  listener: RequestListener;
  /** The request guard, for WebSocket upgrades too: null means go on. */
  admit(req: IncomingMessage): Promise<Refusal | null>;
  /** HTTP requests being answered now. */
  readonly inFlight: number;
}

async function answerHealth(deps: HttpDeps, res: ServerResponse): Promise<void> {
  const [control, open] = await Promise.all([
    deps.controlHealthy().then(
      () => 0,
      () => 1,
    ),
    deps.registry.probe(),
  ]);
  // A workspace whose database could not be opened lately counts as failing too.
  const failed = control + open.failed + deps.registry.recentFailures().length;
  // Redis down still serves every request here (events reach other instances through the
  // log), so it is `degraded` with 200: a load balancer keeps the instance, a person sees why.
  // So is an embedder not reached yet: recall runs on keywords, captures are stored.
  const redis = deps.redis?.() ?? null;
  const embeddings = deps.embeddings?.() ?? null;
  const llm = deps.llm?.() ?? null;
  const reasons: string[] = [];
  if (redis?.state === 'down') {
    reasons.push(
      `redis unreachable (${redis.reason}, ${redis.attempts} reconnection attempts): events reach other instances only through the event log`,
    );
  }
  if (embeddings?.state === 'unavailable') {
    reasons.push(
      `embeddings unavailable (${embeddings.reason}, ${embeddings.attempts} attempts): recall is by keyword only; vectors are filled in once the embedder answers`,
    );
  }
  // The LLM binding is never on a request's path: its endpoint down only delays its queue.
  if (llm?.state === 'degraded') {
    reasons.push(
      `LLM endpoint failing (${llm.reason}, ${llm.failures} failures): captures are stored; classification and contradiction checks wait for it`,
    );
  }
  const status = failed ? 'unavailable' : reasons.length > 0 ? 'degraded' : 'ok';
  const body: Record<string, unknown> = { status, workspaces: open.open, failed };
  if (redis) body.redis = redis;
  if (embeddings) body.embeddings = embeddings;
  if (llm) body.llm = llm;
  if (reasons.length > 0) body.reasons = reasons;
  res.writeHead(failed ? 503 : 200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** /metrics: open on loopback in open mode; with tokens, only for SPHERE_METRICS_TOKEN, or off. */
async function answerMetrics(deps: HttpDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { config, gate, metrics } = deps;
  if (gate.knownTokenMode) {
    if (!config.metricsToken) {
      sendJsonError(res, 404, 'metrics are off in token mode; set SPHERE_METRICS_TOKEN to serve them', 'NOT_FOUND');
      return;
    }
    const given = Buffer.from(String(req.headers.authorization ?? ''));
    const wanted = Buffer.from(`Bearer ${config.metricsToken}`);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
      gate.refused(req.headers.authorization, req.socket.remoteAddress, 'metrics');
      sendJsonError(res, 401, 'metrics need Authorization: Bearer $SPHERE_METRICS_TOKEN', 'UNAUTHENTICATED');
      return;
    }
  }
  const text = await metrics.registry.metrics();
  res.writeHead(200, { 'content-type': metrics.registry.contentType });
  res.end(text);
}

/** Bodies are bounded before anything reads them: a stated length over the cap is refused at once, and none at all is not accepted. */
function refuseBody(req: IncomingMessage, res: ServerResponse): boolean {
  const length = req.headers['content-length'];
  if (length === undefined) {
    sendJsonError(res, 411, 'a Content-Length header is required', 'BAD_USER_INPUT');
    return true;
  }
  if (Number(length) > MAX_BODY_BYTES) {
    sendJsonError(res, 413, `request body is larger than ${MAX_BODY_BYTES} bytes`, 'BAD_USER_INPUT');
    return true;
  }
  return false;
}

/** The whole body of a request whose length `refuseBody` has bounded. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/**
 * A GraphQL request over HTTP (POST, GET, and server-sent events, which are either): the
 * caller is authenticated from the headers first, then the body is bounded in size and in
 * nesting before anything parses it, then the direct path or Yoga answers it.
 */
async function answerGraphQL(
  deps: HttpDeps,
  direct: ReturnType<typeof createDirectPost> | null,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (!(await admitCaller(deps.gate, req, res, deps.config.corsOrigins))) return;
  if (req.method !== 'POST') {
    if (queryNestsDeeper(req.url)) sendJsonError(res, 400, TOO_DEEP, 'BAD_USER_INPUT');
    else await deps.yoga.requestListener(req, res);
    return;
  }
  if (refuseBody(req, res)) return;
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    // Nothing decodes bodies here: a compressed one would reach the parser as bytes, and
    // one decoded would escape the size and nesting bounds above.
    sendJsonError(res, 415, 'request bodies are read as sent: send them without Content-Encoding', 'BAD_USER_INPUT');
    return;
  }
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch {
    res.destroy();
    return;
  }
  if (jsonNestsDeeper(body.toString('utf8'))) {
    sendJsonError(res, 400, TOO_DEEP, 'BAD_USER_INPUT');
  } else if (direct?.accepts(req)) {
    // As Yoga's answers do (useVaryOrigin): with origins listed, CORS headers depend on Origin.
    if (deps.config.corsOrigins.length > 0) res.setHeader('vary', 'Origin');
    await direct.handle(req, res, body);
  } else {
    // Yoga reads a body already taken from the stream from `req.body`.
    (req as IncomingMessage & { body?: Buffer }).body = body;
    await deps.yoga.requestListener(req, res);
  }
}

const DASHBOARD_PATHS = new Set(['/', '/index.html', '/app.js', '/app.css']);

const isHealth = (req: IncomingMessage) =>
  (req.method === 'GET' || req.method === 'HEAD') && (req.url ?? '/').split('?')[0] === '/health';

/** Routes an admitted request: /health, /metrics, the dashboard, GraphiQL, then GraphQL itself. */
function createRouter(deps: HttpDeps): RequestListener {
  const { config, yoga, gate, logger } = deps;
  const dashboard = createDashboardHandler({ onBuildError: (err) => logger.error({ err }, 'dashboard build failed') });
  const playground = createPlayground({
    endpoint: GRAPHQL_PATH,
    title: 'Mini-Sphere',
    tokenMode: () => gate.knownTokenMode,
  });
  const direct = deps.directPost
    ? createDirectPost(yoga, { path: GRAPHQL_PATH, onError: (err) => logger.error({ err }, 'unexpected error') })
    : null;
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (isHealth(req)) {
      void answerHealth(deps, res);
    } else if (path === '/metrics' && req.method === 'GET') {
      void answerMetrics(deps, req, res);
    } else if (DASHBOARD_PATHS.has(path)) {
      void dashboard(req, res).then((served) => {
        if (!served) void yoga.requestListener(req, res);
      });
    } else if (playground.wants(req)) {
      // GraphiQL: SPHERE_PLAYGROUND, else on in open mode and off with tokens.
      if (config.playground ?? !gate.knownTokenMode) playground.serve(req, res);
      else sendJsonError(res, 404, 'the playground is off in token mode; set SPHERE_PLAYGROUND=on', 'NOT_FOUND');
    } else if (path === GRAPHQL_PATH && (req.method === 'POST' || req.method === 'GET')) {
      answerGraphQL(deps, direct, req, res).catch((err: unknown) => {
        logger.error({ err }, 'control database unavailable');
        if (!res.headersSent) sendJsonError(res, 503, CONTROL_UNAVAILABLE, 'UNAVAILABLE');
      });
    } else if (req.method === 'POST' && refuseBody(req, res)) {
      // Answered.
    } else if (path === GRAPHQL_PATH) {
      // Preflights and other methods: Yoga answers them, and runs no operation for them.
      void yoga.requestListener(req, res);
    } else {
      // Not Yoga's: it takes any path that ends in /graphql for its endpoint, and would parse
      // and validate a document sent there before the caller is known.
      sendJsonError(res, 404, `no route ${path}; GraphQL is served at ${GRAPHQL_PATH}`, 'NOT_FOUND');
    }
  };
}

/**
 * The request guard as the server applies it to every request and upgrade: the mode is
 * read from the control store (cached for a second), then the peer, Host and Origin are
 * checked against it; refusals are logged and counted. Null means go on.
 */
function createAdmission(deps: HttpDeps): (req: IncomingMessage) => Promise<Refusal | null> {
  const { config, gate, logger, metrics } = deps;
  return async (req) => {
    const listening = deps.address();
    const refusal = checkRequest(
      {
        headers: req.headers,
        peer: req.socket.remoteAddress,
        listening: { address: listening?.address ?? config.host, port: listening?.port ?? config.port },
      },
      await gate.tokenMode(),
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
}

/**
 * What Node's HTTP parser refuses before any handler sees it (a malformed request line
 * or header, headers too large, a request too slow to arrive) gets an answer with a code
 * too, instead of Node's bare status line.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'the request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request did not arrive in time']
        : [400, `the request is not valid HTTP/1.1 (${error.code ?? 'unreadable'}); ${BAD_TARGET}`];
  socket.end(rawRefusal(status, message, 'BAD_REQUEST'));
}

/** HTTP: every request passes the request guard, then the router. */
export function createHttpHandler(deps: HttpDeps): HttpHandler {
  const route = createRouter(deps);
  const admit = createAdmission(deps);
  let inFlight = 0;
  const listener: RequestListener = (req, res) => {
    inFlight++;
    res.once('close', () => inFlight--);
    if (!toOriginForm(req)) {
      sendJsonError(res, 400, BAD_TARGET, 'BAD_REQUEST');
      return;
    }
    admit(req).then(
      (refusal) => {
        if (refusal) sendJsonError(res, refusal.status, refusal.message, refusal.code);
        else route(req, res);
      },
      (err: unknown) => {
        deps.logger.error({ err }, 'control database unavailable');
        // /health keeps its shape whatever state the control database is in (it says unavailable).
        if (isHealth(req)) void answerHealth(deps, res);
        else sendJsonError(res, 503, CONTROL_UNAVAILABLE, 'UNAVAILABLE');
      },
    );
  };
  return {
    listener,
    admit,
    get inFlight() {
      return inFlight;
    },
  };
}
