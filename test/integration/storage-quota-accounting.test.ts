import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/contract/errors.ts';
import { drizzleFor, locateWorkspace, migrateDb, openClient, type RootDb } from '../../src/db/client.ts';
import { databaseBytes, StorageMeter, writeEstimate } from '../../src/workspaces/storage-quota.ts';

let dir: string;
let client: Client;
let db: RootDb;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'quota-accounting-'));
  client = await openClient(locateWorkspace('q', { dataDir: dir, dbUrl: null, dbAuthToken: null }));
  db = drizzleFor(client);
  await migrateDb(db);
});

afterAll(() => {
  client.close();
  rmSync(dir, { recursive: true, force: true });
});

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'admitted',
    (e: unknown) => (e instanceof DomainError ? e.code : String(e)),
  );

describe('storage quota accounting on a real database', () => {
  it('keeps counting a write admitted before a read of the size until it has finished, then counts what it took', async () => {
    const text = 'x'.repeat(40_000);
    const estimate = writeEstimate(text);
    const start = await databaseBytes(db);
    // Room for one such write, not two.
    const quota = start + estimate + estimate / 2;
    const storage = new StorageMeter().workspace({ id: 'q', db }, quota);

    await storage.admit(estimate); // write A is admitted, and still queued
    await storage.size(); // a read of the size meanwhile does not hold A
    // A second write would take the workspace past its quota once A is stored.
    expect(await refusal(storage.admit(estimate))).toBe('QUOTA_EXCEEDED');

    // A is stored and finishes: the next read holds it, and its estimate (a ceiling) gives way to it.
    await db.run(sql`CREATE TABLE IF NOT EXISTS filler (t TEXT)`);
    await db.run(sql`INSERT INTO filler VALUES (${text})`);
    storage.wrote(estimate);
    const stored = await storage.size();
    expect(stored).toBe(await databaseBytes(db));
    expect(stored - start).toBeGreaterThan(text.length);
    expect(stored - start).toBeLessThan(estimate);
  });
});
