/**
 * The README's examples, pasted in order into a fresh server, as a newcomer would.
 *
 * Conventions, chosen so that the README reads naturally to people:
 * - Only ```graphql and ```sh blocks run, top to bottom. A block right after the line
 *   `<!-- readme-test: skip (why) -->` does not run; SKIPPED lists every such block, so a new
 *   skip is a visible decision.
 * - A GraphQL block is one operation, POSTed to the server. A comment line
 *   `# Headers: {"x-workspace": "acme"}` sets headers for that block and every later one, as
 *   GraphiQL's Headers pane keeps them. A subscription runs over server-sent events until it
 *   has replayed one event per write the README made so far, then closes.
 * - An sh block runs one command at a time in bash (a line ending in `\` goes on), in a
 *   scratch directory, with `SPHERE_DATA_DIR` the server's, `mini-sphere` (and
 *   `npx mini-sphere`) the repository's bin, and `127.0.0.1:4000` / `localhost:4000`
 *   rewritten to the server's address.
 * - Placeholders: `<id a>`, `<id b>`, … are the entry ids of the README's captures, in order;
 *   `<token id>` is the id `mini-sphere token create` printed last. One without a value fails.
 * A block fails when a command exits non-zero, a response has errors, or a recall finds nothing.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OperationDefinitionNode, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BUDGET } from '../helpers/budget.ts';
import { CLI_BIN, cliEnv } from '../helpers/cli.ts';
import { type Data, type GqlError, startTestServer, type TestServer } from '../helpers/server.ts';

/** The first line of every block the README marks as not runnable here, and why. */
const SKIPPED = [
  'npm install && npm start', // the quick start: the test provides the server, and is the test suite
  'turso group create sphere', // needs a Turso account
  '# once, from a machine with the Turso CLI', // the deployment example: Turso, systemd, two machines
  'curl -fLo locomo10.json', // a download, then a benchmark of several minutes
];

interface Block {
  lang: 'graphql' | 'sh';
  line: number;
  body: string;
}

/** The runnable blocks of a Markdown text in order, and the first lines of the skipped ones. */
function readmeBlocks(markdown: string): { blocks: Block[]; skipped: string[] } {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  const skipped: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`README line ${i + 1}: unclosed code block`);
    const body = lines.slice(i + 1, end).join('\n');
    const lang = open[1];
    if (lang === 'graphql' || lang === 'sh') {
      if (/^<!-- readme-test: skip\b/.test(lines[i - 1] ?? '')) skipped.push(body.split('\n')[0]!);
      else blocks.push({ lang, line: i + 1, body });
    }
    i = end;
  }
  return { blocks, skipped };
}

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const { blocks, skipped } = readmeBlocks(README);

/** Everything earlier blocks left for later ones. */
interface RunState {
  server: TestServer;
  scratch: string;
  bin: string;
  headers: Record<string, string>;
  placeholders: Map<string, string>;
  entryIds: string[];
  writes: number;
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

/** Every `recall` result in a response, wherever it sits. */
function recalls(value: unknown): { hits: unknown[] }[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) =>
    key === 'recall' && v && typeof v === 'object' && 'hits' in v ? [v as { hits: unknown[] }] : recalls(v),
  );
}

/** Reads server-sent events until `enough` payloads have come or the stream ends. */
async function readEvents(res: Response, enough: number): Promise<{ data?: Data; errors?: GqlError[] }[]> {
  const payloads: { data?: Data; errors?: GqlError[] }[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (payloads.length < enough) {
    const { value, done } = await reader.read();
    if (done) break;
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

async function runSubscription(state: RunState, query: string): Promise<void> {
  const controller = new AbortController();
  const res = await fetch(state.server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...state.headers },
    body: JSON.stringify({ query }),
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const payloads = await readEvents(res, Math.max(state.writes, 1));
  controller.abort();
  for (const p of payloads) expect(p.errors, errorsOf(p)).toBeUndefined();
  expect(payloads.length, 'the subscription replayed fewer events than the README wrote').toBeGreaterThanOrEqual(
    Math.max(state.writes, 1),
  );
}

async function runGraphql(state: RunState, block: Block): Promise<void> {
  for (const m of block.body.matchAll(/^\s*#\s*Headers:\s*(\{.*\})\s*$/gm)) {
    Object.assign(state.headers, JSON.parse(m[1]!) as Record<string, string>);
  }
  const query = fill(block.body, state.placeholders);
  const operation = parse(query).definitions.find(
    (d): d is OperationDefinitionNode => d.kind === 'OperationDefinition',
  );
  if (operation?.operation === 'subscription') return runSubscription(state, query);
  const res = await state.server.gql(query, undefined, { headers: state.headers });
  expect(res.errors, errorsOf(res)).toBeUndefined();
  expect(res.status).toBe(200);
  for (const r of recalls(res.data)) expect(r.hits.length, 'a recall example found nothing').toBeGreaterThan(0);
  if (operation?.operation !== 'mutation') return;
  for (const payload of Object.values(res.data ?? {}) as (Data | null)[]) {
    if (payload && payload.outcome !== 'BLOCKED') state.writes += 1;
    const id = payload?.outcome !== undefined ? payload.entry?.id : undefined;
    if (typeof id === 'string' && !state.entryIds.includes(id)) {
      state.entryIds.push(id);
      state.placeholders.set(`id ${String.fromCharCode(96 + state.entryIds.length)}`, id);
    }
  }
}

/** A block's commands: lines, with `\`-continued lines joined, comments and blanks dropped. */
function commands(body: string): string[] {
  return body
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));
}

function bash(state: RunState, command: string): Promise<{ code: number | null; out: string }> {
  const env = cliEnv({
    SPHERE_DATA_DIR: state.server.dataDir,
    PATH: `${state.bin}:${process.env.PATH ?? ''}`,
    LOG_LEVEL: 'warn',
  });
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', command], { cwd: state.scratch, env, stdio: 'pipe' });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
    child.stdin.end();
  });
}

async function runSh(state: RunState, block: Block): Promise<void> {
  const address = new URL(state.server.url).host;
  for (const line of commands(block.body)) {
    const command = fill(line, state.placeholders).replace(/\b(?:127\.0\.0\.1|localhost):4000\b/g, address);
    const { code, out } = await bash(state, command);
    expect(code, `\`${command}\` exited ${code}:\n${out}`).toBe(0);
    const tokenId = /^id: (\S+)$/m.exec(out);
    if (/\bmini-sphere token create\b/.test(command) && tokenId) state.placeholders.set('token id', tokenId[1]!);
  }
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
  state = {
    server: await startTestServer(),
    scratch: await mkdtemp(join(tmpdir(), 'readme-run-')),
    bin: await binDir(),
    headers: {},
    placeholders: new Map(),
    entryIds: [],
    writes: 0,
  };
});

afterAll(async () => {
  await state?.server.stop();
  for (const dir of [state?.scratch, state?.bin]) if (dir) await rm(dir, { recursive: true, force: true });
});

describe('README', () => {
  it('skips only the blocks listed in SKIPPED', () => {
    expect(skipped.map((first) => SKIPPED.find((s) => first.startsWith(s)) ?? first)).toEqual(SKIPPED);
  });

  it('has GraphQL and shell examples to run', () => {
    expect(blocks.filter((b) => b.lang === 'graphql').length).toBeGreaterThan(0);
    expect(blocks.filter((b) => b.lang === 'sh').length).toBeGreaterThan(0);
  });

  describe.sequential('examples, in order', () => {
    for (const block of blocks) {
      const text = block.body
        .replace(/^\s*#.*$/gm, '')
        .replace(/\s+/g, ' ')
        .trim();
      // A shell block starts one process per command, so each command gets a whole test's budget.
      const timeout = block.lang === 'sh' ? TEST_BUDGET * commands(block.body).length : TEST_BUDGET;
      it(`line ${block.line} (${block.lang}): ${text.slice(0, 70)}`, { timeout }, () =>
        block.lang === 'graphql' ? runGraphql(state, block) : runSh(state, block),
      );
    }
  });
});
