/**
 * The examples of README.md and of every page of docs/, pasted in order into one fresh server,
 * as a newcomer would: README.md first, then docs/*.md by name.
 *
 * Conventions, chosen so that the pages read naturally to people:
 * - Every fenced block runs, top to bottom, unless the line right before it is
 *   `<!-- readme-test: skip (why) -->`; a skip needs its reason, and a block in a language
 *   the test cannot run (yaml, ini, nginx, cron, json, …) needs the marker too.
 * - A ```graphql block is one operation, POSTed to the server. A comment line
 *   `# Headers: {"x-workspace": "acme"}` sets headers for that block and every later one of the
 *   page, as GraphiQL's Headers pane keeps them. `# Expect: CODE` says the operation answers an
 *   error with that `extensions.code` (and the block fails without it). A subscription runs over
 *   server-sent events: `events(sinceSeq:)` until it has replayed the workspace's whole log (one
 *   event of `types:` when it names some), then it closes.
 * - A ```sh block runs one command at a time in bash (a line ending in `\` goes on), in a
 *   scratch directory, with `SPHERE_DATA_DIR` the server's, `mini-sphere` (and
 *   `npx mini-sphere`) the repository's bin, and `127.0.0.1:4000` / `localhost:4000`
 *   rewritten to the server's address. A command whose output is a GraphQL response fails on
 *   its errors.
 * - A ```ts block runs whole as an ES module (tsx) from inside the repository, so its imports
 *   resolve as an installed package's would (`mini-sphere-client` is the built client), and must
 *   pass a strict typecheck against the client's published types; a
 *   ```python block runs whole in python3 (skipped with a printed reason where python3 or the
 *   modules it imports are missing, failing when CI=true). Both get the address rewritten
 *   and fail on a non-zero exit.
 * - Placeholders: `<id a>`, `<id b>`, … are the entry ids of the page's captures (GraphQL or
 *   curl), in order; `<token id>` is the id `mini-sphere token create` printed last. One
 *   without a value fails.
 * A block fails when a command exits non-zero, a response has errors it did not expect, or a
 * recall finds nothing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kind, type OperationDefinitionNode, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BUDGET } from '../helpers/budget.ts';
import { CLI_BIN, cliEnv } from '../helpers/cli.ts';
import { type Block, docBlocks, DOC_PAGES as PAGES, REPO_ROOT as ROOT, RUNNABLE, readPage } from '../helpers/docs.ts';
import { type Data, type GqlError, startTestServer, type TestServer } from '../helpers/server.ts';

/** Everything earlier blocks of a page left for later ones, and the server all pages share. */
interface RunState {
  server: TestServer;
  scratch: string;
  bin: string;
  headers: Record<string, string>;
  placeholders: Map<string, string>;
  entryIds: string[];
}

function fill(text: string, placeholders: Map<string, string>): string {
  return text.replace(/<([a-z][a-z ]*[a-z])>/g, (whole, name: string) => {
    const value = placeholders.get(name);
    if (value === undefined) throw new Error(`${whole} has no value: no earlier example produced it`);
    return value;
  });
}

function errorsOf(body: { errors?: GqlError[] }): string {
  return JSON.stringify(body.errors);
}

/** The server's address in place of the one the pages use. */
function readdress(text: string, state: RunState): string {
  const address = new URL(state.server.url).host;
  return text.replace(/\b(?:127\.0\.0\.1|localhost):4000\b/g, address);
}

/** Every `recall` result in a response, wherever it sits. */
function recalls(value: unknown): { hits: unknown[] }[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) =>
    key === 'recall' && v && typeof v === 'object' && 'hits' in v ? [v as { hits: unknown[] }] : recalls(v),
  );
}

/** Remembers the entries a mutation's payloads name, as `<id a>`, `<id b>`, … in order. */
function noteEntries(state: RunState, data: Data | null | undefined): void {
  for (const payload of Object.values(data ?? {}) as (Data | null)[]) {
    const id = payload?.outcome !== undefined ? payload.entry?.id : undefined;
    if (typeof id === 'string' && !state.entryIds.includes(id)) {
      state.entryIds.push(id);
      state.placeholders.set(`id ${String.fromCharCode(96 + state.entryIds.length)}`, id);
    }
  }
}

/** Reads server-sent events until `done` says so or the stream ends. */
async function readEvents(
  res: Response,
  done: (payloads: { data?: Data; errors?: GqlError[] }[]) => boolean,
): Promise<{ data?: Data; errors?: GqlError[] }[]> {
  const payloads: { data?: Data; errors?: GqlError[] }[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!done(payloads)) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    text += value;
    const messages = text.split('\n\n');
    text = messages.pop()!;
    for (const message of messages) {
      const data = message.split('\n').find((l) => l.startsWith('data:'));
      if (data?.slice(5).trim()) payloads.push(JSON.parse(data.slice(5)));
    }
  }
  await reader.cancel();
  return payloads;
}

async function runSubscription(state: RunState, query: string, operation: OperationDefinitionNode): Promise<void> {
  const field = operation.selectionSet.selections.find((s) => s.kind === Kind.FIELD);
  const args = new Map(field?.kind === Kind.FIELD ? (field.arguments ?? []).map((a) => [a.name.value, a.value]) : []);
  const since = args.get('sinceSeq');
  expect(
    field?.kind === Kind.FIELD && field.name.value === 'events' && since?.kind === Kind.INT,
    'a subscription example must replay: events(sinceSeq: N)',
  ).toBe(true);
  const from = since?.kind === Kind.INT ? Number(since.value) : 0;
  const last = (await state.server.gqlOk<{ lastEventSeq: number }>('{ lastEventSeq }', {}, { headers: state.headers }))
    .lastEventSeq;
  expect(last, 'the subscription example has nothing to replay').toBeGreaterThan(from);
  const filtered = args.has('types');
  const controller = new AbortController();
  const res = await fetch(state.server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...state.headers },
    body: JSON.stringify({ query }),
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const seqOf = (p: { data?: Data }) => Number((Object.values(p.data ?? {})[0] as Data | undefined)?.seq);
  const payloads = await readEvents(res, (got) =>
    filtered ? got.length > 0 : got.length > 0 && (got.some((p) => p.errors) || seqOf(got.at(-1)!) >= last),
  );
  controller.abort();
  for (const p of payloads) expect(p.errors, errorsOf(p)).toBeUndefined();
  if (filtered) expect(payloads.length).toBeGreaterThan(0);
  else expect(payloads.map(seqOf)).toEqual(Array.from({ length: last - from }, (_, i) => from + i + 1));
}

async function runGraphql(state: RunState, block: Block): Promise<void> {
  for (const m of block.body.matchAll(/^\s*#\s*Headers:\s*(\{.*\})\s*$/gm)) {
    Object.assign(state.headers, JSON.parse(m[1]!) as Record<string, string>);
  }
  const expected = /^\s*#\s*Expect:\s*([A-Z_]+)\s*$/m.exec(block.body)?.[1];
  const query = fill(block.body, state.placeholders);
  const operation = parse(query).definitions.find(
    (d): d is OperationDefinitionNode => d.kind === 'OperationDefinition',
  );
  if (operation?.operation === 'subscription') return runSubscription(state, query, operation);
  const res = await state.server.gql(query, undefined, { headers: state.headers });
  if (expected) {
    expect(
      res.errors?.map((e) => e.extensions?.code),
      errorsOf(res),
    ).toEqual([expected]);
  } else {
    expect(res.errors, errorsOf(res)).toBeUndefined();
    expect(res.status).toBe(200);
  }
  for (const r of recalls(res.data)) expect(r.hits.length, 'a recall example found nothing').toBeGreaterThan(0);
  if (operation?.operation === 'mutation') noteEntries(state, res.data);
}

/** A block's commands: lines, with `\`-continued lines joined, comments and blanks dropped. */
function commands(body: string): string[] {
  return body
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));
}

function run(
  state: RunState,
  file: string,
  args: string[],
  cwd = state.scratch,
): Promise<{ code: number | null; out: string; stdout: string }> {
  const childEnv = cliEnv({
    SPHERE_DATA_DIR: state.server.dataDir,
    PATH: `${state.bin}:${process.env.PATH ?? ''}`,
    LOG_LEVEL: 'warn',
  });
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env: childEnv, stdio: 'pipe' });
    let out = '';
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, stdout }));
    child.stdin.end();
  });
}

/** The output of a command when it is a GraphQL response. */
function graphqlResponse(stdout: string): { data?: Data | null; errors?: GqlError[] } | null {
  try {
    const body = JSON.parse(stdout) as unknown;
    return body && typeof body === 'object' && ('data' in body || 'errors' in body)
      ? (body as { data?: Data | null; errors?: GqlError[] })
      : null;
  } catch {
    return null;
  }
}

async function runSh(state: RunState, block: Block): Promise<void> {
  for (const line of commands(block.body)) {
    const command = readdress(fill(line, state.placeholders), state);
    const { code, out, stdout } = await run(state, 'bash', ['-o', 'pipefail', '-c', command]);
    expect(code, `\`${command}\` exited ${code}:\n${out}`).toBe(0);
    const response = graphqlResponse(stdout);
    if (response) {
      expect(response.errors, `\`${command}\`: ${errorsOf(response)}`).toBeUndefined();
      for (const r of recalls(response.data))
        expect(r.hits.length, 'a recall example found nothing').toBeGreaterThan(0);
      noteEntries(state, response.data);
    }
    const tokenId = /^id: (\S+)$/m.exec(out);
    if (/\bmini-sphere token create\b/.test(command) && tokenId) state.placeholders.set('token id', tokenId[1]!);
  }
}

/** A program's text in a file of its own, run to completion by `command`. */
async function runProgram(state: RunState, block: Block, file: string, command: string[], cwd?: string): Promise<void> {
  await writeFile(file, readdress(fill(block.body, state.placeholders), state));
  const { code, out } = await run(state, command[0]!, [...command.slice(1), file], cwd);
  expect(code, `the ${block.lang} example exited ${code}:\n${out}`).toBe(0);
}

/** Where TypeScript examples live while they run: inside the repository, so their imports resolve. */
const TS_DIR = join(ROOT, 'node_modules', '.cache', 'doc-examples');

/** Strict TypeScript as a user's project would check it, against the client's published types. */
const TSC = [
  join(ROOT, 'node_modules/typescript/bin/tsc'),
  ...['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext'],
  ...['--target', 'es2022', '--types', 'node'],
];

async function runTs(state: RunState, block: Block): Promise<void> {
  const file = join(TS_DIR, `example-${process.pid}-${block.line}.mts`);
  await runProgram(state, block, file, [process.execPath, '--import', 'tsx'], ROOT);
  const { code, out } = await run(state, process.execPath, [...TSC, file], ROOT);
  expect(code, `the ts example does not typecheck:\n${out}`).toBe(0);
}

/** Why Python examples cannot run here, or null when they can. */
function pythonMissing(body: string): string | null {
  const modules = [...body.matchAll(/^(?:import|from) ([\w.]+)/gm)].map((m) => m[1]!.split('.')[0]!);
  try {
    execFileSync('python3', ['-c', modules.map((m) => `import ${m}`).join('; ') || 'pass'], { stdio: 'pipe' });
    return null;
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '')
      .trim()
      .split('\n')
      .at(-1);
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return 'python3 is not installed (apt-get install -y python3)';
    const missing = /No module named '([\w.]+)'/.exec(stderr ?? '')?.[1]?.split('.')[0];
    return `python3 cannot import what the example needs: ${stderr}${missing ? ` (pip install ${missing})` : ''}`;
  }
}

async function runPython(state: RunState, block: Block, skip: (note: string) => void): Promise<void> {
  const missing = pythonMissing(block.body);
  if (missing) {
    if (process.env.CI === 'true') throw new Error(`${missing}; CI must install it`);
    console.warn(`skipping the Python example: ${missing}`);
    skip(missing);
    return;
  }
  await runProgram(state, block, join(state.scratch, `example-${block.line}.py`), ['python3']);
}

/** A directory for PATH: `mini-sphere` is this repository's bin, and `npx` runs it as npx would here. */
async function binDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'readme-bin-'));
  await symlink(CLI_BIN, join(dir, 'mini-sphere'));
  const npx = join(dir, 'npx');
  await writeFile(
    npx,
    '#!/bin/sh\n[ "$1" = mini-sphere ] || { echo "npx $1: only npx mini-sphere runs here" >&2; exit 127; }\nexec "$@"\n',
  );
  await chmod(npx, 0o755);
  return dir;
}

let state: RunState;

beforeAll(async () => {
  await mkdir(TS_DIR, { recursive: true });
  state = {
    server: await startTestServer(),
    scratch: await mkdtemp(join(tmpdir(), 'readme-run-')),
    bin: await binDir(),
    headers: {},
    placeholders: new Map(),
    entryIds: [],
  };
});

afterAll(async () => {
  await state?.server.stop();
  for (const dir of [state?.scratch, state?.bin]) if (dir) await rm(dir, { recursive: true, force: true });
  await rm(join(TS_DIR), { recursive: true, force: true });
});

describe.sequential.each(PAGES)('%s', (page) => {
  const { blocks, skipped } = docBlocks(readPage(page), page);

  it('marks every block it does not run, with a reason', () => {
    const unexplained = skipped.filter((s) => s.reason.length < 10);
    expect(
      unexplained.map((s) => `line ${s.line} (${s.lang || 'no language'})`),
      'put `<!-- readme-test: skip (why) -->` right before each, or make it a block the test runs',
    ).toEqual([]);
  });

  it('starts from a fresh page', () => {
    state.headers = {};
    state.placeholders = new Map();
    state.entryIds = [];
  });

  for (const block of blocks) {
    const text = block.body
      .replace(/^\s*#.*$/gm, '')
      .replace(/\s+/g, ' ')
      .trim();
    // A shell block starts one process per command, so each command gets a whole test's budget.
    const timeout = block.lang === 'sh' ? TEST_BUDGET * commands(block.body).length : TEST_BUDGET;
    it(`line ${block.line} (${block.lang}): ${text.slice(0, 70)}`, { timeout }, (ctx) => {
      if (block.lang === 'graphql') return runGraphql(state, block);
      if (block.lang === 'sh') return runSh(state, block);
      if (block.lang === 'ts') return runTs(state, block);
      return runPython(state, block, (note) => ctx.skip(note));
    });
  }
});

describe('the pages', () => {
  it('have GraphQL, shell, TypeScript and Python examples to run', () => {
    const langs = new Set(PAGES.flatMap((p) => docBlocks(readPage(p), p).blocks.map((b) => b.lang)));
    expect([...langs].sort()).toEqual([...RUNNABLE].sort());
  });
});
