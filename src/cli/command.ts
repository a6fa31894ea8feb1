import type { Config } from '../config.ts';

/** A command that runs and finishes: the environment's config and its own arguments in, its exit status out. */
export type Command = (config: Config, args: string[]) => Promise<number>;

/** Who the audit log names for writes made from the command line. */
export const CLI_ACTOR = 'cli';

/** Prints one line (or block) of a command's report to stdout. */
export const print = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);

/**
 * Prints a command's report as JSON for scripts. The stores keep instants as epoch
 * milliseconds in fields named `at` or `…At`; scripts get ISO-8601 there, as the API gives.
 */
export function printJson(value: unknown, indent?: number): void {
  const iso = (key: string, v: unknown) =>
    (key === 'at' || key.endsWith('At')) && typeof v === 'number' ? new Date(v).toISOString() : v;
  print(JSON.stringify(value, iso, indent));
}
