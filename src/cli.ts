import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { type Config, loadConfig } from './config.ts';
import { DomainError, usage } from './contract/errors.ts';
import { runStalenessPass } from './memory/staleness.ts';
import { backupWorkspace } from './ops/backup.ts';
import { checkWorkspace, formatCheckReport } from './ops/check.ts';
import { exportWorkspace } from './ops/export.ts';
import { writeThenRename } from './ops/files.ts';
import { type ImportReport, importFile } from './ops/import.ts';
import { progressBar } from './ops/progress.ts';
import { reindexWorkspace } from './ops/reindex.ts';
import { checkWorkspaceId, listLocalWorkspaces, withWorkspace } from './ops/workspace.ts';
import { ControlStore } from './workspaces/control.ts';
import { runTokenCommand, TOKEN_USAGE } from './workspaces/token-commands.ts';

const USAGE = `Usage: mini-sphere <command> [options]

Commands:
  serve                      run the GraphQL server (HTTP and WebSocket on one port)
  migrate [--workspace W]    apply pending migrations to W, or to every workspace file in the data dir
  maintain --workspace W [--limit N] [--json]
                             run the staleness pass (N entries at most, 1..10000, default 500); for cron
  check --workspace W [--json]
                             check integrity, the full-text index, neighbour lists, references and the event log;
                             exit status 1 on any problem
  reindex --workspace W      rebuild the full-text index and the neighbour lists
  backup --workspace W --to FILE [--force]
                             write a consistent copy of the database file (safe while serving)
  export --workspace W [--out FILE] [--force]
                             write the workspace as JSON Lines to FILE or stdout
  import --workspace W [--from V] FILE [--json]
                             import a JSON Lines export (FILE, or - for stdin); ids and timestamps kept,
                             existing ids skipped, so importing twice changes nothing; all or nothing:
                             a file that is cut off, breaks a limit or is not an export of W (or of V,
                             with --from) is refused whole
${TOKEN_USAGE}
  help                       show this help

Commands read the same environment as the server (SPHERE_DATA_DIR, SPHERE_DB_URL, SPHERE_DB_AUTH_TOKEN,
SPHERE_CONTROL_DB_URL).
Exit status: 0 success, 1 failure or problems found, 2 bad usage.
`;

async function serve(): Promise<void> {
  // Loaded on demand: the server's module graph is most of the CLI's start-up time, and
  // maintenance commands run from cron do not need it.
  const { buildServer } = await import('./server/server.ts');
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

/** Who the audit log names for writes made from the command line. */
const CLI_ACTOR = 'cli';

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

/** Parses one command's arguments strictly; unknown or malformed options are usage errors (exit 2). */
function parseCommand<O extends Options>(args: string[], options: O, positionals = 0) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usage(error instanceof Error ? error.message : String(error));
  }
  if (parsed.positionals.length > positionals) {
    throw usage(`unexpected argument: ${parsed.positionals[positionals]}`);
  }
  return parsed;
}

const WORKSPACE = { workspace: { type: 'string', short: 'w' } } as const;
const JSON_FLAG = { json: { type: 'boolean' } } as const;

const print = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);

async function migrateCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(args, WORKSPACE);
  const ids = values.workspace ? [checkWorkspaceId(values.workspace)] : listLocalWorkspaces(config);
  if (!values.workspace) {
    (await ControlStore.open(config)).close();
    print('migrated the control database');
  }
  if (ids.length === 0) print(`no workspace databases in ${config.dataDir}`);
  for (const id of ids) {
    // Opening a workspace applies its pending migrations, exactly as the server does.
    await withWorkspace(config, id, async () => {}, { create: Boolean(values.workspace) });
    print(`migrated ${id}`);
  }
  return 0;
}

async function maintainCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(args, { ...WORKSPACE, ...JSON_FLAG, limit: { type: 'string', short: 'n' } });
  const id = checkWorkspaceId(values.workspace);
  const limit = values.limit === undefined ? 500 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
    throw usage(`--limit must be an integer from 1 to 10000, got ${JSON.stringify(values.limit)}`);
  }
  const report = await withWorkspace(config, id, (ws) =>
    ws.writer.run((scope) => runStalenessPass(scope, { limit, actor: CLI_ACTOR })),
  );
  const control = await ControlStore.open(config);
  try {
    await control.audit({
      tokenId: null,
      workspace: id,
      action: 'staleness_pass',
      details: { ...report, actor: CLI_ACTOR },
    });
  } finally {
    control.close();
  }
  const at = new Date(report.at).toISOString();
  print(
    values.json
      ? JSON.stringify({ workspace: id, ...report, at })
      : `staleness pass on ${id} at ${at}: scanned ${report.scanned}, marked stale ${report.markedStale}, reclassified ${report.reclassified}`,
  );
  return 0;
}

async function checkCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(args, { ...WORKSPACE, ...JSON_FLAG });
  const report = await withWorkspace(config, checkWorkspaceId(values.workspace), checkWorkspace);
  print(values.json ? JSON.stringify(report, null, 2) : formatCheckReport(report));
  return report.ok ? 0 : 1;
}

async function reindexCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(args, WORKSPACE);
  const report = await withWorkspace(config, checkWorkspaceId(values.workspace), (ws) =>
    reindexWorkspace(ws, CLI_ACTOR),
  );
  print(`reindexed ${report.workspace}: ${report.documents} documents in ${report.ms} ms`);
  return 0;
}

async function backupCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(args, { ...WORKSPACE, to: { type: 'string' }, force: { type: 'boolean' } });
  const id = checkWorkspaceId(values.workspace);
  if (!values.to) throw usage('missing --to FILE');
  const to = values.to;
  const r = await withWorkspace(config, id, (ws) => backupWorkspace(ws, to, { force: Boolean(values.force) }));
  const c = r.counts;
  print(
    `backed up ${id} to ${r.file} (${r.bytes} bytes): entries ${c.entries}, tags ${c.tags}, edges ${c.edges}, ` +
      `revisions ${c.revisions}, events ${c.events}`,
  );
  return 0;
}

async function exportCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(args, {
    ...WORKSPACE,
    out: { type: 'string', short: 'o' },
    force: { type: 'boolean' },
  });
  const id = checkWorkspaceId(values.workspace);
  if (!values.out || values.out === '-') {
    // stdout carries the data; a bar would only share a terminal with it.
    const bar = (total: number) => progressBar('export', total, !process.stdout.isTTY);
    // A reader that stops early (`| head`) closes the pipe: that ends the export, quietly.
    process.stdout.on('error', () => {});
    try {
      const r = await withWorkspace(config, id, (ws) => exportWorkspace(ws, process.stdout, bar));
      if (process.stderr.isTTY) process.stderr.write(`exported ${r.entries} entries and ${r.edges} edges\n`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
    }
    return 0;
  }
  const target = resolve(values.out);
  const r = await writeThenRename(target, { force: Boolean(values.force) }, (partial) =>
    exportToFile(config, id, partial),
  );
  print(`exported ${r.entries} entries and ${r.edges} edges of ${id} to ${target}`);
  return 0;
}

async function exportToFile(config: Config, id: string, path: string) {
  const out = createWriteStream(path);
  try {
    await once(out, 'open');
    const r = await withWorkspace(config, id, (ws) =>
      exportWorkspace(ws, out, (total) => progressBar('export', total)),
    );
    await new Promise<void>((done, fail) => out.end((error?: Error | null) => (error ? fail(error) : done())));
    return r;
  } catch (error) {
    out.destroy();
    throw error;
  }
}

async function importCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, { ...WORKSPACE, ...JSON_FLAG, from: { type: 'string' } }, 1);
  const id = checkWorkspaceId(values.workspace);
  const from = values.from === undefined ? undefined : checkWorkspaceId(values.from, '--from');
  const [file] = positionals;
  if (!file) throw usage('missing the FILE to import (- for stdin)');
  const opts = { from, actor: CLI_ACTOR, progress: (total: number) => progressBar('import', total) };
  let r: ImportReport;
  if (file === '-') {
    // Import reads its file twice (validate, then write); standard input is kept on disk for that.
    const dir = await mkdtemp(join(tmpdir(), 'mini-sphere-import-'));
    try {
      const copy = join(dir, 'stdin.jsonl');
      await pipeline(process.stdin, createWriteStream(copy));
      r = await importFile(config, id, copy, { ...opts, name: 'stdin' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  } else {
    r = await importFile(config, id, resolve(file), opts);
  }
  print(
    values.json
      ? JSON.stringify(r)
      : `imported ${r.from} into ${id}: entries ${r.entries.imported} new, ${r.entries.skipped} already there; ` +
          `tags ${r.tags}; revisions ${r.revisions}; edges ${r.edges.imported} new, ${r.edges.skipped} already there`,
  );
  return 0;
}

async function tokenCommand(config: Config, args: string[]): Promise<number> {
  return runTokenCommand(args, config, process.stdout);
}

/** Commands that open a workspace and finish; each gets the environment's config and its own arguments. */
const OPS_COMMANDS: Record<string, (config: Config, args: string[]) => Promise<number>> = {
  token: tokenCommand,
  migrate: migrateCommand,
  maintain: maintainCommand,
  check: checkCommand,
  reindex: reindexCommand,
  backup: backupCommand,
  export: exportCommand,
  import: importCommand,
};

/** The exit status of a failed command: 2 for bad usage, 1 for every other failure. */
function exitStatusOf(error: DomainError): 1 | 2 {
  return error.code === 'USAGE' ? 2 : 1;
}

async function runOps(command: string, args: string[]): Promise<number> {
  const run = OPS_COMMANDS[command];
  if (!run) throw new Error(`no such command: ${command}`);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    return await run(loadConfig(), args);
  } catch (error) {
    if (error instanceof DomainError) {
      process.stderr.write(`mini-sphere ${command}: ${error.message}\n`);
      if (error.code === 'USAGE') process.stderr.write(`Run 'mini-sphere help' for usage.\n`);
      return exitStatusOf(error);
    }
    throw error;
  }
}

export async function main(argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false });
  const [command] = positionals;
  if (command === undefined && (argv.includes('--help') || argv.includes('-h'))) {
    process.stdout.write(USAGE);
    return 0;
  }
  switch (command) {
    case 'serve':
    case undefined:
      await serve();
      return -1;
    case 'migrate':
    case 'maintain':
    case 'check':
    case 'reindex':
    case 'backup':
    case 'export':
    case 'import':
    case 'token':
      return runOps(command, argv.slice(argv.indexOf(command) + 1));
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
    process.stderr.write(`${error instanceof DomainError ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
