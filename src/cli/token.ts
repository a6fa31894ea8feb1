import { join } from 'node:path';
import type { Config } from '../config.ts';
import { usage } from '../contract/errors.ts';
import { ROLES, type Role } from '../contract/roles.ts';
import { redactUrl } from '../db/remote-failure.ts';
import { ControlStore } from '../workspaces/control.ts';
import { JSON_FLAG, type Options, parseStrict } from './args.ts';
import { print, printJson } from './command.ts';
import { didYouMean } from './suggest.ts';

/** Parses a token subcommand's arguments: its options and exactly `positionals` arguments. */
function parseSub<O extends Options>(sub: string, args: string[], options: O, positionals: number) {
  const parsed = parseStrict(args, options);
  if (parsed.positionals.length !== positionals) throw usage(`token ${sub} takes ${positionals} argument(s)`);
  return parsed;
}

/** What the first token changes, for whoever runs servers over this control database. */
function tokenModeNotice(config: Config): string {
  const where = config.controlDbUrl ? redactUrl(config.controlDbUrl) : join(config.dataDir, '_control.db');
  return (
    `Token mode from now on: servers using this data (${where}) now require a token on every request, ` +
    'within a second; the dashboard and GraphiQL need it too (Authorization: Bearer <token>). ' +
    'Revoking tokens keeps token mode; `mini-sphere token reset --open` returns to open mode.\n'
  );
}

/**
 * A token subcommand: parses its arguments (a usage error then leaves the control database
 * unopened, and so uncreated) and returns the work to do on the store.
 */
type Subcommand = (args: string[], config: Config) => (store: ControlStore) => Promise<number>;

const createToken: Subcommand = (args, config) => {
  const { values } = parseSub(
    'create',
    args,
    { workspace: { type: 'string' }, role: { type: 'string' }, label: { type: 'string' } },
    0,
  );
  const { workspace, role } = values;
  if (typeof workspace !== 'string') throw usage('token create needs --workspace W');
  if (typeof role !== 'string' || !ROLES.includes(role as Role)) {
    throw usage(`token create needs --role ${ROLES.join('|')}`);
  }
  const label = typeof values.label === 'string' ? values.label : null;
  return async (store) => {
    const first = !(await store.tokenMode());
    const { id, token } = await store.createToken(workspace, role as Role, label);
    if (first) process.stderr.write(tokenModeNotice(config));
    print(`id: ${id}\n${token}\n`);
    return 0;
  };
};

const listTokens: Subcommand = (args) => {
  const { values } = parseSub('list', args, JSON_FLAG, 0);
  return async (store) => {
    const list = await store.listTokens();
    if (values.json) {
      printJson(list, 2);
      return 0;
    }
    if (list.length === 0) print('no tokens\n');
    for (const t of list) {
      const state = t.revokedAt ? `revoked ${new Date(t.revokedAt).toISOString()}` : 'active';
      const used = t.lastUsedAt ? new Date(t.lastUsedAt).toISOString() : 'never';
      print(
        `${t.id}  ${t.workspace}  ${t.role}  ${state}  created ${new Date(t.createdAt).toISOString()}  last used ${used}${t.label ? `  ${t.label}` : ''}\n`,
      );
    }
    return 0;
  };
};

const revokeToken: Subcommand = (args) => {
  const { positionals } = parseSub('revoke', args, {}, 1);
  const id = positionals[0] ?? '';
  return async (store) => {
    if (!(await store.revokeToken(id))) {
      print(`no active token with id ${id}\n`);
      return 1;
    }
    print(`revoked ${id}\n`);
    return 0;
  };
};

const resetToOpen: Subcommand = (args) => {
  const { values } = parseSub('reset', args, { open: { type: 'boolean' } }, 0);
  if (!values.open) throw usage('token reset needs --open (it returns the server to open mode)');
  return async (store) => {
    const { live, removed } = await store.resetToOpen();
    if (live > 0) {
      print(`${live} token(s) are not revoked; revoke them first (token list, token revoke <id>)\n`);
      return 1;
    }
    print(
      `removed ${removed} revoked token(s); servers are in open mode again (loopback only, no tokens) within a second\n`,
    );
    return 0;
  };
};

const SUBCOMMANDS = new Map<string, Subcommand>([
  ['create', createToken],
  ['list', listTokens],
  ['revoke', revokeToken],
  ['reset', resetToOpen],
]);

/** `mini-sphere token create|list|revoke|reset …`: manages the bearer tokens in the control database. */
export async function tokenCommand(config: Config, args: string[]): Promise<number> {
  const [sub = '', ...rest] = args;
  const run = SUBCOMMANDS.get(sub);
  // Refused, like bad arguments, before the control database is opened: opening it creates it.
  if (!run) throw usage(`unknown token command: ${sub}${didYouMean(sub, [...SUBCOMMANDS.keys()])}`);
  const work = run(rest, config);
  const store = await ControlStore.open(config);
  try {
    return await work(store);
  } finally {
    store.close();
  }
}
