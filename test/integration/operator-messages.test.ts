import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type ServerProcess, startServerProcess } from '../helpers/cli.ts';
import { freePort } from '../helpers/redis.ts';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const DB_TOKEN = 'db-token-never-printed-5521';

/** A real HTTP server that refuses every request with 401, as a hosted libSQL does for a wrong token. */
async function refusingDatabase(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end('Unauthorized');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function stopProcess(p: ServerProcess | undefined): Promise<void> {
  if (p && p.child.exitCode === null) {
    p.child.kill('SIGTERM');
    await p.exited;
  }
}

/** Waits (without a fixed short timeout: the process writes its log when it gets to it) for a log line. */
async function logLine(p: ServerProcess, test: (line: Record<string, unknown>) => boolean) {
  for (;;) {
    const found = p
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find(test);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
}

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-operator-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('a port that is in use', () => {
  it('says so in one line naming PORT, with no stack trace, and exits non-zero', async () => {
    const port = await freePort();
    const other = createNetServer();
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
    try {
      const r = await runCli(['serve'], { PORT: String(port), HOST: '127.0.0.1', SPHERE_DATA_DIR: dataDir });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `port ${port} is in use on 127.0.0.1; set PORT to another port (or stop the other server)\n`,
      );
      expect(r.stdout).toBe('');
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});

describe('a hosted database that cannot be used', () => {
  it('CLI: names the database without credentials, says "connection refused" and to check SPHERE_DB_URL', async () => {
    const port = await freePort(); // nothing listens there
    const env = {
      SPHERE_DATA_DIR: dataDir,
      SPHERE_DB_URL: `http://127.0.0.1:${port}/{workspace}?authToken=url-secret-9034`,
      SPHERE_DB_AUTH_TOKEN: DB_TOKEN,
    };
    for (const args of [
      ['migrate', '--workspace', 'x'],
      ['check', '--workspace', 'x'],
    ]) {
      const r = await runCli(args, env);
      expect(r.code, args[0]).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([
        `mini-sphere ${args[0]}: cannot use the hosted database http://127.0.0.1:${port}/x?authToken=***: ` +
          'connection refused (ECONNREFUSED); check SPHERE_DB_URL and that the database server is running and reachable',
      ]);
      expect(r.stderr + r.stdout).not.toMatch(/url-secret-9034|db-token-never-printed/);
    }
  });

  it('CLI: a database answering 401 is a refused token: check SPHERE_DB_AUTH_TOKEN', async () => {
    const db = await refusingDatabase();
    try {
      const r = await runCli(['check', '--workspace', 'x'], {
        SPHERE_DATA_DIR: dataDir,
        SPHERE_DB_URL: `${db.url}/{workspace}`,
        SPHERE_DB_AUTH_TOKEN: DB_TOKEN,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `mini-sphere check: cannot use the hosted database ${db.url}/x: HTTP 401 unauthorized: the auth token ` +
          'was refused; check SPHERE_DB_AUTH_TOKEN (and that it belongs to this database)\n',
      );
    } finally {
      await db.close();
    }
  });

  it('server: answers UNAVAILABLE with the cause, and logs the database and what to check', async () => {
    const db = await refusingDatabase();
    const server = await startServerProcess({
      SPHERE_DATA_DIR: dataDir,
      SPHERE_DB_URL: `${db.url}/{workspace}`,
      SPHERE_DB_AUTH_TOKEN: DB_TOKEN,
    });
    try {
      const res = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-workspace': 'remote' },
        body: JSON.stringify({ query: '{ count }' }),
      });
      expect(res.status).toBe(503);
      const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(body.errors[0]?.extensions.code).toBe('UNAVAILABLE');
      expect(body.errors[0]?.message).toBe(
        'the database of workspace remote cannot be opened right now ' +
          '(HTTP 401 unauthorized: the auth token was refused); retry later',
      );
      const line = await logLine(server, (l) => l.workspace === 'remote' && l.level === 50);
      expect(line).toMatchObject({ database: `${db.url}/remote`, reason: expect.stringContaining('HTTP 401') });
      expect(line.msg).toContain('check SPHERE_DB_AUTH_TOKEN');
      expect(server.output()).not.toContain(DB_TOKEN);
    } finally {
      await stopProcess(server);
      await db.close();
    }
  });
});

describe('the start-up banner', () => {
  it('shows version, URLs with the real port, open mode and why, the data dir, and Redis off', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mini-sphere-banner-'));
    const server = await startServerProcess({ SPHERE_DATA_DIR: dir });
    try {
      const origin = new URL(server.url).origin;
      expect(new URL(server.url).port).not.toBe('0');
      const lines = server.output().split('\n');
      expect(lines).toEqual(
        expect.arrayContaining([
          `Mini-Sphere ${VERSION} listening on ${origin}/graphql`,
          `  dashboard  ${origin}/`,
          `  graphql    ${origin}/graphql (GraphiQL in a browser)`,
          `  metrics    ${origin}/metrics`,
          '  mode       open (no tokens; loopback only)',
          `  data       ${dir}`,
          '  redis      off (events stay in this process)',
        ]),
      );
      // The same facts, as one JSON log line for machines.
      const line = await logLine(server, (l) => l.msg === 'listening');
      expect(line).toMatchObject({ version: VERSION, graphql: `${origin}/graphql`, mode: 'open', data: dir });
    } finally {
      await stopProcess(server);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('shows token mode and its reason, and a hosted URL template with its credentials redacted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mini-sphere-banner-'));
    const created = await runCli(['token', 'create', '--workspace', 'a', '--role', 'agent'], { SPHERE_DATA_DIR: dir });
    expect(created.code).toBe(0);
    const dbUrl = 'libsql://{workspace}-acme.example.invalid?authToken=url-secret-9034';
    const cases = [
      [{ SPHERE_DATA_DIR: dir }, '  mode       token (1 token exists)'],
      [{ SPHERE_DATA_DIR: dataDir, SPHERE_AUTH: 'required' }, '  mode       token (SPHERE_AUTH=required)'],
    ] as const;
    for (const [env, mode] of cases) {
      const server = await startServerProcess({ ...env, SPHERE_DB_URL: dbUrl, SPHERE_DB_AUTH_TOKEN: DB_TOKEN });
      try {
        const lines = server.output().split('\n');
        expect(lines).toContain(mode);
        expect(lines).toContain(
          '  data       hosted libSQL libsql://{workspace}-acme.example.invalid?authToken=*** (SPHERE_DB_AUTH_TOKEN set)',
        );
        expect(lines).toContain('  metrics    off in token mode (set SPHERE_METRICS_TOKEN to serve /metrics)');
        expect(server.output()).not.toMatch(/url-secret-9034|db-token-never-printed/);
      } finally {
        await stopProcess(server);
      }
    }
    await rm(dir, { recursive: true, force: true });
  }, 60_000);
});

describe('token create', () => {
  it('says that servers using this data now need a token everywhere, the dashboard and GraphiQL included', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mini-sphere-token-'));
    try {
      const first = await runCli(['token', 'create', '--workspace', 'a', '--role', 'agent'], { SPHERE_DATA_DIR: dir });
      expect(first.code).toBe(0);
      expect(first.stderr).toContain(
        `servers using this data (${join(dir, '_control.db')}) now require a token on every request`,
      );
      expect(first.stderr).toContain('the dashboard and GraphiQL need it too');
      // The token itself is still the last line of stdout, alone.
      expect(first.stdout.trim().split('\n').at(-1)).toMatch(/^ms_/);
      const second = await runCli(['token', 'create', '--workspace', 'a', '--role', 'reader'], {
        SPHERE_DATA_DIR: dir,
      });
      expect(second.stderr).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
