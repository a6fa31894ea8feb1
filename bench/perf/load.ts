/**
 * Bulk-loads a synthetic corpus into a workspace database file with the real schema: the
 * file is created and migrated through src/db/client.ts (openClient, drizzleFor, migrateDb),
 * exactly as the server would, then filled with multi-row INSERTs in large transactions. The
 * FTS5 triggers index every row as it goes in, as they do for the import path.
 *
 * The result is a template: measurements run on copies of it, so that repeated runs start
 * from the same bytes and a cached template skips the load.
 */

import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { Client, InStatement } from '@libsql/client';
import { drizzleFor, locateWorkspace, MIGRATIONS_FOLDER, migrateDb, openClient } from '../../src/db/client.ts';
import { IMPACT_INDEX, type ImpactBuildReport, rebuildImpactIndex } from '../../src/db/impact-index.ts';
import { contentHash } from '../../src/memory/model.ts';
import { CORPUS_VERSION, type CorpusEdge, type CorpusEntry, generateCorpus } from './corpus.ts';

const ENTRY_ROWS = 200;
const TAG_ROWS = 800;
const EDGE_ROWS = 500;
/** Entries per write transaction. */
const TX_ENTRIES = 10_000;

export interface LoadReport {
  file: string;
  entries: number;
  edges: number;
  tags: number;
  seconds: number;
  bytes: number;
  /** The impact index built at the end, as an import into a new workspace builds it. */
  impact?: ImpactBuildReport & { seconds: number; bytes: number };
  cached: boolean;
}

/** A short fingerprint of the committed migrations: a schema change invalidates cached templates. */
export function schemaFingerprint(): string {
  const h = createHash('sha256');
  for (const f of readdirSync(MIGRATIONS_FOLDER)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    h.update(f).update(readFileSync(join(MIGRATIONS_FOLDER, f)));
  }
  return h.digest('hex').slice(0, 10);
}

function placeholders(columns: number, rows: number): string {
  const one = `(${new Array(columns).fill('?').join(', ')})`;
  return new Array(rows).fill(one).join(', ');
}

/** Opens (creating and migrating) a workspace database file the way the server does. */
export async function openWorkspaceFile(dataDir: string, workspace: string): Promise<Client> {
  const client = await openClient(locateWorkspace(workspace, { dataDir, dbUrl: null, dbAuthToken: null }));
  await migrateDb(drizzleFor(client));
  return client;
}

/**
 * Builds (or reuses) the template database for `size` entries under `templateDir` and returns
 * its path. The file is written under a temporary name and renamed when complete, so an
 * interrupted build is never mistaken for a cached one.
 */
export async function buildTemplate(
  templateDir: string,
  size: number,
  seed: number,
  log: (line: string) => void,
  fresh = false,
): Promise<LoadReport> {
  // The impact index's shape decides which lists the template holds: a new shape, a new template.
  const shape = `i${IMPACT_INDEX.frequentMinDocs}-${IMPACT_INDEX.headPostings}`;
  const name = `perf-${size}-s${seed}-c${CORPUS_VERSION}-m${schemaFingerprint()}-${shape}`;
  const file = join(templateDir, `${name}.db`);
  if (!fresh && existsSync(file)) {
    const meta = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as Omit<LoadReport, 'cached'>;
    return { ...meta, cached: true };
  }
  mkdirSync(templateDir, { recursive: true });
  const building = `${name}-building`;
  for (const suffix of ['.db', '.db-wal', '.db-shm']) rmSync(join(templateDir, building + suffix), { force: true });
  const started = performance.now();
  const client = await openWorkspaceFile(templateDir, building);
  let counts: { entries: number; edges: number; tags: number };
  let impact: LoadReport['impact'];
  try {
    counts = await loadCorpus(client, size, seed, log);
    await client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
    impact = await buildImpact(client, join(templateDir, `${building}.db`), log);
  } finally {
    client.close();
  }
  for (const suffix of ['.db-wal', '.db-shm']) rmSync(join(templateDir, building + suffix), { force: true });
  renameSync(join(templateDir, `${building}.db`), file);
  const report: LoadReport = {
    file,
    ...counts,
    seconds: (performance.now() - started) / 1000,
    bytes: statSync(file).size,
    impact,
    cached: false,
  };
  const { cached: _cached, ...meta } = report;
  writeFileSync(`${file}.json`, JSON.stringify(meta));
  return report;
}

const ENTRY_SQL =
  'INSERT INTO entries (id, content, content_hash, source, kind, status, volatility, volatility_source, ' +
  'importance, claim_tag, evidence_ref, recall_count, observed_at, created_at, updated_at) VALUES ';

/** One multi-row INSERT of entries, then their tags in chunks. */
async function insertEntries(run: (stmt: InStatement) => Promise<unknown>, batch: CorpusEntry[]): Promise<number> {
  const args: (string | number | null)[] = [];
  for (const e of batch) {
    args.push(e.id, e.content, contentHash(e.content), e.source, e.kind, e.status, e.volatility);
    args.push(e.volatilitySource, e.importance, e.claimTag, e.evidenceRef, 0, e.observedAt, e.createdAt, e.updatedAt);
  }
  await run({ sql: ENTRY_SQL + placeholders(15, batch.length), args });
  const tagArgs: string[] = [];
  for (const e of batch) for (const t of e.tags) tagArgs.push(e.id, t);
  for (let i = 0; i < tagArgs.length; i += TAG_ROWS * 2) {
    const chunk = tagArgs.slice(i, i + TAG_ROWS * 2);
    await run({ sql: `INSERT INTO tags (entry_id, tag) VALUES ${placeholders(2, chunk.length / 2)}`, args: chunk });
  }
  return tagArgs.length / 2;
}

async function insertEdges(run: (stmt: InStatement) => Promise<unknown>, batch: CorpusEdge[]): Promise<void> {
  const args: (string | number | null)[] = [];
  for (const e of batch) args.push(e.src, e.dst, e.type, e.weight, e.provenance, null, e.createdAt, e.createdAt);
  await run({
    sql:
      'INSERT INTO edges (src, dst, type, weight, provenance, metadata, created_at, updated_at) VALUES ' +
      placeholders(8, batch.length),
    args,
  });
}

/** Streams the generated corpus into the file in multi-row INSERTs, TX_ENTRIES entries per transaction. */
async function loadCorpus(client: Client, size: number, seed: number, log: (line: string) => void) {
  const counts = { entries: 0, edges: 0, tags: 0 };
  let tx = await client.transaction('write');
  const run = (stmt: InStatement) => tx.execute(stmt);
  let inTx = 0;
  const entryBuf: CorpusEntry[] = [];
  const edgeBuf: CorpusEdge[] = [];
  const flushEntries = async () => {
    if (entryBuf.length > 0) counts.tags += await insertEntries(run, entryBuf.splice(0));
  };
  const flushEdges = async () => {
    if (edgeBuf.length > 0) await insertEdges(run, edgeBuf.splice(0));
  };
  for (const item of generateCorpus(size, seed)) {
    if (item.entry) {
      entryBuf.push(item.entry);
      counts.entries++;
      inTx++;
      if (entryBuf.length >= ENTRY_ROWS) await flushEntries();
    } else {
      // Edges point at entries already generated: write those first.
      await flushEntries();
      edgeBuf.push(item.edge);
      counts.edges++;
      if (edgeBuf.length >= EDGE_ROWS) await flushEdges();
    }
    if (inTx >= TX_ENTRIES && entryBuf.length === 0) {
      await flushEdges();
      await tx.commit();
      tx = await client.transaction('write');
      inTx = 0;
      log(`  loaded ${counts.entries.toLocaleString('en-US')} / ${size.toLocaleString('en-US')} entries`);
    }
  }
  await flushEntries();
  await flushEdges();
  await tx.commit();
  return counts;
}

/**
 * Builds the impact index of a loaded file (the step `import` ends with for a new
 * workspace) and reports its time and the bytes it added to the file.
 */
export async function buildImpact(client: Client, file: string, log: (line: string) => void) {
  const before = statSync(file).size;
  const started = performance.now();
  log('  building the impact index');
  const db = drizzleFor(client);
  const report = await db.transaction(async (tx) => rebuildImpactIndex(tx));
  await client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
  const seconds = (performance.now() - started) / 1000;
  log(`  impact index: ${report.terms} terms, ${report.postings} postings in ${seconds.toFixed(1)} s`);
  return { ...report, seconds, bytes: statSync(file).size - before };
}

/** Copies a template to `<dataDir>/<workspace>.db` (removing any WAL left from an earlier run). */
export function copyTemplate(template: string, dataDir: string, workspace: string): string {
  const target = join(dataDir, `${workspace}.db`);
  mkdirSync(dirname(target), { recursive: true });
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(target + suffix, { force: true });
  copyFileSync(template, target);
  return target;
}
