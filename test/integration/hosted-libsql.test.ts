import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { DomainError } from '../../src/contract/errors.ts';
import { locateWorkspace } from '../../src/db/client.ts';
import { freePort } from '../helpers/redis.ts';
import { startTestServer } from '../helpers/server.ts';

const hosted = { dataDir: '/unused', dbUrl: 'libsql://{workspace}-acme.turso.io', dbAuthToken: 'secret-token' };

describe('hosted libSQL per workspace', () => {
  it('fills the URL template with the workspace id and passes the auth token', () => {
    expect(locateWorkspace('team-7', hosted)).toEqual({
      url: 'libsql://team-7-acme.turso.io',
      authToken: 'secret-token',
      local: false,
    });
    expect(locateWorkspace('a', { ...hosted, dbUrl: 'https://db.example/{workspace}/{workspace}' }).url).toBe(
      'https://db.example/a/a',
    );
  });

  it('uses one file per workspace under the data dir when no URL is set', () => {
    expect(locateWorkspace('default', { dataDir: '/srv/sphere', dbUrl: null, dbAuthToken: null })).toEqual({
      url: 'file:/srv/sphere/default.db',
      local: true,
    });
  });

  it('never lets a workspace id change the host or the path', () => {
    for (const id of ['../x', 'a/b', '%2e%2e', 'A', '', '-a', 'a.evil.com', 'a@b', 'x'.repeat(64), 'a?b', 'a#b']) {
      expect(() => locateWorkspace(id, hosted), id).toThrow(/invalid workspace id/);
    }
    expect(locateWorkspace('x'.repeat(63), hosted).url).toBe(`libsql://${'x'.repeat(63)}-acme.turso.io`);
  });

  it('rejects a URL template without {workspace}', () => {
    expect(() => loadConfig({ SPHERE_DB_URL: 'libsql://one-db.turso.io' })).toThrow(DomainError);
    expect(loadConfig({ SPHERE_DB_URL: 'libsql://{workspace}.turso.io', SPHERE_DB_AUTH_TOKEN: 't' })).toMatchObject({
      dbUrl: 'libsql://{workspace}.turso.io',
      dbAuthToken: 't',
    });
  });

  it('answers UNAVAILABLE with a clear message when the remote cannot be reached, and retries later', async () => {
    const port = await freePort(); // nothing listens there
    const t = await startTestServer({ config: { dbUrl: `http://127.0.0.1:${port}/{workspace}` } });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await t.gql('{ count }', {}, { workspace: 'remote' });
        expect(res.status).toBe(503);
        expect(res.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
        expect(res.errors?.[0]?.message).toMatch(/workspace remote cannot be opened/);
      }
      // /health says so too, so a load balancer can take the instance out.
      const health = await fetch(`${t.origin}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: 'unavailable' });
    } finally {
      await t.stop();
    }
  });
});
