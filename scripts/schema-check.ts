import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  type BreakingChange,
  buildSchema as buildSchemaFromSdl,
  type DangerousChange,
  findBreakingChanges,
  findDangerousChanges,
} from 'graphql';
import { printSchemaText } from '../src/graphql/print.ts';

// Fails on a breaking change of the schema built from the code against schema.graphql at HEAD, unless
// schema.graphql changes too: clients depend on the committed schema, so breaking it must show up in the diff.

export interface SchemaChanges {
  breaking: BreakingChange[];
  dangerous: DangerousChange[];
}

/** The changes that take a client of `before` to `after`; both are SDL texts. */
export function compareSchemas(before: string, after: string): SchemaChanges {
  const oldSchema = buildSchemaFromSdl(before);
  const newSchema = buildSchemaFromSdl(after);
  return {
    breaking: findBreakingChanges(oldSchema, newSchema),
    dangerous: findDangerousChanges(oldSchema, newSchema),
  };
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FILE = 'schema.graphql';

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `git diff --quiet` exits 1 on a difference; anything else (no git, no HEAD) counts as unchanged. */
function differsFromHead(cached: boolean): boolean {
  try {
    git(['diff', '--quiet', ...(cached ? ['--cached'] : []), 'HEAD', '--', FILE]);
    return false;
  } catch (err) {
    return (err as { status?: number }).status === 1;
  }
}

/** The committed schema and whether this change edits it; outside a git checkout, the file on disk. */
function baseline(): { sdl: string; source: string; edited: boolean } {
  try {
    const sdl = git(['show', `HEAD:${FILE}`]);
    return { sdl, source: `HEAD:${FILE}`, edited: differsFromHead(false) || differsFromHead(true) };
  } catch {
    return { sdl: readFileSync(new URL(`../${FILE}`, import.meta.url), 'utf8'), source: FILE, edited: false };
  }
}

function main(): number {
  const base = baseline();
  const { breaking, dangerous } = compareSchemas(base.sdl, printSchemaText());
  for (const change of dangerous) process.stderr.write(`warning: ${change.type}: ${change.description}\n`);
  if (breaking.length === 0) {
    process.stdout.write(`schema:check: no breaking change against ${base.source}\n`);
    return 0;
  }
  const list = breaking.map((change) => `  ${change.type}: ${change.description}\n`).join('');
  if (base.edited) {
    process.stdout.write(`schema:check: breaking changes against ${base.source}, documented by ${FILE}:\n${list}`);
    return 0;
  }
  process.stderr.write(
    `schema:check: ${breaking.length} breaking change(s) against ${base.source}:\n${list}` +
      `If they are meant, run npm run schema:print and commit ${FILE} with them.\n`,
  );
  return 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main();
