import { DomainError } from '../contract/errors.ts';

/** Query parameters that carry credentials in libSQL and Redis URLs. */
const SECRET_PARAMS = /^(authtoken|auth_token|token|password|secret|key|jwt)$/i;

/**
 * A URL as it may be printed: user name, password and credential parameters replaced by
 * `***`; `{workspace}` templates stay readable.
 *
 * @example redactUrl('libsql://db.turso.io?authToken=abc') // 'libsql://db.turso.io?authToken=***'
 */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.replaceAll('{workspace}', '__workspace__'));
  } catch {
    // Not a URL we can take apart: show its scheme only, never what might be a secret.
    return `${/^[a-z][a-z0-9+.-]*:/i.exec(raw)?.[0] ?? ''}//***`;
  }
  if (url.username) url.username = '***';
  if (url.password) url.password = '***';
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAMS.test(name)) url.searchParams.set(name, '***');
  }
  return url.href.replaceAll('__workspace__', '{workspace}').replaceAll('%2A%2A%2A', '***');
}

/** Why a remote database could not be used, in words, and which setting to look at. */
export interface RemoteFailure {
  /** e.g. `connection refused (ECONNREFUSED)`, `HTTP 401 unauthorized: the auth token was refused`. */
  reason: string;
  /** The setting most likely wrong: the address or the credential. */
  check: 'url' | 'token';
}

/** The network error codes Node and undici give, as an operator would say them. */
const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found (DNS)',
  EAI_AGAIN: 'host name lookup failed for now (DNS)',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  ECONNRESET: 'connection reset by the server',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
};

/** The errors `cause` wraps, outermost first (drizzle wraps libSQL's, which wraps fetch's, which wraps Node's). */
function causes(error: unknown): { code?: unknown; status?: unknown; message?: unknown }[] {
  const chain: { code?: unknown; status?: unknown; message?: unknown }[] = [];
  let current: unknown = error;
  while (current && typeof current === 'object' && chain.length < 8) {
    chain.push(current as { code?: unknown; status?: unknown; message?: unknown });
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** Reads what went wrong from an error thrown while opening or querying a remote database. */
export function describeRemoteFailure(error: unknown): RemoteFailure {
  const chain = causes(error);
  for (const e of chain) {
    const status = typeof e.status === 'number' ? e.status : Number(/HTTP status (\d{3})/.exec(String(e.message))?.[1]);
    if (status === 401 || status === 403) {
      const what = status === 401 ? 'unauthorized' : 'forbidden';
      return { reason: `HTTP ${status} ${what}: the auth token was refused`, check: 'token' };
    }
    if (status >= 400) return { reason: `the server answered HTTP ${status}`, check: 'url' };
  }
  for (const e of chain) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (NETWORK_REASONS[code]) return { reason: `${NETWORK_REASONS[code]} (${code})`, check: 'url' };
  }
  for (const e of chain) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (/AUTH|TOKEN/i.test(code)) return { reason: `the auth token was refused (${code})`, check: 'token' };
  }
  const last = chain.at(-1);
  const code = typeof last?.code === 'string' ? ` (${last.code})` : '';
  // Messages of lower layers may quote the URL they were given, credentials and all.
  const message = String(last?.message ?? error)
    .split('\n')[0]
    ?.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, (url) => redactUrl(url));
  return { reason: `${message}${code}`, check: 'url' };
}

/** The variables that configure a remote database: its URL and its token. */
export interface RemoteSettings {
  url: string;
  token: string;
}

/**
 * A remote database that cannot be used, as one line an operator can act on: the
 * database (credentials redacted), why, and what to check. Its details carry the same
 * parts for callers that word it for someone else.
 */
export function remoteUnavailable(url: string, error: unknown, settings: RemoteSettings): DomainError {
  const failure = describeRemoteFailure(error);
  const database = redactUrl(url);
  const next =
    failure.check === 'token'
      ? `check ${settings.token} (and that it belongs to this database)`
      : `check ${settings.url} and that the database server is running and reachable`;
  return new DomainError('UNAVAILABLE', `cannot use the hosted database ${database}: ${failure.reason}; ${next}`, {
    database,
    reason: failure.reason,
    next,
  });
}

/** Where workspace databases are configured (see config.ts). */
export const WORKSPACE_DB_SETTINGS: RemoteSettings = { url: 'SPHERE_DB_URL', token: 'SPHERE_DB_AUTH_TOKEN' };
/** Where the control database is configured (see config.ts). */
export const CONTROL_DB_SETTINGS: RemoteSettings = { url: 'SPHERE_CONTROL_DB_URL', token: 'SPHERE_DB_AUTH_TOKEN' };
