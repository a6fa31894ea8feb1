import { DomainError } from '../contract/errors.ts';
import type { RedisReporter } from '../events/redis.ts';
import type { Logger } from './observability.ts';

/** How often the same trouble is logged again while it lasts. */
export const REPORT_EVERY_MS = 30_000;

/**
 * Why the server could not listen, as one line that says what to change. Anything else
 * is passed on as it was.
 */
export function listenFailure(error: unknown, where: { host: string; port: number }): unknown {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'EADDRINUSE') {
    return new DomainError(
      'UNAVAILABLE',
      `port ${where.port} is in use on ${where.host}; set PORT to another port (or stop the other server)`,
    );
  }
  if (code === 'EACCES') {
    return new DomainError(
      'UNAVAILABLE',
      `not allowed to listen on port ${where.port}; set PORT to a port above 1023 (or give node the capability to bind it)`,
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new DomainError(
      'UNAVAILABLE',
      `HOST ${where.host} is not an address of this machine; set HOST to one of its addresses (e.g. 127.0.0.1)`,
    );
  }
  return error;
}

/** Redis trouble in the log: a warning when it goes down (repeated every 30 s with the attempt count), a line when it is back. */
export function redisReporter(logger: Logger): RedisReporter {
  return {
    down: (status) =>
      logger.warn(
        { redis: status.state, reason: status.reason, attempts: status.attempts },
        `redis unreachable (${status.reason}, ${status.attempts} reconnection attempts): events reach other ` +
          'instances only through the event log until it is back; check REDIS_URL and that redis-server is running',
      ),
    up: (status) => logger.info({ redis: status.state }, 'redis reachable again: events fan out across instances'),
  };
}

/**
 * Workspace databases that fail to open, in the log with what the operator should check
 * (the client only hears that it is unavailable). Each workspace at most once per 30 s,
 * since every request to it tries again.
 */
export function openFailureReporter(logger: Logger): (workspace: string, error: unknown) => void {
  const lastLogged = new Map<string, number>();
  return (workspace, error) => {
    const now = Date.now();
    if (now - (lastLogged.get(workspace) ?? Number.NEGATIVE_INFINITY) < REPORT_EVERY_MS) return;
    if (lastLogged.size >= 10_000) lastLogged.clear();
    lastLogged.set(workspace, now);
    const details = error instanceof DomainError ? error.details : {};
    logger.error(
      {
        workspace,
        database: details.database,
        reason: details.reason,
        err: error instanceof DomainError ? undefined : error,
      },
      `workspace database unavailable: ${error instanceof Error ? error.message : String(error)}`,
    );
  };
}
