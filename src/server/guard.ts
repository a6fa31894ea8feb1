import { type IncomingHttpHeaders, STATUS_CODES } from 'node:http';
import { isIP } from 'node:net';
import { isLoopback } from '../workspaces/auth.ts';

/**
 * Who may talk to the server at all, decided from the connection and its headers before
 * any GraphQL runs, for HTTP requests and WebSocket upgrades alike.
 *
 * A server on loopback is reachable from every web page its user's browser opens:
 * cross-origin fetches, WebSockets (which browsers never preflight) and DNS rebinding
 * (a page whose own host name resolves to 127.0.0.1 sends `Host: evil.example`). In
 * open mode nothing else proves that a request comes from the user, so it refuses:
 * - a peer or a listening address that is not loopback;
 * - a `Host` that is not a loopback name with the server's port (rebinding);
 * - an `Origin` that is neither the server's own nor listed in SPHERE_CORS_ORIGINS.
 * Requests without an Origin (curl, SDKs, agents) are not from a web page and pass.
 * In token mode the bearer token is the credential, yet a page of another origin still
 * needs that origin listed.
 */
export interface GuardInput {
  headers: IncomingHttpHeaders;
  /** The peer's address (`socket.remoteAddress`). */
  peer: string | undefined;
  /** The address the server listens on, and its port. */
  listening: { address: string; port: number };
}

export interface Refusal {
  status: 403;
  code: 'FORBIDDEN';
  /** For logs and metrics: which rule refused it. */
  reason: 'listen' | 'peer' | 'host' | 'origin';
  message: string;
}

const refuse = (reason: Refusal['reason'], message: string): Refusal => ({
  status: 403,
  code: 'FORBIDDEN',
  reason,
  message,
});

/** `Host` (`name[:port]`, `[v6][:port]`) split into a lower-case name and a port. */
function splitHost(host: string): { name: string; port: number | null } | null {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(host);
  if (!m?.[1]) return null;
  return { name: m[1].toLowerCase(), port: m[2] === undefined ? null : Number(m[2]) };
}

/** A loopback name a browser can only reach on this machine: `localhost`, 127.0.0.0/8, `[::1]`. */
function isLoopbackName(name: string): boolean {
  if (name === 'localhost') return true;
  if (name.startsWith('[')) return name === '[::1]';
  return isIP(name) === 4 && name.startsWith('127.');
}

/** The origin a page served by this server has, from the `Host` it was requested with. */
function ownOrigins(host: string): string[] {
  const h = host.toLowerCase();
  return [`http://${h}`, `https://${h}`];
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Whether a cross-origin page's requests are allowed, per SPHERE_CORS_ORIGINS (exact origins). */
export function corsAllowed(origin: string | null | undefined, allowed: readonly string[]): boolean {
  return typeof origin === 'string' && allowed.includes(origin.toLowerCase());
}

/** Null when the request may go on; otherwise why it is refused (answered 403 FORBIDDEN). */
export function checkRequest(input: GuardInput, tokenMode: boolean, corsOrigins: readonly string[]): Refusal | null {
  const host = single(input.headers.host) ?? '';
  const origin = single(input.headers.origin);
  if (!tokenMode) {
    if (!isLoopback(input.listening.address)) {
      return refuse('listen', 'open mode serves loopback only: this server listens on a public address without tokens');
    }
    if (!input.peer || !isLoopback(input.peer)) {
      return refuse('peer', 'open mode serves clients on this machine only; create a token for remote clients');
    }
    const parsed = splitHost(host);
    const port = parsed?.port ?? 80;
    if (!parsed || !isLoopbackName(parsed.name) || port !== input.listening.port) {
      return refuse(
        'host',
        `the Host header ${JSON.stringify(host)} is not a loopback name of this server ` +
          `(localhost, 127.0.0.1 or [::1] with port ${input.listening.port})`,
      );
    }
  }
  if (origin !== undefined && !ownOrigins(host).includes(origin.toLowerCase()) && !corsAllowed(origin, corsOrigins)) {
    return refuse(
      'origin',
      `requests from the web page origin ${JSON.stringify(origin)} are not allowed; ` +
        'an operator can allow it in SPHERE_CORS_ORIGINS',
    );
  }
  return null;
}

/**
 * Puts a request's target in origin form (`/path?query`), the only form the routes and
 * Yoga read. An absolute-form target (`http://host/path`; RFC 9112 §3.2.2: proxies send it
 * and servers must accept it) names the host itself, and that host takes the `Host`
 * header's place, so the checks above judge the host the request really names. False for
 * any other target (`*`, `//host/path`, `host:port`, a URL with credentials): those are
 * answered 400 `BAD_REQUEST`.
 *
 * @example toOriginForm(req) // req.url 'http://localhost:4000/graphql' → '/graphql', Host 'localhost:4000'
 */
export function toOriginForm(req: { url?: string | undefined; headers: IncomingHttpHeaders }): boolean {
  const target = req.url ?? '';
  if (target.startsWith('/')) return !target.startsWith('//');
  if (!/^https?:\/\//i.test(target)) return false;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '') return false;
  req.headers.host = url.host;
  req.url = `${url.pathname}${url.search}`;
  return true;
}

/** What a target that `toOriginForm` refuses is told. */
export const BAD_TARGET = 'the request target must be a path such as /graphql (or an absolute http URL)';

/** The JSON body of a refusal, in the shape of a GraphQL error response. */
export function refusalBody(refusal: { message: string; code: string }): string {
  return JSON.stringify({ errors: [{ message: refusal.message, extensions: { code: refusal.code } }] });
}

/** A whole HTTP/1.1 refusal with that body, for a raw socket (an upgrade, or what Node's parser refused). */
export function rawRefusal(status: number, message: string, code: string): string {
  const body = refusalBody({ message, code });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nconnection: close\r\n` +
    `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}
