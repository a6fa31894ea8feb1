import { parseArgs } from 'node:util';
import { DomainError, usage } from '../contract/errors.ts';
import { checkWorkspaceId } from '../contract/ids.ts';
import { didYouMean } from './suggest.ts';

/** The option table of node:util parseArgs. */
export type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

/** `--workspace W` (`-w W`), the option of every command that works on one workspace. */
export const WORKSPACE = { workspace: { type: 'string', short: 'w' } } as const;

/** `--json`: print the command's report as JSON, for scripts. */
export const JSON_FLAG = { json: { type: 'boolean' } } as const;

/** `--create`: make the workspace when it does not exist, where a command would otherwise refuse it. */
export const CREATE_FLAG = { create: { type: 'boolean' } } as const;

/** Parses arguments strictly: an unknown or malformed option is a usage error (exit status 2). */
export function parseStrict<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1];
    if ((error as { code?: string }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || !unknown) throw usage(message);
    // Node's message goes on about positionals after `--`; a near miss of a real flag is the likelier story.
    const flags = [...Object.keys(options ?? {}).map((name) => `--${name}`), '--help'];
    throw usage(`Unknown option '${unknown}'${didYouMean(unknown, flags)}`);
  }
}

/** Parses one command's arguments strictly, with at most `positionals` arguments besides its options. */
export function parseCommand<O extends Options>(args: string[], options: O, positionals = 0) {
  const parsed = parseStrict(args, options);
  if (parsed.positionals.length > positionals) {
    throw usage(`unexpected argument: ${parsed.positionals[positionals]}`);
  }
  return parsed;
}

/** A workspace id given as `flag`; a missing or malformed one is a usage error. */
export function workspaceArg(id: string | undefined, flag = '--workspace'): string {
  if (!id) throw usage(`missing ${flag}`);
  try {
    return checkWorkspaceId(id);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'BAD_USER_INPUT') throw usage(error.message);
    throw error;
  }
}
