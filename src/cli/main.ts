import { parseArgs } from 'node:util';
import { DomainError, usage } from '../contract/errors.ts';
import { COMMAND_NAMES, type CommandEntry, commandHelp, findCommand, overview } from './catalog.ts';
import { didYouMean } from './suggest.ts';

// This module and catalog.ts are all that `help` and `--help` load: commands, the config
// (zod) and the server are imported only once a command is chosen.

/** What `main` returns while the server runs: no exit status yet. */
const SERVING = -1;

const print = (text: string) => {
  process.stdout.write(text);
  return 0;
};

/** True when `--help` or `-h` comes before any `--` (after it, arguments are positional). */
function wantsHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

function known(name: string): CommandEntry {
  const entry = findCommand(name);
  if (!entry) throw usage(`unknown command: ${name}${didYouMean(name, COMMAND_NAMES)}`);
  return entry;
}

/** `help`, `help <command>` (more words, as in `help token create`, name the same page). */
function help(topic: string | undefined): number {
  if (topic === undefined || topic === 'help') return print(overview());
  return print(commandHelp(known(topic)));
}

/** Only `--help` may come without a command; anything else there is a typo worth naming. */
function refuseTopLevelOptions(argv: readonly string[]): void {
  const option = argv.find((a) => a.startsWith('-') && a !== '--');
  if (option) {
    const name = option.split('=')[0] ?? option;
    throw usage(`Unknown option '${name}'${didYouMean(name, ['--help'])}`);
  }
}

async function dispatch(command: string | undefined, argv: string[]): Promise<number> {
  const args = command === undefined ? argv : argv.slice(argv.indexOf(command) + 1);
  if (command === undefined && wantsHelp(argv)) return help(undefined);
  if (command === 'help') return help(args.find((a) => !a.startsWith('-')));
  const entry = known(command ?? 'serve');
  if (wantsHelp(args)) return help(entry.name);
  // A command with subcommands, given none, answers with its help rather than an error.
  if (entry.subcommands && args.length === 0) return help(entry.name);
  if (!entry.load) {
    refuseTopLevelOptions(args);
    const { serve } = await import('./serve.ts');
    await serve();
    return SERVING;
  }
  const [run, { loadConfig }] = await Promise.all([entry.load(), import('../config.ts')]);
  return run(loadConfig(), args);
}

/** A file a command was pointed at that is not there: one line, never a stack. */
function missingFile(error: unknown): string | null {
  const e = error as NodeJS.ErrnoException;
  if (e?.code === 'ENOENT' && typeof e.path === 'string') return `no such file: ${e.path}`;
  return null;
}

/**
 * The one place a failure becomes a message and an exit status: a usage error exits 2 with
 * a pointer to the help, any other expected failure (DomainError) prints its message and
 * exits 1, and anything else prints the error and exits 1. A command's messages name it.
 */
function failed(error: unknown, command: string | null): 1 | 2 {
  const prefix = command ? `mini-sphere ${command}: ` : '';
  if (!(error instanceof DomainError)) {
    const missing = missingFile(error);
    process.stderr.write(missing ? `${prefix}${missing}\n` : `${String(error)}\n`);
    return 1;
  }
  process.stderr.write(`${prefix}${error.message}\n`);
  if (error.code !== 'USAGE') return 1;
  const helpFor = command && findCommand(command) ? `mini-sphere ${command} --help` : 'mini-sphere help';
  process.stderr.write(`Run '${helpFor}' for usage.\n`);
  return 2;
}

/** Runs the command line `argv` (without node and the script); returns its exit status, or -1 while serving. */
export async function main(argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false });
  const [command] = positionals;
  try {
    return await dispatch(command, argv);
  } catch (error) {
    return failed(error, command === undefined || command === 'serve' || !findCommand(command) ? null : command);
  }
}

main(process.argv.slice(2)).then((code) => {
  if (code !== SERVING) process.exitCode = code;
});
