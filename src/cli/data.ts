import { once } from 'node:events';
import { createWriteStream, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { getPriority, setPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.ts';
import { DomainError, usage } from '../contract/errors.ts';
import { backupWorkspace } from '../ops/backup.ts';
import { exportWorkspace } from '../ops/export.ts';
import { writeThenRename } from '../ops/files.ts';
import { type ImportOptions, type ImportReport, importFile } from '../ops/import.ts';
import { LINE_MAX_BYTES } from '../ops/lines.ts';
import { progressBar } from '../ops/progress.ts';
import { withWorkspace } from '../ops/workspace.ts';
import { CREATE_FLAG, JSON_FLAG, parseCommand, WORKSPACE, workspaceArg } from './args.ts';
import { CLI_ACTOR, type Command, print, printJson } from './command.ts';
import { requireWorkspace } from './workspace.ts';

async function backupCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(args, { ...WORKSPACE, to: { type: 'string' }, force: { type: 'boolean' } });
  const id = workspaceArg(values.workspace);
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
  const id = workspaceArg(values.workspace);
  if (!values.out || values.out === '-') return exportToStdout(config, id);
  const target = resolve(values.out);
  const r = await writeThenRename(target, { force: Boolean(values.force) }, (partial) =>
    exportToFile(config, id, partial),
  );
  print(`exported ${r.entries} entries and ${r.edges} edges of ${id} to ${target}`);
  return 0;
}

async function exportToStdout(config: Config, id: string): Promise<number> {
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
  yieldCpu();
  const { values, positionals } = parseCommand(
    args,
    { ...WORKSPACE, ...JSON_FLAG, ...CREATE_FLAG, from: { type: 'string' }, 'max-line-mb': { type: 'string' } },
    1,
  );
  const id = workspaceArg(values.workspace);
  const from = values.from === undefined ? undefined : workspaceArg(values.from, '--from');
  const maxLineBytes = lineBound(values['max-line-mb']);
  const [file] = positionals;
  if (!file) throw usage('missing the FILE to import (- for stdin)');
  requireWorkspace(config, id, values.create);
  if (file !== '-') requireFile(file);
  const opts = { from, maxLineBytes, actor: CLI_ACTOR, progress: (total: number) => progressBar('import', total) };
  const r = file === '-' ? await importStdin(config, id, opts) : await importFile(config, id, resolve(file), opts);
  if (values.json) {
    printJson(r);
    return 0;
  }
  print(
    `imported ${r.from} into ${id}: entries ${r.entries.imported} new, ${r.entries.skipped} already there; ` +
      `tags ${r.tags}; revisions ${r.revisions}; edges ${r.edges.imported} new, ${r.edges.skipped} already there`,
  );
  return 0;
}

/**
 * An import is a batch job: beside a server on the same machine it takes the CPU only when
 * the server leaves it (nice +10, before the threads that do the work start, which inherit
 * it), so the server's tenants do not wait for it. Alone on a machine it runs as fast.
 */
function yieldCpu(): void {
  try {
    setPriority(Math.min(19, getPriority() + 10));
  } catch {
    // Not allowed here (a container's policy): the import runs at the usual priority.
  }
}

/** --max-line-mb as bytes: the default (LINE_MAX_BYTES) when absent. */
function lineBound(value: string | undefined): number {
  if (value === undefined) return LINE_MAX_BYTES;
  const mb = Number(value);
  if (!Number.isFinite(mb) || mb < 1 || mb > 1024) {
    throw usage(`--max-line-mb must be a number of MB from 1 to 1024, got ${JSON.stringify(value)}`);
  }
  return Math.round(mb * 1024 * 1024);
}

/** A file to read, named as the user typed it when it is not there. */
function requireFile(file: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new DomainError('NOT_FOUND', `no such file: ${file}`);
    throw error;
  }
  if (!isFile) throw new DomainError('BAD_USER_INPUT', `not a file: ${file}`);
}

async function importStdin(config: Config, id: string, opts: ImportOptions): Promise<ImportReport> {
  // Import reads its file twice (validate, then write); standard input is kept on disk for that.
  const dir = await mkdtemp(join(tmpdir(), 'mini-sphere-import-'));
  try {
    const copy = join(dir, 'stdin.jsonl');
    await pipeline(process.stdin, createWriteStream(copy));
    return await importFile(config, id, copy, { ...opts, name: 'stdin' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The commands that move a workspace's data in and out: backup, export, import. */
export const DATA_COMMANDS: Record<string, Command> = {
  backup: backupCommand,
  export: exportCommand,
  import: importCommand,
};
