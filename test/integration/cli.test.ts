import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config.ts';
import { runCli } from '../helpers/cli.ts';

// The command line as a newcomer meets it: real `mini-sphere` processes on a temp data dir.

let dataDir: string;
let scratch: string;
const env = () => ({ SPHERE_DATA_DIR: dataDir });
const cli = (...args: string[]) => runCli(args, env());
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Commands are spawned concurrently on a busy machine; starting each takes a while. */
const SLOW = 120_000;

function entry(id: string, content: string) {
  const at = '2026-01-01T00:00:00.000Z';
  return {
    type: 'entry',
    id,
    content,
    kind: 'SEMANTIC',
    status: 'ACTIVE',
    volatility: 'DURABLE',
    volatilitySource: 'caller',
    importance: 0.5,
    claimTag: 'UNKNOWN',
    createdAt: at,
    updatedAt: at,
  };
}

/** The data dir's files, so a refusal can be shown to leave nothing behind. */
const files = () => (existsSync(dataDir) ? readdirSync(dataDir).sort() : []);

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-cli-'));
  scratch = await mkdtemp(join(tmpdir(), 'mini-sphere-cli-files-'));
  // `acme` holds three entries, imported from a hand-written export of it.
  const seed = join(scratch, 'seed.jsonl');
  const records = [
    { type: 'header', format: 'mini-sphere-export', version: 1, workspace: 'acme', exportedAt: '' },
    entry('e-1', 'We chose libSQL for per-workspace storage'),
    entry('e-2', 'Deploys go out on Wednesdays'),
    entry('e-3', 'Kim runs the deploys'),
    { type: 'end', entries: 3, edges: 0 },
  ];
  await writeFile(seed, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const res = await cli('import', '--workspace', 'acme', '--create', seed);
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
}, SLOW);

afterAll(async () => {
  for (const dir of [dataDir, scratch]) if (dir) await rm(dir, { recursive: true, force: true });
});

describe('help', () => {
  const COMMANDS: [string, string[]][] = [
    ['serve', ['mini-sphere serve']],
    ['migrate', ['--workspace', '--create']],
    ['maintain', ['--workspace', '--limit', '--json']],
    ['check', ['--workspace', '--json', '--create']],
    ['reindex', ['--workspace']],
    ['backup', ['--workspace', '--to', '--force']],
    ['export', ['--workspace', '--out', '--force']],
    ['import', ['--workspace', '--create', '--from', '--json']],
    ['token', ['token create', 'token list', 'token revoke', 'token reset', '--role', '--open']],
  ];

  it(
    'each command has its own --help, the same as `help <command>`: summary, usage, flags, environment, examples',
    async () => {
      const results = await Promise.all(
        COMMANDS.map(async ([name]) => ({ flag: await cli(name, '--help'), word: await cli('help', name) })),
      );
      results.forEach(({ flag, word }, i) => {
        const [name, mustList] = COMMANDS[i] ?? ['', []];
        expect(flag.code, name).toBe(0);
        expect(flag.stderr, name).toBe('');
        expect(flag.stdout, name).toMatch(new RegExp(`^mini-sphere ${name}: \\S.*\\n`));
        for (const section of ['Usage:', 'Flags:', 'Environment:', 'Examples:']) {
          expect(flag.stdout, `${name} ${section}`).toContain(`\n${section}\n`);
        }
        expect(flag.stdout, name).toMatch(new RegExp(`Examples:\\n {2}(\\S+=\\S+ )*mini-sphere ${name}\\b`));
        for (const text of mustList) expect(flag.stdout, `${name} lists ${text}`).toContain(text);
        expect(word.code, name).toBe(0);
        expect(word.stdout, name).toBe(flag.stdout);
      });
    },
    SLOW,
  );

  it('serve --help lists every environment variable the configuration reads', async () => {
    const res = await cli('serve', '--help');
    expect(res.code).toBe(0);
    expect(CONFIG_VARIABLES.length).toBeGreaterThan(10);
    for (const variable of CONFIG_VARIABLES) expect(res.stdout).toMatch(new RegExp(`\\n {2}${variable}\\b`));
  });

  it('`token` alone prints the token help instead of an error, and creates no control database', async () => {
    const [alone, flag] = await Promise.all([cli('token'), cli('token', '--help')]);
    expect(alone.stderr).toBe('');
    expect(alone.code).toBe(0);
    expect(alone.stdout).toBe(flag.stdout);
    expect(alone.stdout).toContain('mini-sphere token create --workspace W --role');
    expect(files()).not.toContain('_control.db');
  });
});

describe('did you mean', () => {
  it(
    'unknown commands, subcommands and flags exit 2 naming the nearest one',
    async () => {
      const cases: [string[], RegExp][] = [
        [['chek', '--workspace', 'acme'], /^unknown command: chek; did you mean check\?\n/],
        [['imprt'], /^unknown command: imprt; did you mean import\?\n/],
        [['tok'], /^unknown command: tok; did you mean token\?\n/],
        [['help', 'maintian'], /^unknown command: maintian; did you mean maintain\?\n/],
        [['token', 'craete'], /^mini-sphere token: unknown token command: craete; did you mean create\?\n/],
        [['token', 'lst', '--json'], /unknown token command: lst; did you mean list\?\n/],
        [
          ['check', '--worksapce', 'acme'],
          /^mini-sphere check: Unknown option '--worksapce'; did you mean --workspace\?\n/,
        ],
        [
          ['import', '--workspace', 'acme', '--crate', 'x.jsonl'],
          /Unknown option '--crate'; did you mean --create\?\n/,
        ],
        [['token', 'list', '--jsn'], /Unknown option '--jsn'; did you mean --json\?\n/],
        [['--hlep'], /^Unknown option '--hlep'; did you mean --help\?\n/],
      ];
      const results = await Promise.all(cases.map(([args]) => cli(...args)));
      results.forEach((res, i) => {
        const [args, message] = cases[i] ?? [[], /./];
        expect(res.code, args.join(' ')).toBe(2);
        expect(res.stderr, args.join(' ')).toMatch(message);
        expect(res.stderr, args.join(' ')).toMatch(/Run 'mini-sphere (\S+ --help|help)' for usage\.\n$/);
      });
      // Nothing near: no guess.
      const far = await cli('frobnicate');
      expect(far.code).toBe(2);
      expect(far.stderr).toMatch(/^unknown command: frobnicate\n/);
      expect(files()).not.toContain('_control.db');
    },
    SLOW,
  );
});

describe('--json', () => {
  it(
    'gives dates as ISO-8601 strings (token list, maintain, check)',
    async () => {
      const created = await cli('token', 'create', '--workspace', 'acme', '--role', 'reader', '--label', 'ci');
      expect(created.code).toBe(0);
      const id = /^id: (\S+)$/m.exec(created.stdout)?.[1] ?? '';
      expect((await cli('token', 'revoke', id)).code).toBe(0);
      const [tokens, maintain, check] = await Promise.all([
        cli('token', 'list', '--json'),
        cli('maintain', '--workspace', 'acme', '--json'),
        cli('check', '--workspace', 'acme', '--json'),
      ]);
      expect(tokens.code).toBe(0);
      const [token] = JSON.parse(tokens.stdout);
      expect(token).toMatchObject({ id, workspace: 'acme', lastUsedAt: null });
      expect(token.createdAt).toMatch(ISO);
      expect(token.revokedAt).toMatch(ISO);
      expect(maintain.code).toBe(0);
      expect(JSON.parse(maintain.stdout).at).toMatch(ISO);
      expect(check.code).toBe(0);
      expect(JSON.parse(check.stdout).checkedAt).toMatch(ISO);
    },
    SLOW,
  );
});

describe('a workspace that does not exist', () => {
  it(
    'check, migrate and import refuse it without --create, in one line naming the nearest workspace, and create nothing',
    async () => {
      const seed = join(scratch, 'acme.jsonl');
      expect((await cli('export', '--workspace', 'acme', '--out', seed)).code).toBe(0);
      const before = files();
      const results = await Promise.all([
        cli('check', '--workspace', 'acem'),
        cli('migrate', '--workspace', 'acem'),
        cli('import', '--workspace', 'acem', seed),
        cli('check', '--workspace', 'zzz-unrelated'),
      ]);
      for (const res of results.slice(0, 3)) {
        expect(res.code).toBe(1);
        expect(res.stdout).toBe('');
        expect(res.stderr).toMatch(
          /^mini-sphere (check|migrate|import): workspace "acem" does not exist in \S+; pass --create to create it; did you mean "acme"\?\n$/,
        );
      }
      expect(results[3]?.code).toBe(1);
      expect(results[3]?.stderr).toMatch(
        /workspace "zzz-unrelated" does not exist in \S+; pass --create to create it\n$/,
      );
      expect(files()).toEqual(before);
    },
    SLOW,
  );

  it(
    '--create makes it: `import --workspace acme-copy --create acme.jsonl` copies acme (twice: no change), then check and migrate find it',
    async () => {
      const file = join(scratch, 'acme-for-copy.jsonl');
      expect((await cli('export', '--workspace', 'acme', '--out', file)).code).toBe(0);
      const imported = await cli('import', '--workspace', 'acme-copy', '--create', file);
      expect(imported.stderr).toBe('');
      expect(imported.code).toBe(0);
      expect(imported.stdout).toMatch(/^imported acme into acme-copy: entries 3 new, 0 already there/);
      const checked = await cli('check', '--workspace', 'acme-copy', '--json');
      expect(checked.code).toBe(0);
      expect(JSON.parse(checked.stdout)).toMatchObject({ ok: true, counts: { entries: 3 } });
      // The same command again changes nothing, as the README says.
      const again = await cli('import', '--workspace', 'acme-copy', '--create', file);
      expect(again.stderr).toBe('');
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/^imported acme into acme-copy: entries 0 new, 3 already there/);
      // Merging another workspace's export into an existing one still needs --from.
      const copyFile = join(scratch, 'acme-copy.jsonl');
      expect((await cli('export', '--workspace', 'acme-copy', '--out', copyFile)).code).toBe(0);
      const merge = await cli('import', '--workspace', 'acme', copyFile);
      expect(merge.code).toBe(1);
      expect(merge.stderr).toMatch(/pass --from acme-copy; nothing was imported\n$/);

      const [check, migrate] = await Promise.all([
        cli('check', '--workspace', 'fresh-check', '--create'),
        cli('migrate', '--workspace', 'fresh-migrate', '--create'),
      ]);
      expect(check.code).toBe(0);
      expect(check.stdout).toMatch(/^workspace fresh-check: ok/);
      expect(migrate.code).toBe(0);
      expect(files()).toEqual(expect.arrayContaining(['acme-copy.db', 'fresh-check.db', 'fresh-migrate.db']));
    },
    SLOW,
  );
});

describe('import of a file that is not there or not whole', () => {
  it('a missing file is one line, "no such file", and creates nothing', async () => {
    const before = files();
    const results = await Promise.all([
      cli('import', '--workspace', 'acme', 'no-such-export.jsonl'),
      cli('import', '--workspace', 'from-nothing', '--create', 'no-such-export.jsonl'),
    ]);
    for (const res of results) {
      expect(res.code).toBe(1);
      expect(res.stderr).toBe('mini-sphere import: no such file: no-such-export.jsonl\n');
    }
    expect(files()).toEqual(before);
  });

  it(
    'a cut-off export (mid-line, or without its last lines) exits 1 and writes nothing',
    async () => {
      const full = join(scratch, 'whole.jsonl');
      expect((await cli('export', '--workspace', 'acme', '--out', full)).code).toBe(0);
      const text = await readFile(full, 'utf8');
      const lines = text.trimEnd().split('\n');
      expect(JSON.parse(lines.at(-1) ?? '')).toEqual({ type: 'end', entries: 3, edges: 0 });
      const midLine = join(scratch, 'mid-line.jsonl');
      await writeFile(midLine, text.slice(0, text.indexOf('Deploys go out')));
      const noEnd = join(scratch, 'no-end.jsonl');
      await writeFile(noEnd, `${lines.slice(0, -1).join('\n')}\n`);
      const acmeBefore = await readFile(join(dataDir, 'acme.db'));
      const before = files();
      const results = await Promise.all([
        cli('import', '--workspace', 'cut-copy', '--create', '--from', 'acme', midLine),
        cli('import', '--workspace', 'cut-copy', '--create', '--from', 'acme', noEnd),
        cli('import', '--workspace', 'acme', noEnd),
      ]);
      for (const res of results) {
        expect(res.code).toBe(1);
        expect(res.stderr).toMatch(/the file ends without an end record; it may be cut off; nothing was imported\n$/);
      }
      expect(files()).toEqual(before);
      expect((await readFile(join(dataDir, 'acme.db'))).equals(acmeBefore)).toBe(true);
    },
    SLOW,
  );
});
