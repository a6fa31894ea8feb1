import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { APPEND, CAPTURE, captureId, LINK, RECALL, UPDATE } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';
import { checkFtsIntegrity, dumpWorkspace, openWorkspaceDb } from '../helpers/workspace-db.ts';

let srv: TestServer;
let scratch: string;
const env = () => ({ SPHERE_DATA_DIR: srv.dataDir });

beforeAll(async () => {
  srv = await startTestServer();
  scratch = await mkdtemp(join(tmpdir(), 'mini-sphere-ops-'));
});
afterAll(async () => {
  await srv?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** A workspace with every kind of row: tags, revisions, each edge shape, observedAt, a replacement. */
async function seed(ws: string): Promise<string[]> {
  const capture = (input: Record<string, unknown>) => captureId(srv, input, { workspace: ws });
  const link = (input: Record<string, unknown>) => srv.gqlOk(LINK, { input }, { workspace: ws });
  const ids: string[] = [];
  ids.push(
    await capture({
      content: 'We chose libSQL for per-workspace storage because it embeds and also hosts.',
      tags: ['architecture', 'storage'],
      kind: 'SEMANTIC',
      volatility: 'DURABLE',
      importance: 0.8,
      claimTag: 'VERIFIED',
      evidenceRef: 'adr-0003',
      source: 'design review',
    }),
  );
  ids.push(
    await capture({ content: 'Deploy of the storage layer failed on Tuesday', kind: 'EPISODIC', tags: ['deploy'] }),
  );
  ids.push(await capture({ content: 'Kim Lee', kind: 'PERSON', tags: ['people'], observedAt: '2026-03-04T10:00:00Z' }));
  ids.push(await capture({ content: 'Project Atlas: the storage rewrite', kind: 'PROJECT', tags: ['atlas'] }));
  ids.push(
    await capture({ content: 'Runbook: how to roll back a deploy', kind: 'PROCEDURAL', tags: ['deploy', 'ops'] }),
  );
  ids.push(
    await capture({ content: 'Storage uses WAL mode with synchronous FULL', replaces: undefined, tags: ['storage'] }),
  );
  const replacement = await capture({
    content: 'Storage uses WAL mode; commits are grouped per workspace writer',
    replaces: ids[5],
    tags: ['storage', 'wal'],
  });
  ids.push(replacement);
  const [a, deploy, kim, atlas, runbook] = ids as [string, string, string, string, string];
  await srv.gqlOk(APPEND, { id: a, addition: 'Hosted mode uses one Turso database per workspace.' }, { workspace: ws });
  await srv.gqlOk(APPEND, { id: a, addition: 'Backups use VACUUM INTO.' }, { workspace: ws });
  await srv.gqlOk(
    UPDATE,
    { id: runbook, content: 'Runbook: roll back a deploy with the previous image tag' },
    { workspace: ws },
  );
  await link({ src: deploy, dst: a, type: 'RELATES_TO', weight: 0.7, metadata: { why: 'same layer' } });
  await link({ src: deploy, dst: kim, type: 'ABOUT_PERSON' });
  await link({ src: a, dst: atlas, type: 'PART_OF_PROJECT', weight: 0.5, provenance: 'INFERRED' });
  await link({ src: deploy, dst: runbook, type: 'CAUSED_BY', weight: 0.3 });
  for (let i = 0; i < 20; i++) {
    ids.push(
      await capture({
        content: `Note ${i} about storage, deploys and the atlas project number ${i}`,
        tags: [`n${i % 3}`],
      }),
    );
  }
  return ids;
}

const withoutLocalIds = (dump: Awaited<ReturnType<typeof dumpWorkspace>>) => ({
  entries: dump.entries.map(({ n: _n, ...rest }) => rest),
  tags: dump.tags,
  edges: dump.edges,
  revisions: dump.revisions.map(({ id: _id, ...rest }) => rest),
  ftsRows: dump.ftsRows,
});

async function recallIds(ws: string, q: string): Promise<string[]> {
  const data = await srv.gqlOk(RECALL, { q, topK: 10, hops: 1, asOf: '2026-12-01T00:00:00Z' }, { workspace: ws });
  // Recall bumps recall_count after the response; let it land before the next query reads it.
  await (await srv.server.registry.get(ws)).bookkeeper.flush();
  return (data.recall.hits as { entry: { id: string } }[]).map((h) => h.entry.id);
}

describe('export and import', () => {
  it('round-trips a workspace: same rows, ids, timestamps and recall results; a second import changes nothing', async () => {
    const from = freshWorkspace('exp');
    const to = freshWorkspace('imp');
    await seed(from);
    const file = join(scratch, 'export.jsonl');

    const exported = await runCli(['export', '--workspace', from, '--out', file], env());
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toMatch(/exported 27 entries and 5 edges/);
    const lines = (await readFile(file, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'header', version: 1, workspace: from });
    expect(lines.at(-1)).toEqual({ type: 'end', entries: 27, edges: 5 });
    expect(lines[1]).toMatchObject({ type: 'entry', tags: ['architecture', 'storage'] });
    expect(lines[1].revisions.map((r: { op: string }) => r.op)).toEqual(['APPEND', 'APPEND']);

    // The same bytes on stdout (but for the header's timestamp).
    const piped = await runCli(['export', '--workspace', from], env());
    expect(piped.code).toBe(0);
    expect(piped.stdout.split('\n').slice(1)).toEqual((await readFile(file, 'utf8')).split('\n').slice(1));

    const imported = await runCli(['import', '--workspace', to, '--create', '--from', from, file, '--json'], env());
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({
      entries: { imported: 27, skipped: 0 },
      revisions: 3,
      edges: { imported: 5, skipped: 0 },
    });

    const source = await dumpWorkspace(srv.dbPath(from));
    const target = await dumpWorkspace(srv.dbPath(to));
    expect(withoutLocalIds(target)).toEqual(withoutLocalIds(source));
    // An import is a restore, not a stream of API writes: one event says what it brought.
    expect(target.events).toMatchObject([{ seq: 1, type: 'IMPORTED', entry_id: null }]);
    expect(JSON.parse(target.events[0]!.data as string)).toEqual({
      from,
      entries: 27,
      entriesSkipped: 0,
      tags: 30,
      revisions: 3,
      edges: 5,
      edgesSkipped: 0,
    });
    await checkFtsIntegrity(srv.dbPath(to));

    const again = await runCli(['import', '--workspace', to, '--from', from, file], env());
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/entries 0 new, 27 already there/);
    expect(await dumpWorkspace(srv.dbPath(to))).toEqual(target);

    for (const q of ['storage', 'deploy rollback', 'why libSQL', 'Kim', 'atlas project']) {
      const expected = await recallIds(from, q);
      expect(expected.length).toBeGreaterThan(0);
      expect(await recallIds(to, q)).toEqual(expected);
    }

    const check = await runCli(['check', '--workspace', to], env());
    expect(check.code).toBe(0);
  });

  it('refuses an invalid file before writing anything', async () => {
    const to = freshWorkspace('bad');
    const file = join(scratch, 'bad.jsonl');
    const good = JSON.stringify({
      type: 'entry',
      id: 'e-1',
      content: 'fine',
      kind: 'SEMANTIC',
      status: 'ACTIVE',
      volatility: 'DURABLE',
      volatilitySource: 'caller',
      importance: 0.5,
      claimTag: 'UNKNOWN',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    const header = JSON.stringify({
      type: 'header',
      format: 'mini-sphere-export',
      version: 1,
      workspace: to,
      exportedAt: '',
    });
    await writeFile(file, `${header}\n${good}\n{"type":"entry","id":"e-2","content":""}\nnot json\n`);
    const res = await runCli(['import', '--workspace', to, '--create', file], env());
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/line 3: invalid entry record/);
    expect(res.stderr).toMatch(/line 4: not valid JSON/);
    expect(existsSync(srv.dbPath(to))).toBe(false);
  });
});

describe('check and reindex', () => {
  it('check finds a desynced full-text index (exit 1), reindex repairs it (exit 0)', async () => {
    const ws = freshWorkspace('fts');
    await seed(ws);
    const ok = await runCli(['check', '--workspace', ws], env());
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(new RegExp(`^workspace ${ws}: ok`));

    // Tell FTS5 to forget one document under the wrong text: its real tokens stay behind.
    const db = await openWorkspaceDb(srv.dbPath(ws));
    try {
      const row = (await db.execute('SELECT n FROM entries ORDER BY n LIMIT 1')).rows[0];
      await db.execute({
        sql: "INSERT INTO entries_fts(entries_fts, rowid, content) VALUES('delete', ?, 'unrelated words')",
        args: [row?.n ?? 1],
      });
    } finally {
      db.close();
    }

    const bad = await runCli(['check', '--workspace', ws], env());
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/PROBLEM: .*full-text index/);
    const json = await runCli(['check', '--workspace', ws, '--json'], env());
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, fts: { ok: false } });

    const reindex = await runCli(['reindex', '--workspace', ws], env());
    expect(reindex.code).toBe(0);
    expect(reindex.stdout).toMatch(/reindexed .*: 27 documents/);
    const fixed = await runCli(['check', '--workspace', ws, '--json'], env());
    expect(fixed.code).toBe(0);
    expect(JSON.parse(fixed.stdout)).toMatchObject({ ok: true, counts: { entries: 27, ftsRows: 27 } });
  });
});

describe('backup', () => {
  it('copies a workspace while the server keeps writing; the copy opens and passes check', async () => {
    const ws = freshWorkspace('bak');
    await seed(ws);
    const file = join(scratch, 'backup.db');

    // Writes keep coming while the backup runs.
    let writing = true;
    const writer = (async () => {
      let i = 0;
      while (writing && i < 500) {
        await srv.gqlOk(CAPTURE, { input: { content: `busy write ${i++}`, tags: ['busy'] } }, { workspace: ws });
      }
    })();
    const res = await runCli(['backup', '--workspace', ws, '--to', file], env());
    writing = false;
    await writer;
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const reported = /entries (\d+), tags (\d+), edges (\d+), revisions (\d+), events (\d+)/.exec(res.stdout);
    expect(reported).not.toBeNull();

    // Restored by copying it into a data dir, the backup is a sound workspace with the reported rows.
    const restoreDir = await mkdtemp(join(tmpdir(), 'mini-sphere-restore-'));
    try {
      await copyFile(file, join(restoreDir, `${ws}.db`));
      const check = await runCli(['check', '--workspace', ws, '--json'], { SPHERE_DATA_DIR: restoreDir });
      expect(check.code).toBe(0);
      const counts = JSON.parse(check.stdout).counts;
      expect([counts.entries, counts.tags, counts.edges, counts.revisions, counts.events]).toEqual(
        reported?.slice(1).map(Number),
      );
      expect(counts.entries).toBeGreaterThanOrEqual(27);
    } finally {
      await rm(restoreDir, { recursive: true, force: true });
    }

    // Idle now: the copy has exactly the live row counts.
    const again = await runCli(['backup', '--workspace', ws, '--to', file], env());
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/exists; pass --force/);
    const forced = await runCli(['backup', '--workspace', ws, '--to', file, '--force'], env());
    expect(forced.code).toBe(0);
    const live = await dumpWorkspace(srv.dbPath(ws));
    const copy = await dumpWorkspace(file);
    expect(copy).toEqual(live);
  });
});

describe('command line', () => {
  it('help lists every command', async () => {
    const res = await runCli(['help'], env());
    expect(res.code).toBe(0);
    for (const cmd of ['serve', 'migrate', 'maintain', 'check', 'reindex', 'backup', 'export', 'import']) {
      expect(res.stdout).toContain(`  ${cmd}`);
    }
  });

  it('bad usage exits 2 with a clear message', async () => {
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /unknown command: frobnicate/],
      [['check'], /missing --workspace/],
      [['check', '--workspace', 'Not Valid'], /invalid workspace id/],
      [['backup', '--workspace', 'a'], /missing --to FILE/],
      [['import', '--workspace', 'a'], /missing the FILE/],
      [['maintain', '--workspace', 'a', '--limit', '0'], /--limit must be an integer from 1 to 10000/],
      [['export', '--workspace', 'a', '--bogus'], /Unknown option '--bogus'/],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args, env())));
    results.forEach((res, i) => {
      expect(res.code, cases[i]?.[0].join(' ')).toBe(2);
      expect(res.stderr).toMatch(cases[i]?.[1] ?? /./);
    });
  });

  it('maintain runs the staleness pass from cron and migrate visits every workspace file', async () => {
    const ws = freshWorkspace('cron');
    await srv.gqlOk(CAPTURE, { input: { content: 'The build is broken today' } }, { workspace: ws });
    const res = await runCli(['maintain', '--workspace', ws, '--limit', '10', '--json'], env());
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ workspace: ws, scanned: 1, reclassified: 1, markedStale: 0 });
    const log = await srv.gqlOk('{ eventLog { type data } }', {}, { workspace: ws });
    expect(log.eventLog.at(-1)).toMatchObject({ type: 'STALENESS_PASS', data: { reclassified: 1 } });

    const migrate = await runCli(['migrate'], env());
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toContain(`migrated ${ws}`);
    const missing = await runCli(['check', '--workspace', 'no-such-workspace'], env());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/does not exist/);
  });
});
