import type { Config } from '../config.ts';

/** A command that runs and finishes: the environment's config and its own arguments in, its exit status out. */
export type Command = (config: Config, args: string[]) => Promise<number>;

/** Who the audit log names for writes made from the command line. */
export const CLI_ACTOR = 'cli';

/** Prints one line (or block) of a command's report to stdout. */
export const print = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
