import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { buildServer } from './server.ts';

const USAGE = `Usage: mini-sphere <command> [options]

Commands:
  serve                      run the GraphQL server (HTTP and WebSocket on one port)
`;

async function serve(): Promise<void> {
  const config = loadConfig();
  const server = buildServer(config);
  const { url } = await server.start();
  process.stdout.write(`Mini-Sphere listening on ${url} (data: ${config.dbUrl ?? config.dataDir})\n`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: finishing in-flight writes and closing connections\n`);
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

export async function main(argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false });
  const [command] = positionals;
  switch (command) {
    case 'serve':
    case undefined:
      await serve();
      return -1;
    case 'help':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`unknown command: ${command}\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
