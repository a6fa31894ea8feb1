import { loadConfig } from '../config.ts';

/** Starts the server and stops it cleanly on SIGTERM or SIGINT; resolves once it is listening. */
export async function serve(): Promise<void> {
  // Loaded on demand: the server's module graph is most of the CLI's start-up time, and
  // maintenance commands run from cron do not need it.
  const { buildServer } = await import('../server/server.ts');
  const { describeStartup, formatBanner } = await import('../server/banner.ts');
  const config = loadConfig();
  const server = buildServer(config);
  const { url } = await server.start();
  // The banner is for people and goes to stderr; stdout carries only the JSON log, where
  // the same facts are one `listening` line for machines.
  const info = await describeStartup(config, url, server);
  process.stderr.write(formatBanner(info, config));
  server.logger.info(info, 'listening');
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: finishing in-flight writes and closing connections\n`);
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
