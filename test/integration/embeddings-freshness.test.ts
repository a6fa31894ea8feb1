import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzleFor } from '../../src/db/client.ts';
import { Writer } from '../../src/db/writer.ts';
import { createEmbedder, GLOVE_WORDS } from '../../src/memory/embeddings/factory.ts';
import { GLOVE_PACKAGE, gloveJsonPath } from '../../src/memory/embeddings/glove-table.ts';
import { SemanticWorkspace } from '../../src/memory/embeddings/semantic.ts';
import { embeddingsConfig } from '../helpers/embeddings-config.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { openWorkspaceDb } from '../helpers/workspace-db.ts';

// As in embeddings-glove.test.ts: the vectors are not a dependency; without them these skip.
const GLOVE = process.env.SPHERE_GLOVE_PATH ?? join(process.cwd(), 'node_modules', GLOVE_PACKAGE);
const haveGlove = gloveJsonPath(GLOVE) !== null;
const MODELS = process.env.SPHERE_MODELS_DIR ?? join(tmpdir(), 'mini-sphere-models');

const CAPTURE = `mutation ($input: CaptureInput!) { capture(input: $input) { outcome matchId entry { id } } }`;
const FORGET = `mutation ($id: ID!) { forget(input: { id: $id }) { forgotten } }`;

const FILLER = [
  'My sister adopted a golden retriever puppy last spring.',
  'We hiked the Appalachian trail for three days in October.',
  'The quarterly budget review moved to the finance office.',
  'Grandma taught me to bake sourdough bread with a starter.',
];
const DEPLOY = 'The production deploy failed on Friday because the database migration timed out.';
const RETOLD = 'Friday: production deploy failed, because database migration timed out!';

describe.skipIf(!haveGlove)('glove vectors written beside the server', () => {
  let t: TestServer;
  let other: Client;
  const ws = 'beside';
  beforeAll(async () => {
    t = await startTestServer({
      config: {
        embeddings: embeddingsConfig({ kind: 'glove', glovePath: GLOVE, modelsDir: MODELS }),
      },
    });
  }, 300_000);
  afterAll(async () => {
    other?.close();
    await t?.stop();
  });

  const capture = async (content: string) =>
    (await t.gqlOk(CAPTURE, { input: { content } }, { workspace: ws })).capture as {
      outcome: string;
      matchId: string | null;
      entry: { id: string };
    };

  it('decides each capture on the vectors as another connection left them, without counting them first', async () => {
    for (const text of FILLER) await capture(text);
    const deploy = await capture(DEPLOY);
    expect(deploy.outcome).toBe('STORED');
    other = await openWorkspaceDb(t.dbPath(ws));
    const saved = (
      await other.execute({ sql: 'SELECT * FROM entry_vectors WHERE entry_id = ?', args: [deploy.entry.id] })
    ).rows[0]!;
    const columns = ['entry_id', 'model', 'dim', 'content_hash', 'docs', 'vector'] as const;

    // Removed by another connection (as reindex does): the retelling is no duplicate of anything.
    await other.execute({ sql: 'DELETE FROM entry_vectors WHERE entry_id = ?', args: [deploy.entry.id] });
    t.resetQueries();
    const retold = await capture(RETOLD);
    expect(retold.outcome).toBe('STORED');
    await t.gqlOk(FORGET, { id: retold.entry.id }, { workspace: ws });

    // Written back by another connection: the next capture of the retelling finds it.
    await other.execute({
      sql: `INSERT OR REPLACE INTO entry_vectors (entry_id, model, dim, content_hash, docs, vector) VALUES (?, ?, ?, ?, ?, ?)`,
      args: columns.map((c) => saved[c] ?? null),
    });
    expect(await capture(RETOLD)).toMatchObject({ outcome: 'BLOCKED', matchId: deploy.entry.id });

    // A count of every vector before each capture cost 80 ms at 100k vectors.
    expect(t.queries.filter((q) => /count\(\*\)[\s\S]*entry_vectors/i.test(q))).toEqual([]);
  });

  it('starts an embedding pass after the entries the passes before it covered', async () => {
    // The workspace's own queue beside the server's, on its own connection, with every statement seen.
    const client = await openWorkspaceDb(t.dbPath(ws));
    const afters: unknown[] = [];
    const db = drizzleFor(client, (query, params) => {
      if (/LEFT JOIN entry_vectors/.test(query)) afters.push(params[0]);
    });
    const writer = new Writer(client, { workspace: ws, onCommit: () => {} });
    const embedder = await createEmbedder({
      kind: 'glove',
      glovePath: GLOVE,
      cacheDir: MODELS,
      gloveWords: GLOVE_WORDS,
      http: { url: '', model: '', apiKey: null, dim: null, timeoutMs: 1, queryTimeoutMs: 1, batchSize: 1, attempts: 1 },
    });
    const { model, dim } = embedder;
    const ready = { state: 'ready' as const, model, dim, reason: null, attempts: 0, retryAt: null, since: new Date() };
    const opts = { embedder, cacheBytes: 1 << 26, log: () => {} };
    const semantic = new SemanticWorkspace({ id: ws, db, writer }, opts, () => ready);
    try {
      semantic.queue.schedule(false);
      await semantic.queue.idle();
      const [last] = (await client.execute('SELECT max(n) AS n FROM entries')).rows;
      afters.length = 0;
      semantic.queue.schedule(false);
      await semantic.queue.idle();
      // Every entry holds its vector: the second pass reads only what came after the first.
      expect(afters).toEqual([Number(last!.n)]);
    } finally {
      await semantic.queue.close();
      await writer.close();
      client.close();
    }
  });
});
