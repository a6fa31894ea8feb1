import type { Config } from '../config.ts';
import { usage } from '../contract/errors.ts';
import { upkeepImpactIndexFully } from '../db/impact-upkeep.ts';
import { runStalenessPass } from '../memory/staleness.ts';
import { checkWorkspace, formatCheckReport, formatRepairReport, repairWorkspace } from '../ops/check.ts';
import { reindexWorkspace } from '../ops/reindex.ts';
import { reindexVectors } from '../ops/vectors.ts';
import { listLocalWorkspaces, withWorkspace } from '../ops/workspace.ts';
import { impactShape } from '../server/impact-upkeep.ts';
import { configuredVectorModel, createConfiguredEmbedder } from '../server/semantic.ts';
import { ControlStore } from '../workspaces/control.ts';
import { CREATE_FLAG, JSON_FLAG, parseCommand, WORKSPACE, workspaceArg } from './args.ts';
import { CLI_ACTOR, type Command, print, printJson } from './command.ts';
import { requireWorkspace } from './workspace.ts';

async function migrateCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(args, { ...WORKSPACE, ...CREATE_FLAG });
  if (values.create && !values.workspace) throw usage('--create needs --workspace W');
  const ids = values.workspace ? [workspaceArg(values.workspace)] : listLocalWorkspaces(config);
  if (values.workspace) requireWorkspace(config, ids[0] ?? '', values.create);
  if (!values.workspace) {
    (await ControlStore.open(config)).close();
    print('migrated the control database');
  }
  if (ids.length === 0) print(`no workspace databases in ${config.dataDir}`);
  for (const id of ids) {
    // Opening a workspace applies its pending migrations, exactly as the server does.
    await withWorkspace(config, id, async () => {}, { create: values.create });
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
  const { impactLists, ...report } = await withWorkspace(config, id, async (ws) => {
    const pass = await ws.writer.run((scope) => runStalenessPass(scope, { limit, actor: CLI_ACTOR }));
    // Words that became frequent since the last reindex get their impact lists.
    const lists = await upkeepImpactIndexFully(ws.db, (w) => ws.writer.run(w), impactShape(config.impact));
    return { ...pass, impactLists: lists };
  });
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
  if (values.json) {
    printJson({ workspace: id, ...report, impactLists });
    return 0;
  }
  print(
    `staleness pass on ${id} at ${new Date(report.at).toISOString()}: scanned ${report.scanned}, ` +
      `marked stale ${report.markedStale}, reclassified ${report.reclassified}`,
  );
  if (impactLists.length > 0) print(`impact lists built for ${impactLists.length} frequent words`);
  return 0;
}

async function checkCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(args, { ...WORKSPACE, ...JSON_FLAG, ...CREATE_FLAG, fix: { type: 'boolean' } });
  const id = workspaceArg(values.workspace);
  requireWorkspace(config, id, values.create);
  const vectorModel = configuredVectorModel(config);
  // --fix repairs what a write can repair (cycles of supersession), then checks what is left.
  const { repair, report } = await withWorkspace(
    config,
    id,
    async (ws) => {
      const repair = values.fix ? await repairWorkspace(ws, CLI_ACTOR) : null;
      return { repair, report: await checkWorkspace(ws, { vectorModel }) };
    },
    { create: values.create },
  );
  if (values.json) printJson(repair ? { ...report, repaired: repair } : report, 2);
  else {
    if (repair) print(formatRepairReport(repair));
    print(formatCheckReport(report));
  }
  return report.ok ? 0 : 1;
}

async function reindexCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(args, { ...WORKSPACE, vectors: { type: 'boolean' } });
  if (values.vectors && config.embeddings.kind === 'off') {
    throw usage('--vectors needs an embedding model: set SPHERE_EMBEDDINGS=glove or http');
  }
  const id = workspaceArg(values.workspace);
  // The model loads before the workspace opens: a missing model changes nothing.
  const embedder = values.vectors ? await createConfiguredEmbedder(config) : null;
  await withWorkspace(config, id, async (ws) => {
    const report = await reindexWorkspace(ws, CLI_ACTOR, impactShape(config.impact));
    print(`reindexed ${report.workspace}: ${report.documents} documents in ${report.ms} ms`);
    if (!embedder) return;
    const v = await reindexVectors(ws, embedder, CLI_ACTOR);
    print(`rebuilt vectors of ${v.workspace}: ${v.vectors} vectors of ${v.model} (${v.dropped} dropped) in ${v.ms} ms`);
  });
  return 0;
}

/** The commands that keep a workspace's database sound: schema, staleness, integrity, indexes. */
export const MAINTENANCE_COMMANDS: Record<string, Command> = {
  migrate: migrateCommand,
  maintain: maintainCommand,
  check: checkCommand,
  reindex: reindexCommand,
};
