import { readFileSync } from 'node:fs';
import type { Config } from '../config.ts';
import { redactUrl } from '../db/remote-failure.ts';
import type { RedisStatus } from '../events/redis.ts';
import type { EmbedderStatus } from '../memory/embeddings/unavailable.ts';
import type { ControlStore } from '../workspaces/control.ts';

/** What a started server tells its operator: where it is, who may use it, where the data is. */
export interface StartupInfo {
  version: string;
  graphql: string;
  dashboard: string;
  /** GraphiQL at the GraphQL URL, for browsers. */
  graphiql: boolean;
  /** The /metrics URL, or null when it is off. */
  metrics: string | null;
  mode: 'open' | 'token' | 'unknown';
  /** Why the server is in that mode. */
  modeReason: string;
  /** The data directory, or the hosted URL template (credentials redacted). */
  data: string;
  /** The control database, when it is not the file in the data directory (redacted). */
  control: string | null;
  /** Redis's URL (redacted) and state; null without REDIS_URL. */
  redis: { url: string; state: RedisStatus['state']; reason: string | null } | null;
  /** The embedder's state; null with SPHERE_EMBEDDINGS off. */
  embeddings: EmbedderStatus | null;
}

/** The version in package.json (two folders up from src/server and from the bundle in dist/server). */
function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Open or token mode, and the reason an operator needs to change it. */
async function modeOf(
  config: Pick<Config, 'authRequired'>,
  control: () => Promise<ControlStore>,
): Promise<Pick<StartupInfo, 'mode' | 'modeReason'>> {
  if (config.authRequired) return { mode: 'token', modeReason: 'SPHERE_AUTH=required' };
  try {
    const tokens = await (await control()).listTokens();
    const live = tokens.filter((t) => t.revokedAt === null).length;
    if (live > 0) return { mode: 'token', modeReason: live === 1 ? '1 token exists' : `${live} tokens exist` };
    if (tokens.length > 0) {
      return {
        mode: 'token',
        modeReason: 'every token is revoked; `mini-sphere token reset --open` returns to open mode',
      };
    }
    return { mode: 'open', modeReason: 'no tokens; loopback only' };
  } catch (error) {
    return { mode: 'unknown', modeReason: `the control database cannot be read: ${(error as Error).message}` };
  }
}

/** Gathers what the banner shows, once the server listens at `url` (the real port, also after PORT=0). */
export async function describeStartup(
  config: Config,
  url: string,
  server: {
    control(): Promise<ControlStore>;
    redis: { settled(ms: number): Promise<RedisStatus> } | null;
    semantic(): { status(): EmbedderStatus } | null;
  },
): Promise<StartupInfo> {
  // A second is enough to connect to a reachable Redis; an unreachable one is reported as such.
  const [mode, redis] = await Promise.all([modeOf(config, server.control), server.redis?.settled(1_000)]);
  const tokenMode = mode.mode !== 'open';
  const metricsOn = !tokenMode || config.metricsToken !== null;
  return {
    version: version(),
    graphql: url,
    dashboard: new URL('/', url).href,
    graphiql: config.playground ?? !tokenMode,
    metrics: metricsOn ? new URL('/metrics', url).href : null,
    ...mode,
    data: config.dbUrl ? redactUrl(config.dbUrl) : config.dataDir,
    control: config.controlDbUrl ? redactUrl(config.controlDbUrl) : null,
    redis:
      config.redisUrl && redis ? { url: redactUrl(config.redisUrl), state: redis.state, reason: redis.reason } : null,
    embeddings: server.semantic()?.status() ?? null,
  };
}

/**
 * The banner, for people: the first line is the one scripts wait for ("listening on
 * <GraphQL URL>"), the rest one setting per line.
 */
export function formatBanner(info: StartupInfo, config: Pick<Config, 'dbAuthToken'>): string {
  const redis = info.redis
    ? `${info.redis.url} (${info.redis.state === 'down' ? `unreachable: ${info.redis.reason}; retrying` : info.redis.state === 'up' ? 'reachable' : 'connecting'})`
    : 'off (events stay in this process)';
  const data = info.data.includes('{workspace}')
    ? `hosted libSQL ${info.data} (SPHERE_DB_AUTH_TOKEN ${config.dbAuthToken ? 'set' : 'not set'})`
    : info.data;
  const lines = [
    `Mini-Sphere ${info.version} listening on ${info.graphql}`,
    `  dashboard  ${info.dashboard}`,
    `  graphql    ${info.graphql}${info.graphiql ? ' (GraphiQL in a browser)' : ''}`,
    `  metrics    ${info.metrics ?? 'off in token mode (set SPHERE_METRICS_TOKEN to serve /metrics)'}`,
    `  mode       ${info.mode} (${info.modeReason})`,
    `  data       ${data}`,
    ...(info.control ? [`  control    ${info.control}`] : []),
    `  redis      ${redis}`,
    ...(info.embeddings ? [`  embeddings ${embeddingsLine(info.embeddings)}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

function embeddingsLine(e: EmbedderStatus): string {
  return e.state === 'ready'
    ? `${e.model} (${e.dim} dimensions)`
    : `${e.model} (unavailable: ${e.reason}; recall by keyword only, retrying)`;
}
