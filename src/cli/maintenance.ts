import type { Config } from '../config.ts';
import { usage } from '../contract/errors.ts';
import { runStalenessPass } from '../memory/staleness.ts';
import { checkWorkspace, formatCheckReport } from '../ops/check.ts';
import { reindexWorkspace } from '../ops/reindex.ts';
import { listLocalWorkspaces, withWorkspace } from '../ops/workspace.ts';
import { ControlStore } from '../workspaces/control.ts';
import { JSON_FLAG, parseCommand, WORKSPACE, workspaceArg } from './args.ts';
import { CLI_ACTOR, type Command, print } from './command.ts';

export const MAINTENANCE_USAGE = `  migrate [--workspace W]    apply pending migrations to W, or to every workspace file in the data dir
  maintain --workspace W [--limit N] [--json]
                             run the staleness pass (N entries at most, 1..10000, default 500); for cron
  check --workspace W [--json]
                             check integrity, the full-text and impact indexes, neighbour lists, references and the event log;
                             exit status 1 on any problem
  reindex --workspace W      rebuild the full-text index, the impact index and the neighbour lists`;

async function migrateCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(args, WORKSPACE);
  const ids = values.workspace ? [workspaceArg(values.workspace)] : listLocalWorkspaces(config);
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
  const id = workspaceArg(values.workspace);
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
  const report = await withWorkspace(config, workspaceArg(values.workspace), checkWorkspace);
  print(values.json ? JSON.stringify(report, null, 2) : formatCheckReport(report));
  return report.ok ? 0 : 1;
}

async function reindexCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(args, WORKSPACE);
  const report = await withWorkspace(config, workspaceArg(values.workspace), (ws) => reindexWorkspace(ws, CLI_ACTOR));
  print(`reindexed ${report.workspace}: ${report.documents} documents in ${report.ms} ms`);
  return 0;
}

/** The commands that keep a workspace's database sound: schema, staleness, integrity, indexes. */
export const MAINTENANCE_COMMANDS: Record<string, Command> = {
  migrate: migrateCommand,
  maintain: maintainCommand,
  check: checkCommand,
  reindex: reindexCommand,
};
