import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { DomainError } from '../contract/errors.ts';
import type { Command } from './command.ts';
import { DATA_COMMANDS, DATA_USAGE } from './data.ts';
import { MAINTENANCE_COMMANDS, MAINTENANCE_USAGE } from './maintenance.ts';
import { SERVE_USAGE, serve } from './serve.ts';
import { TOKEN_USAGE, tokenCommand } from './token.ts';

const USAGE = `Usage: mini-sphere <command> [options]

Commands:
${SERVE_USAGE}
${MAINTENANCE_USAGE}
${DATA_USAGE}
${TOKEN_USAGE}
  help                       show this help

Commands read the same environment as the server (SPHERE_DATA_DIR, SPHERE_DB_URL, SPHERE_DB_AUTH_TOKEN,
SPHERE_CONTROL_DB_URL).
Exit status: 0 success, 1 failure or problems found, 2 bad usage.
`;

/** Every command but `serve`: each runs and finishes with an exit status. */
const COMMANDS = new Map<string, Command>([
  ...Object.entries(MAINTENANCE_COMMANDS),
  ...Object.entries(DATA_COMMANDS),
  ['token', tokenCommand],
]);

/** What `main` returns while the server runs: no exit status yet. */
const SERVING = -1;

function help(): number {
  process.stdout.write(USAGE);
  return 0;
}

async function dispatch(command: string | undefined, argv: string[]): Promise<number> {
  if (command === undefined && (argv.includes('--help') || argv.includes('-h'))) return help();
  if (command === undefined || command === 'serve') {
    await serve();
    return SERVING;
  }
  if (command === 'help') return help();
  const run = COMMANDS.get(command);
  if (!run) {
    process.stderr.write(`unknown command: ${command}\n\n${USAGE}`);
    return 2;
  }
  const args = argv.slice(argv.indexOf(command) + 1);
  if (args.includes('--help') || args.includes('-h')) return help();
  return run(loadConfig(), args);
}

/**
 * The one place a failure becomes a message and an exit status: a usage error exits 2 with
 * a pointer to the help, any other expected failure (DomainError) prints its message and
 * exits 1, and anything else prints the error and exits 1. A command's messages name it.
 */
function failed(error: unknown, command: string | null): 1 | 2 {
  if (!(error instanceof DomainError)) {
    process.stderr.write(`${String(error)}\n`);
    return 1;
  }
  process.stderr.write(command ? `mini-sphere ${command}: ${error.message}\n` : `${error.message}\n`);
  if (error.code !== 'USAGE') return 1;
  process.stderr.write(`Run 'mini-sphere help' for usage.\n`);
  return 2;
}

/** Runs the command line `argv` (without node and the script); returns its exit status, or -1 while serving. */
export async function main(argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false });
  const [command] = positionals;
  try {
    return await dispatch(command, argv);
  } catch (error) {
    return failed(error, command === undefined || command === 'serve' ? null : command);
  }
}

main(process.argv.slice(2)).then((code) => {
  if (code !== SERVING) process.exitCode = code;
});
