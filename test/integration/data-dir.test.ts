import { copyFile, mkdir, mkdtemp, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_APPLICATION_ID } from '../../src/workspaces/control-file.ts';
import { runCli, type ServerProcess, startServerProcess } from '../helpers/cli.ts';
import { CAPTURE } from '../helpers/operations.ts';

let root: string;
const running: ServerProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mini-sphere-data-dir-'));
});

afterAll(async () => {
  for (const server of running) {
    if (server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }
  if (root) await rm(root, { recursive: true, force: true });
});

/** A data directory and a directory outside it, both fresh. */
async function dirs(name: string): Promise<{ dataDir: string; outside: string }> {
  const dataDir = join(root, name, 'data');
  const outside = join(root, name, 'outside');
  await mkdir(dataDir, { recursive: true });
  await mkdir(outside, { recursive: true });
  return { dataDir, outside };
}

async function serve(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess(env);
  running.push(server);
  return server;
}

/** Starts the server expecting it to refuse; returns what it printed (and stops it if it did start). */
async function refusedStart(env: Record<string, string>): Promise<string> {
  try {
    const server = await serve(env);
    server.child.kill('SIGTERM');
    await server.exited;
    return `started: ${server.output()}`;
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

async function capture(url: string, workspace: string, content: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({ query: CAPTURE, variables: { input: { content } } }),
  });
  return (await res.json()) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };
}

async function tablesOf(file: string): Promise<string[]> {
  const client = createClient({ url: `file:${file}` });
  try {
    const rs = await client.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    return rs.rows.map((r) => String(r[0]));
  } finally {
    client.close();
  }
}

async function applicationId(file: string): Promise<number> {
  const client = createClient({ url: `file:${file}` });
  try {
    return Number((await client.execute('PRAGMA application_id')).rows[0]?.[0]);
  } finally {
    client.close();
  }
}

describe('workspace databases stay inside the data directory', () => {
  it('refuses a workspace file (or its WAL) that is a link leading outside, and writes nothing there', async () => {
    const { dataDir, outside } = await dirs('workspace-link');
    await symlink(join(outside, 'planted.db'), join(dataDir, 'planted.db'));
    await symlink(join(outside, 'wal.db-wal'), join(dataDir, 'wal.db-wal'));
    const server = await serve({ SPHERE_DATA_DIR: dataDir });

    for (const workspace of ['planted', 'wal']) {
      const res = await capture(server.url, workspace, 'must not land outside');
      expect(res.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
      expect(res.errors?.[0]?.message).toContain('outside the data directory');
    }
    expect(await readdir(outside)).toEqual([]);
    // The log tells the operator which file and where it leads.
    expect(server.output()).toContain(join(outside, 'planted.db'));
    // Other workspaces are served as ever.
    expect((await capture(server.url, 'honest', 'fine')).errors).toBeUndefined();
  });
});

describe('an open workspace whose file is deleted or replaced under the server', () => {
  it('makes /health unavailable, naming how many, while the other workspaces stay served', async () => {
    const { dataDir } = await dirs('workspace-gone');
    const server = await serve({ SPHERE_DATA_DIR: dataDir });
    for (const workspace of ['gone', 'replaced', 'kept']) {
      expect((await capture(server.url, workspace, `in ${workspace}`)).errors).toBeUndefined();
    }
    const health = async () => {
      const res = await fetch(new URL('/health', server.url));
      return { status: res.status, body: await res.json() };
    };
    expect(await health()).toEqual({ status: 200, body: { status: 'ok', workspaces: 3, failed: 0 } });

    // SQLite goes on writing to the file it has open: what it wrote would be gone at the next close.
    await rm(join(dataDir, 'gone.db'));
    expect(await health()).toEqual({ status: 503, body: { status: 'unavailable', workspaces: 3, failed: 1 } });
    await rename(join(dataDir, 'replaced.db'), join(dataDir, 'replaced-before.db'));
    await copyFile(join(dataDir, 'replaced-before.db'), join(dataDir, 'replaced.db'));
    expect(await health()).toEqual({ status: 503, body: { status: 'unavailable', workspaces: 3, failed: 2 } });
    expect((await capture(server.url, 'kept', 'still served')).errors).toBeUndefined();
  });
});

describe('the control database', () => {
  it('is refused when it is a link leading outside the data directory: the server does not start', async () => {
    const { dataDir, outside } = await dirs('control-link');
    await symlink(join(outside, '_control.db'), join(dataDir, '_control.db'));
    const started = await refusedStart({ SPHERE_DATA_DIR: dataDir });
    expect(started).toMatch(/^refused/);
    expect(started).toContain('outside the data directory');
    const token = await runCli(['token', 'create', '--workspace', 'w', '--role', 'agent'], {
      SPHERE_DATA_DIR: dataDir,
    });
    expect(token.code).not.toBe(0);
    expect(await readdir(outside)).toEqual([]);
  });

  it('is refused when another program made it: foreign tables, or a foreign application_id', async () => {
    const { dataDir } = await dirs('control-foreign');
    const file = join(dataDir, '_control.db');
    const planted = createClient({ url: `file:${file}` });
    await planted.execute('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)');
    await planted.execute("INSERT INTO customers (name) VALUES ('Ada')");
    planted.close();

    const started = await refusedStart({ SPHERE_DATA_DIR: dataDir });
    expect(started).toMatch(/^refused/);
    expect(started).toContain('holds tables Mini-Sphere never creates (customers)');
    // Nothing was migrated into it.
    expect(await tablesOf(file)).toEqual(['customers']);

    const { dataDir: other } = await dirs('control-application-id');
    const marked = createClient({ url: `file:${join(other, '_control.db')}` });
    await marked.execute('PRAGMA application_id = 42');
    marked.close();
    const startedOther = await refusedStart({ SPHERE_DATA_DIR: other });
    expect(startedOther).toMatch(/^refused/);
    expect(startedOther).toContain('application_id 42');
  });

  it('opens a control database made before it carried an application_id, and marks it', async () => {
    const { dataDir } = await dirs('control-older');
    const created = await runCli(['token', 'create', '--workspace', 'older', '--role', 'agent'], {
      SPHERE_DATA_DIR: dataDir,
    });
    expect(created.code).toBe(0);
    const token = created.stdout.trim().split('\n').at(-1) ?? '';
    const file = join(dataDir, '_control.db');
    expect(await applicationId(file)).toBe(CONTROL_APPLICATION_ID);
    // As earlier versions left it: the project's tables, no application_id.
    const older = createClient({ url: `file:${file}` });
    await older.execute('PRAGMA application_id = 0');
    older.close();

    const server = await serve({ SPHERE_DATA_DIR: dataDir });
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ count }' }),
    });
    expect(((await res.json()) as { data?: { count: number } }).data?.count).toBe(0);
    expect(await applicationId(file)).toBe(CONTROL_APPLICATION_ID);
  });

  it('keeps /health in its documented shape when the control database is corrupt', async () => {
    const { dataDir } = await dirs('control-corrupt');
    await writeFile(join(dataDir, '_control.db'), Buffer.alloc(64 * 1024, 'not a database '));
    const server = await serve({ SPHERE_DATA_DIR: dataDir });
    const res = await fetch(new URL('/health', server.url));
    expect(res.status).toBe(503);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ status: 'unavailable', workspaces: 0, failed: 1 });
    // GraphQL requests say why, with a code.
    const gql = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ count }' }),
    });
    expect(gql.status).toBe(503);
    expect(await gql.text()).toContain('UNAVAILABLE');
  });
});
