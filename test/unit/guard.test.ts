import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { checkRequest, type GuardInput } from '../../src/server/guard.ts';

const PORT = 4123;
const OPEN = false;
const TOKEN = true;

/** A request over loopback to a server listening on 127.0.0.1:PORT, with the given headers. */
function request(headers: IncomingHttpHeaders, over: Partial<GuardInput> = {}): GuardInput {
  return { headers, peer: '127.0.0.1', listening: { address: '127.0.0.1', port: PORT }, ...over };
}

const reason = (input: GuardInput, tokenMode: boolean, cors: readonly string[] = []) =>
  checkRequest(input, tokenMode, cors)?.reason ?? null;

describe('checkRequest in open mode: Host', () => {
  it.each([`localhost:${PORT}`, `127.0.0.1:${PORT}`, `127.0.0.2:${PORT}`, `[::1]:${PORT}`, `LOCALHOST:${PORT}`])(
    'lets %s through',
    (host) => {
      expect(checkRequest(request({ host }), OPEN, [])).toBeNull();
    },
  );

  it.each([
    ['a port other than the server’s', `localhost:${PORT + 1}`],
    ['no port while the server is not on 80', 'localhost'],
    ['a rebinding name', `evil.example:${PORT}`],
    ['a name that only starts like a loopback address', `127.0.0.1.evil.example:${PORT}`],
    ['localhost with a trailing dot, not one of the names listed', `localhost.:${PORT}`],
    ['a shortened IPv4 form', `127.1:${PORT}`],
    ['another IPv6 address', `[::2]:${PORT}`],
    ['userinfo before a loopback name', `evil@localhost:${PORT}`],
    ['two ports', `localhost:${PORT}:${PORT}`],
    ['an empty Host', ''],
  ])('refuses %s', (_, host) => {
    const refusal = checkRequest(request({ host }), OPEN, []);
    expect(refusal).toMatchObject({ status: 403, code: 'FORBIDDEN', reason: 'host' });
    expect(refusal?.message).toContain(String(PORT));
  });

  it('refuses a request without a Host header', () => {
    expect(reason(request({}), OPEN)).toBe('host');
  });

  it('takes a Host without a port as port 80 when the server listens on 80', () => {
    const on80 = { address: '127.0.0.1', port: 80 };
    expect(checkRequest(request({ host: 'localhost' }, { listening: on80 }), OPEN, [])).toBeNull();
    expect(checkRequest(request({ host: 'localhost:80' }, { listening: on80 }), OPEN, [])).toBeNull();
    expect(reason(request({ host: `localhost:${PORT}` }, { listening: on80 }), OPEN)).toBe('host');
  });
});

describe('checkRequest in open mode: peer and listening address', () => {
  const host = `localhost:${PORT}`;

  it('lets loopback peers through, IPv4-mapped IPv6 included', () => {
    for (const peer of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1']) {
      expect(checkRequest(request({ host }, { peer }), OPEN, [])).toBeNull();
    }
  });

  it('refuses peers that are not on this machine, or unknown', () => {
    for (const peer of ['192.168.1.5', '::ffff:192.168.1.5', '10.0.0.1', '::2', undefined]) {
      expect(reason(request({ host }, { peer }), OPEN)).toBe('peer');
    }
  });

  it('serves on a loopback listening address, IPv4-mapped IPv6 included', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect(checkRequest(request({ host }, { listening: { address, port: PORT } }), OPEN, [])).toBeNull();
    }
  });

  it('refuses everything while listening on a public address, even from loopback', () => {
    for (const address of ['0.0.0.0', '::', '192.168.1.5', '::ffff:10.0.0.1']) {
      expect(reason(request({ host }, { listening: { address, port: PORT } }), OPEN)).toBe('listen');
    }
  });
});

describe('checkRequest: Origin', () => {
  const host = `localhost:${PORT}`;

  it('lets the server’s own origin and requests without an Origin through', () => {
    expect(checkRequest(request({ host }), OPEN, [])).toBeNull();
    expect(checkRequest(request({ host, origin: `http://localhost:${PORT}` }), OPEN, [])).toBeNull();
    expect(checkRequest(request({ host, origin: `HTTP://LOCALHOST:${PORT}` }), OPEN, [])).toBeNull();
  });

  it('refuses other pages, in open and in token mode', () => {
    for (const origin of ['http://evil.example', `http://localhost:${PORT + 1}`, `https://evil.example:${PORT}`]) {
      expect(reason(request({ host, origin }), OPEN)).toBe('origin');
      expect(reason(request({ host, origin }), TOKEN)).toBe('origin');
    }
  });

  it("refuses the opaque origin 'null' (sandboxed frames, file: pages)", () => {
    expect(reason(request({ host, origin: 'null' }), OPEN)).toBe('origin');
    expect(reason(request({ host, origin: 'null' }), TOKEN)).toBe('origin');
  });

  it('lets a listed origin through, compared without regard to case', () => {
    const listed = ['https://app.example.com'];
    expect(checkRequest(request({ host, origin: 'https://app.example.com' }), OPEN, listed)).toBeNull();
    expect(checkRequest(request({ host, origin: 'https://APP.example.com' }), TOKEN, listed)).toBeNull();
    expect(reason(request({ host, origin: 'http://app.example.com' }), TOKEN, listed)).toBe('origin');
  });

  it('lets an origin through that the operator listed with capitals', () => {
    // Config accepts this spelling as an exact origin; browsers send the host in lower case.
    const { corsOrigins } = loadConfig({ SPHERE_CORS_ORIGINS: 'https://App.Example.com' });
    expect(checkRequest(request({ host, origin: 'https://app.example.com' }), TOKEN, corsOrigins)).toBeNull();
  });

  it('in token mode takes the page of the Host the request came with, over http or https (behind TLS)', () => {
    const behindProxy = request(
      { host: 'sphere.example.com', origin: 'https://sphere.example.com' },
      { peer: '10.0.0.7', listening: { address: '0.0.0.0', port: PORT } },
    );
    expect(checkRequest(behindProxy, TOKEN, [])).toBeNull();
    behindProxy.headers.origin = 'http://sphere.example.com';
    expect(checkRequest(behindProxy, TOKEN, [])).toBeNull();
    behindProxy.headers.origin = 'https://other.example.com';
    expect(reason(behindProxy, TOKEN)).toBe('origin');
  });
});

describe('checkRequest in token mode', () => {
  it('leaves Host, peer and listening address to the token', () => {
    const remote = request(
      { host: 'sphere.example.com' },
      { peer: '203.0.113.9', listening: { address: '0.0.0.0', port: PORT } },
    );
    expect(checkRequest(remote, TOKEN, [])).toBeNull();
    // The same request would be refused without tokens.
    expect(reason(remote, OPEN)).toBe('listen');
  });
});
