import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { usage } from '../contract/errors.ts';
import { ROLES, type Role } from '../contract/roles.ts';
import { ControlStore } from './control.ts';

export const TOKEN_USAGE = `  token create --workspace W --role agent|reader|maintainer [--label TEXT]
                             issue a token: prints "id: <token id>", then the token alone as the last
                             line (shown once; only its hash is stored)
  token list [--json]        list tokens (never the tokens themselves)
  token revoke <token id>    revoke a token at once, for HTTP, WebSockets and SSE streams alike
  token reset --open         return to open mode (loopback only, no tokens): deletes every revoked
                             token; refused while any token is unrevoked`;

/** `mini-sphere token …`; returns the exit status. */
export async function runTokenCommand(
  args: string[],
  config: Config,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const [sub, ...rest] = args;
  const parse = <O extends Record<string, { type: 'string' | 'boolean' }>>(options: O, positionals: number) => {
    let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
    try {
      parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
    } catch (error) {
      throw usage(error instanceof Error ? error.message : String(error));
    }
    if (parsed.positionals.length !== positionals) {
      throw usage(`token ${sub} takes ${positionals} argument(s)`);
    }
    return parsed;
  };
  const store = await ControlStore.open(config);
  try {
    switch (sub) {
      case 'create': {
        const { values } = parse(
          { workspace: { type: 'string' }, role: { type: 'string' }, label: { type: 'string' } },
          0,
        );
        const workspace = values.workspace;
        const role = values.role;
        if (typeof workspace !== 'string') throw usage('token create needs --workspace W');
        if (typeof role !== 'string' || !ROLES.includes(role as Role)) {
          throw usage(`token create needs --role ${ROLES.join('|')}`);
        }
        const label = typeof values.label === 'string' ? values.label : null;
        const first = !(await store.tokenMode());
        const { id, token } = await store.createToken(workspace, role as Role, label);
        if (first) {
          err.write(
            'The server is in token mode from now on: running servers require a bearer token on every request ' +
              '(within a second), and stay so when tokens are revoked (see `token reset --open`).\n',
          );
        }
        out.write(`id: ${id}\n${token}\n`);
        return 0;
      }
      case 'list': {
        const { values } = parse({ json: { type: 'boolean' } }, 0);
        const list = await store.listTokens();
        if (values.json) {
          out.write(`${JSON.stringify(list, null, 2)}\n`);
          return 0;
        }
        if (list.length === 0) out.write('no tokens\n');
        for (const t of list) {
          const state = t.revokedAt ? `revoked ${new Date(t.revokedAt).toISOString()}` : 'active';
          const used = t.lastUsedAt ? new Date(t.lastUsedAt).toISOString() : 'never';
          out.write(
            `${t.id}  ${t.workspace}  ${t.role}  ${state}  created ${new Date(t.createdAt).toISOString()}  last used ${used}${t.label ? `  ${t.label}` : ''}\n`,
          );
        }
        return 0;
      }
      case 'revoke': {
        const { positionals } = parse({}, 1);
        const id = positionals[0] ?? '';
        if (!(await store.revokeToken(id))) {
          out.write(`no active token with id ${id}\n`);
          return 1;
        }
        out.write(`revoked ${id}\n`);
        return 0;
      }
      case 'reset': {
        const { values } = parse({ open: { type: 'boolean' } }, 0);
        if (!values.open) throw usage('token reset needs --open (it returns the server to open mode)');
        const { live, removed } = await store.resetToOpen();
        if (live > 0) {
          out.write(`${live} token(s) are not revoked; revoke them first (token list, token revoke <id>)\n`);
          return 1;
        }
        out.write(
          `removed ${removed} revoked token(s); servers are in open mode again (loopback only, no tokens) within a second\n`,
        );
        return 0;
      }
      default:
        throw usage(`unknown token command: ${sub ?? '(none)'}`);
    }
  } finally {
    store.close();
  }
}
