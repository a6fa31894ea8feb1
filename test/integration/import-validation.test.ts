import { mkdtemp, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { APPEND, CAPTURE, captureId, LINK } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';
import { dumpWorkspace, openWorkspaceDb } from '../helpers/workspace-db.ts';

/** Starting CLI processes on a loaded machine is slow; this bounds a hang, it times nothing. */
const CLI_TEST_TIMEOUT = 180_000;

let srv: TestServer;
let scratch: string;
const env = () => ({ SPHERE_DATA_DIR: srv.dataDir });

beforeAll(async () => {
  srv = await startTestServer();
  scratch = await mkdtemp(join(tmpdir(), 'mini-sphere-import-'));
});
afterAll(async () => {
  await srv?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

type Rec = Record<string, unknown>;
const AT = '2026-01-01T00:00:00.000Z';

const header = (workspace: string): Rec => ({
  type: 'header',
  format: 'mini-sphere-export',
  version: 1,
  workspace,
  exportedAt: AT,
});
const entry = (id: string, extra: Rec = {}): Rec => ({
  type: 'entry',
  id,
  content: `Entry ${id} about the storage layer`,
  kind: 'SEMANTIC',
  status: 'ACTIVE',
  volatility: 'DURABLE',
  volatilitySource: 'caller',
  importance: 0.5,
  claimTag: 'UNKNOWN',
  evidenceRef: null,
  recallCount: 0,
  observedAt: null,
  createdAt: AT,
  updatedAt: AT,
  tags: ['storage'],
  revisions: [],
  ...extra,
});
const edge = (src: string, dst: string, edgeType = 'RELATES_TO', extra: Rec = {}): Rec => ({
  type: 'edge',
  src,
  dst,
  edgeType,
  weight: 0.5,
  provenance: 'EXPLICIT',
  metadata: null,
  createdAt: AT,
  updatedAt: AT,
  ...extra,
});
/** A complete file: header, the records, and an end record that counts them. */
const exportOf = (workspace: string, records: Rec[]): Rec[] => [
  header(workspace),
  ...records,
  {
    type: 'end',
    entries: records.filter((r) => r.type === 'entry').length,
    edges: records.filter((r) => r.type === 'edge').length,
  },
];
const jsonl = (records: Rec[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;

let fileCounter = 0;
async function writeExport(text: string | Buffer): Promise<string> {
  const file = join(scratch, `file-${++fileCounter}.jsonl`);
  await writeFile(file, text);
  return file;
}

/** Every file of the data dir that belongs to workspace `ws`: its database, -wal, -shm, or a partial import. */
async function filesOf(ws: string): Promise<string[]> {
  return (await readdir(srv.dataDir)).filter((name) => name.startsWith(ws) || name.startsWith(`.${ws}`));
}

async function auditRows(ws: string): Promise<number> {
  const db = await openWorkspaceDb(srv.dbPath(ws));
  try {
    return Number((await db.execute('SELECT count(*) AS n FROM audit_log')).rows[0]?.n);
  } finally {
    db.close();
  }
}

interface BadFile {
  name: string;
  /** The file's text (or bytes) for a target workspace whose export it claims to be. */
  text: (ws: string) => string | Buffer;
  message: RegExp;
  /** Extra arguments (the file is the last one). */
  args?: string[];
}

const BAD_FILES: BadFile[] = [
  {
    name: 'a duplicate id with different content',
    text: (ws) => jsonl(exportOf(ws, [entry('e-1'), entry('e-2'), entry('e-1', { content: 'something else' })])),
    message: /line 4: duplicate entry id "e-1" \(first on line 2\)/,
  },
  {
    name: 'an edge to an entry the file lacks',
    text: (ws) => jsonl(exportOf(ws, [entry('e-1'), entry('e-2'), edge('e-1', 'e-missing')])),
    message: /line 4: RELATES_TO edge "e-1" -> "e-missing": no entry "e-missing" in the file/,
  },
  {
    name: 'a file cut off in the middle of a line',
    text: (ws) => {
      const full = jsonl(exportOf(ws, [entry('e-1'), entry('e-2'), entry('e-3'), edge('e-1', 'e-2')]));
      const lines = full.split('\n');
      // Cut halfway through the edge line: the entries before it are whole and valid.
      return `${lines.slice(0, 4).join('\n')}\n${lines[4]?.slice(0, 40)}`;
    },
    message: /line 5: not valid JSON; line 5: the file ends without an end record; it may be cut off/,
  },
  {
    name: 'a file cut off at a line break (no end record)',
    text: (ws) => jsonl([header(ws), entry('e-1'), entry('e-2')]),
    message: /line 3: the file ends without an end record; it may be cut off/,
  },
  {
    name: 'an end record whose counts are wrong',
    text: (ws) =>
      jsonl([header(ws), entry('e-1'), entry('e-2'), edge('e-1', 'e-2'), { type: 'end', entries: 3, edges: 1 }]),
    message: /line 5: the end record counts 3 entries and 1 edges, but the file holds 2 and 1/,
  },
  {
    name: 'a revision of 200,000 characters',
    text: (ws) =>
      jsonl(
        exportOf(ws, [
          entry('e-1'),
          entry('e-2', { revisions: [{ content: 'x'.repeat(200_000), op: 'UPDATE', at: AT }] }),
        ]),
      ),
    message: /line 3: invalid entry record: revisions\.0\.content: must not be longer than 100000 characters/,
  },
  {
    name: '1 MB of edge metadata',
    text: (ws) =>
      jsonl(
        exportOf(ws, [
          entry('e-1'),
          entry('e-2'),
          edge('e-1', 'e-2', 'CAUSED_BY', { metadata: { blob: 'y'.repeat(1_000_000) } }),
        ]),
      ),
    message: /line 4: invalid edge record: metadata: must not be larger than 16000 characters of JSON/,
  },
  {
    name: 'an entry id with U+0000',
    text: (ws) => jsonl(exportOf(ws, [entry('e-1'), entry('e\u00002')])),
    message: /line 3: invalid entry record: id: must not contain the NUL character \(U\+0000\)/,
  },
  {
    name: 'content with U+0000',
    text: (ws) => jsonl(exportOf(ws, [entry('e-1', { content: 'cut\u0000here' })])),
    message: /line 2: invalid entry record: content: must not contain the NUL character \(U\+0000\)/,
  },
  {
    name: 'edge metadata nested 1,000 deep',
    text: (ws) =>
      jsonl(
        exportOf(ws, [
          entry('e-1'),
          entry('e-2'),
          edge('e-1', 'e-2', 'CAUSED_BY', { metadata: { a: JSON.parse(`${'['.repeat(1_000)}${']'.repeat(1_000)}`) } }),
        ]),
      ),
    message: /line 4: invalid edge record: metadata: must not nest deeper than 64 levels/,
  },
  {
    name: 'an edge its entries’ kinds do not allow (FOLLOWS from a SEMANTIC entry to a PERSON)',
    text: (ws) => jsonl(exportOf(ws, [entry('e-1'), entry('e-2', { kind: 'PERSON' }), edge('e-1', 'e-2', 'FOLLOWS')])),
    message: /line 4: FOLLOWS edge "e-1" -> "e-2": FOLLOWS needs a EPISODIC source, got SEMANTIC/,
  },
  {
    name: 'a year-9999 creation date',
    text: (ws) => jsonl(exportOf(ws, [entry('e-1'), entry('e-2', { createdAt: '9999-12-31T00:00:00.000Z' })])),
    message:
      /line 3: invalid entry record: createdAt: must lie between 1970-01-01T00:00:00\.000Z and 2200-12-31T23:59:59\.999Z/,
  },
  {
    name: 'a year-9999 observation date',
    text: (ws) => jsonl(exportOf(ws, [entry('e-1', { observedAt: '9999-01-01T00:00:00Z' })])),
    message: /line 2: invalid entry record: observedAt: must lie between .* and 2200-12-31T23:59:59\.999Z/,
  },
  {
    name: 'two entries superseding each other',
    text: (ws) =>
      jsonl(
        exportOf(ws, [
          entry('e-1'),
          entry('e-2'),
          edge('e-1', 'e-2', 'SUPERSEDES', { weight: 1 }),
          edge('e-2', 'e-1', 'SUPERSEDES', { weight: 1 }),
        ]),
      ),
    message: /line 5: SUPERSEDES edge "e-2" -> "e-1" closes a cycle of supersession through "e-1", "e-2"/,
  },
  {
    name: 'three entries superseding each other in a ring',
    text: (ws) =>
      jsonl(
        exportOf(ws, [
          entry('e-1'),
          entry('e-2'),
          entry('e-3'),
          entry('e-4'),
          edge('e-1', 'e-2', 'SUPERSEDES', { weight: 1 }),
          edge('e-4', 'e-1', 'SUPERSEDES', { weight: 1 }),
          edge('e-2', 'e-3', 'SUPERSEDES', { weight: 1 }),
          edge('e-3', 'e-1', 'SUPERSEDES', { weight: 1 }),
        ]),
      ),
    message: /line 9: SUPERSEDES edge "e-3" -> "e-1" closes a cycle of supersession through "e-1", "e-2", "e-3" \(/,
  },
  {
    name: 'a line that is not UTF-8',
    text: (ws) => {
      const bytes = Buffer.from(jsonl(exportOf(ws, [entry('e-1'), entry('e-2', { content: 'caf@ au lait' })])));
      // A lone Latin-1 é where UTF-8 needs two bytes: the old reader stored it as U+FFFD.
      bytes[bytes.indexOf('@')] = 0xe9;
      return bytes;
    },
    message: /line 3: not valid UTF-8 \(byte \d+ of the line is 0xe9\)/,
  },
  {
    name: 'an entry updated before it was created',
    text: (ws) =>
      jsonl(exportOf(ws, [entry('e-1'), entry('e-2', { createdAt: '2026-02-01T00:00:00.000Z', updatedAt: AT })])),
    message: /line 3: invalid entry record: updatedAt: must not be before createdAt \(2026-02-01T00:00:00\.000Z\)/,
  },
  {
    name: 'a revision dated after the entry was last changed',
    text: (ws) =>
      jsonl(
        exportOf(ws, [
          entry('e-1', { revisions: [{ content: 'the first text', op: 'UPDATE', at: '2026-03-01T00:00:00.000Z' }] }),
        ]),
      ),
    message:
      /line 2: invalid entry record: revisions\.0\.at: must not be after updatedAt \(2026-01-01T00:00:00\.000Z\)/,
  },
  {
    name: 'an edge updated before it was created',
    text: (ws) =>
      jsonl(
        exportOf(ws, [
          entry('e-1'),
          entry('e-2'),
          edge('e-1', 'e-2', 'CAUSED_BY', { createdAt: '2026-02-01T00:00:00.000Z', updatedAt: AT }),
        ]),
      ),
    message: /line 4: invalid edge record: updatedAt: must not be before createdAt/,
  },
  {
    name: 'the same edge twice (RELATES_TO written both ways)',
    text: (ws) =>
      jsonl(exportOf(ws, [entry('e-1'), entry('e-2'), edge('e-1', 'e-2'), edge('e-2', 'e-1', 'RELATES_TO')])),
    message: /line 5: RELATES_TO edge "e-2" -> "e-1": the same edge as on line 4 \(a workspace holds each edge once\)/,
  },
  {
    name: "another workspace's export without --from",
    text: () => jsonl(exportOf('elsewhere', [entry('e-1')])),
    message:
      /line 1: the file is an export of workspace "elsewhere", not of "[^"]+"; to import it into "[^"]+", pass --from elsewhere/,
  },
  {
    name: 'a --from that names another workspace than the header',
    text: () => jsonl(exportOf('elsewhere', [entry('e-1')])),
    args: ['--from', 'somewhere'],
    message: /line 1: the file is an export of workspace "elsewhere", not of "somewhere" as --from says/,
  },
];

/** Any workspace's export may seed a workspace the import creates; only an existing one needs --from. */
const refusedEverywhere = BAD_FILES.filter((c) => !c.name.includes('without --from'));

describe('import refuses a bad file whole', () => {
  it.concurrent.for(refusedEverywhere)(
    'into a new workspace, $name: exit 1, one line naming the line and the problem, no workspace file',
    { timeout: CLI_TEST_TIMEOUT },
    async (c, { expect }) => {
      const ws = freshWorkspace('bad');
      const file = await writeExport(c.text(ws));
      const res = await runCli(['import', '--workspace', ws, '--create', ...(c.args ?? []), file], env());
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(c.message);
      expect(res.stderr).toMatch(/; nothing was imported\n$/);
      expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(res.stdout).toBe('');
      expect(await filesOf(ws)).toEqual([]);
    },
  );

  it(
    'into an existing workspace (served meanwhile): exit 1 and the same rows as before',
    async () => {
      const ws = freshWorkspace('live');
      const a = await captureId(srv, { content: 'The first design' }, { workspace: ws });
      const b = await captureId(srv, { content: 'The second design', replaces: a }, { workspace: ws });
      await srv.gqlOk(APPEND, { id: b, addition: 'It keeps the first one as history.' }, { workspace: ws });
      const before = await dumpWorkspace(srv.dbPath(ws));
      const auditBefore = await auditRows(ws);

      // The workspace's own export, plus one edge reversing its SUPERSEDES edge (b supersedes a).
      const exportFile = join(scratch, `${ws}.jsonl`);
      expect((await runCli(['export', '--workspace', ws, '--out', exportFile], env())).code).toBe(0);
      const records = (await readFile(exportFile, 'utf8'))
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Rec);
      // Without the file's own b -> a edge, which the file itself would already refuse with a -> b beside it.
      const body = records.slice(1, -1).filter((r) => r.edgeType !== 'SUPERSEDES');
      const reversing = await writeExport(jsonl(exportOf(ws, [...body, edge(a, b, 'SUPERSEDES', { weight: 1 })])));
      const badFiles = BAD_FILES.filter((c) => !c.args);
      const results = await Promise.all([
        runCli(['import', '--workspace', ws, reversing], env()),
        ...badFiles.map(async (c) => runCli(['import', '--workspace', ws, await writeExport(c.text(ws))], env())),
      ]);
      const [reversed, ...rest] = results;
      expect(reversed?.code).toBe(1);
      expect(reversed?.stderr).toMatch(
        new RegExp(
          `line ${body.length + 2}: with the edges workspace "${ws}" holds, SUPERSEDES edge "${a}" -> "${b}" closes a cycle`,
        ),
      );
      rest.forEach((res, i) => {
        expect(res.code, badFiles[i]?.name).toBe(1);
        expect(res.stderr, badFiles[i]?.name).toMatch(badFiles[i]?.message ?? /./);
      });
      expect(await dumpWorkspace(srv.dbPath(ws))).toEqual(before);
      expect(await auditRows(ws)).toBe(auditBefore);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'into an existing idle workspace: the database file stays byte for byte the same',
    async () => {
      const ws = freshWorkspace('idle');
      const good = await writeExport(jsonl(exportOf(ws, [entry('e-1'), entry('e-2'), edge('e-1', 'e-2')])));
      const first = await runCli(['import', '--workspace', ws, '--create', good], env());
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      const bytes = await readFile(srv.dbPath(ws));
      const files = await filesOf(ws);

      const bad = await writeExport(
        jsonl(exportOf(ws, [entry('e-3'), entry('e-4'), entry('e-3', { content: 'a different text' })])),
      );
      const res = await runCli(['import', '--workspace', ws, bad], env());
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/line 4: duplicate entry id "e-3"/);
      expect((await readFile(srv.dbPath(ws))).equals(bytes)).toBe(true);
      expect(await filesOf(ws)).toEqual(files);
    },
    CLI_TEST_TIMEOUT,
  );
});

describe('import reads strictly', () => {
  it(
    'a file whose SUPERSEDES edge closes a ring with the workspace’s own edges is refused whole',
    async () => {
      const ws = freshWorkspace('ring');
      const capture = (content: string) => captureId(srv, { content }, { workspace: ws });
      const [a, b, c] = [await capture('Plan A'), await capture('Plan B'), await capture('Plan C')];
      await srv.gqlOk(LINK, { input: { src: a, dst: b, type: 'SUPERSEDES' } }, { workspace: ws });
      await srv.gqlOk(LINK, { input: { src: b, dst: c, type: 'SUPERSEDES' } }, { workspace: ws });
      const before = await dumpWorkspace(srv.dbPath(ws));
      const auditBefore = await auditRows(ws);

      // New entries as well, so that a partial import would show; the ring closes on the last line.
      // The ring's own entries are in the file too, as in any export of the workspace.
      const file = await writeExport(
        jsonl(
          exportOf(ws, [
            entry('n-1'),
            entry('n-2'),
            { ...entry(a), content: 'Plan A' },
            { ...entry(c), content: 'Plan C' },
            edge('n-1', 'n-2'),
            edge(c, a, 'SUPERSEDES', { weight: 1 }),
          ]),
        ),
      );
      const res = await runCli(['import', '--workspace', ws, file], env());
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(
        new RegExp(
          `line 7: with the edges workspace "${ws}" holds, SUPERSEDES edge "${c}" -> "${a}" closes a cycle of supersession through .*; nothing was imported`,
        ),
      );
      expect(await dumpWorkspace(srv.dbPath(ws))).toEqual(before);
      expect(await auditRows(ws)).toBe(auditBefore);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'a 150 MB line is refused at its first 8 MiB, without reading it into memory',
    async () => {
      const ws = freshWorkspace('long');
      const file = join(scratch, 'long-line.jsonl');
      const out = await open(file, 'w');
      try {
        await out.write(`${JSON.stringify(header(ws))}\n${JSON.stringify(entry('e-1'))}\n`);
        await out.write('{"type":"entry","id":"e-2","content":"');
        const block = Buffer.alloc(1024 * 1024, 'x');
        for (let i = 0; i < 150; i++) await out.write(block);
        await out.write(`"}\n${JSON.stringify({ type: 'end', entries: 2, edges: 0 })}\n`);
      } finally {
        await out.close();
      }
      // The CLI's own peak resident memory, printed as it exits.
      const res = await runCli(['import', '--workspace', ws, '--create', file], {
        ...env(),
        NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(PEAK_RSS_ON_EXIT)}`,
      });
      await rm(file, { force: true });
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(
        /line 3: longer than 8388608 bytes \(an entry with that much revision history may be; pass --max-line-mb to read longer lines\); nothing was imported/,
      );
      const peakMb = Number(/peak-rss-kb (\d+)/.exec(res.stderr)?.[1]) / 1024;
      console.log(`import of a file with a 150 MB line: refused, peak RSS ${peakMb.toFixed(0)} MB`);
      // The line alone is 150 MB; reading it whole took 570.
      expect(peakMb).toBeGreaterThan(0);
      expect(peakMb).toBeLessThan(150);
      expect(await filesOf(ws)).toEqual([]);
    },
    CLI_TEST_TIMEOUT,
  );
});

describe('import --max-line-mb', () => {
  it(
    'reads the long line of an entry with a long history when asked to, and refuses it by default',
    async () => {
      const ws = freshWorkspace('history');
      // 90 revisions of 100,000 characters: a 9 MB line, as export writes such an entry.
      const revisions = Array.from({ length: 90 }, (_, i) => ({
        content: `${i} `.padEnd(100_000, 'y'),
        op: 'UPDATE',
        at: AT,
      }));
      const file = await writeExport(jsonl(exportOf(ws, [entry('e-1'), entry('e-2', { revisions })])));
      const refused = await runCli(['import', '--workspace', ws, '--create', file], env());
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/line 3: longer than 8388608 bytes .*pass --max-line-mb/);
      expect(await filesOf(ws)).toEqual([]);
      const read = await runCli(
        ['import', '--workspace', ws, '--create', '--max-line-mb', '16', file, '--json'],
        env(),
      );
      expect(read.stderr).toBe('');
      expect(read.code).toBe(0);
      expect(JSON.parse(read.stdout)).toMatchObject({ entries: { imported: 2 }, revisions: 90 });
    },
    CLI_TEST_TIMEOUT,
  );
});

/** A module a CLI process imports first: at exit it prints its peak resident memory to stderr. */
const PEAK_RSS_ON_EXIT =
  "process.on('exit', () => process.stderr.write('peak-rss-kb ' + process.resourceUsage().maxRSS + '\\n'));";

describe('import of a good file', () => {
  it(
    'round-trips into a new workspace with --from (file and stdin), and leaves no partial file',
    async () => {
      const from = freshWorkspace('orig');
      const capture = (input: Rec) => captureId(srv, input, { workspace: from });
      const a = await capture({
        content: 'Deploys go out on Tuesdays',
        tags: ['deploy'],
        observedAt: '1969-07-20T20:17:00Z',
      });
      const b = await capture({ content: 'Deploys go out on Wednesdays', replaces: a, tags: ['deploy'] });
      const c = await capture({ content: 'Kim runs the deploys', kind: 'PERSON' });
      await srv.gqlOk(APPEND, { id: b, addition: 'Since March.' }, { workspace: from });
      await srv.gqlOk(
        LINK,
        { input: { src: b, dst: c, type: 'RELATES_TO', metadata: { why: 'owner' } } },
        { workspace: from },
      );
      const file = join(scratch, `${from}.jsonl`);
      expect((await runCli(['export', '--workspace', from, '--out', file], env())).code).toBe(0);

      const to = freshWorkspace('copy');
      const viaStdin = freshWorkspace('piped');
      const [imported, piped] = await Promise.all([
        runCli(['import', '--workspace', to, '--create', '--from', from, file, '--json'], env()),
        runCli(
          ['import', '--workspace', viaStdin, '--create', '--from', from, '-', '--json'],
          env(),
          await readFile(file, 'utf8'),
        ),
      ]);
      for (const res of [imported, piped]) {
        expect(res.stderr).toBe('');
        expect(res.code).toBe(0);
        expect(JSON.parse(res.stdout)).toMatchObject({
          from,
          entries: { imported: 3, skipped: 0 },
          revisions: 1,
          edges: { imported: 2, skipped: 0 },
        });
      }
      // The database alone: no partial file, and no WAL still holding part of the import.
      expect(await filesOf(to)).toEqual([`${to}.db`]);
      expect(await filesOf(viaStdin)).toEqual([`${viaStdin}.db`]);
      const strip = (dump: Awaited<ReturnType<typeof dumpWorkspace>>) => ({
        ...dump,
        entries: dump.entries.map(({ n: _n, ...rest }) => rest),
        revisions: dump.revisions.map(({ id: _id, ...rest }) => rest),
        events: [],
      });
      const source = strip(await dumpWorkspace(srv.dbPath(from)));
      expect(strip(await dumpWorkspace(srv.dbPath(to)))).toEqual(source);
      expect(strip(await dumpWorkspace(srv.dbPath(viaStdin)))).toEqual(source);

      // Again into the now existing copy: nothing new, and the workspace opens and checks clean.
      const again = await runCli(['import', '--workspace', to, '--from', from, file], env());
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/entries 0 new, 3 already there/);
      const check = await runCli(['check', '--workspace', to], env());
      expect(check.code).toBe(0);
    },
    CLI_TEST_TIMEOUT,
  );
});

describe('the API refuses what import refuses', () => {
  it('link refuses a SUPERSEDES edge whose reverse exists (SUPERSEDES_CYCLE), and writes nothing', async () => {
    const ws = freshWorkspace('cycle');
    const capture = (content: string) => captureId(srv, { content }, { workspace: ws });
    const older = await capture('The cache lives in Redis');
    const newer = await capture('The cache lives in process memory');
    await srv.gqlOk(LINK, { input: { src: newer, dst: older, type: 'SUPERSEDES' } }, { workspace: ws });
    const before = await dumpWorkspace(srv.dbPath(ws));

    const res = await srv.gql(LINK, { input: { src: older, dst: newer, type: 'SUPERSEDES' } }, { workspace: ws });
    expect(res.errors?.[0]?.extensions?.code).toBe('SUPERSEDES_CYCLE');
    expect(res.errors?.[0]?.message).toMatch(
      new RegExp(`${newer} already supersedes ${older}, directly or through a chain`),
    );
    expect(await dumpWorkspace(srv.dbPath(ws))).toEqual(before);

    // The same edge again, or a replacement of the newer entry, is no cycle.
    await srv.gqlOk(LINK, { input: { src: newer, dst: older, type: 'SUPERSEDES' } }, { workspace: ws });
    const replaced = await srv.gqlOk(
      CAPTURE,
      { input: { content: 'The cache lives in the database', replaces: newer } },
      { workspace: ws },
    );
    expect(replaced.capture.outcome).toBe('REPLACED');
  });

  it('capture refuses an observedAt past 2200 and link refuses metadata merged past its bound', async () => {
    const ws = freshWorkspace('bounds');
    const far = await srv.gql(
      CAPTURE,
      { input: { content: 'Seen in the far future', observedAt: '9999-12-31T00:00:00Z' } },
      { workspace: ws },
    );
    expect(far.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(far.errors?.[0]?.message).toMatch(/observedAt must not be later than 2200-12-31T23:59:59\.999Z/);

    const capture = (content: string) => captureId(srv, { content }, { workspace: ws });
    const x = await capture('One side');
    const y = await capture('The other side');
    const half = 'z'.repeat(9_000);
    await srv.gqlOk(LINK, { input: { src: x, dst: y, type: 'CAUSED_BY', metadata: { a: half } } }, { workspace: ws });
    const before = await dumpWorkspace(srv.dbPath(ws));
    const merged = await srv.gql(
      LINK,
      { input: { src: x, dst: y, type: 'CAUSED_BY', metadata: { b: half } } },
      { workspace: ws },
    );
    expect(merged.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(merged.errors?.[0]?.message).toMatch(/merged metadata would be larger than 16000 characters/);
    expect(await dumpWorkspace(srv.dbPath(ws))).toEqual(before);
  });
});
