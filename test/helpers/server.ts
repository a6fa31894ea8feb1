import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, loadConfig } from '../../src/config.ts';
import { buildServer, type MiniSphereServer, type ServerDeps } from '../../src/server/server.ts';

/** One GraphQL error as a client receives it. */
export interface GqlError {
  message: string;
  path?: (string | number)[];
  locations?: { line: number; column: number }[];
  extensions?: { code?: string; [key: string]: unknown };
}

/** Response data as tests read it: loose on purpose, since each test asserts the shape it expects. */
// biome-ignore lint/suspicious/noExplicitAny: tests read responses ad hoc and assert their shape
export type Data = Record<string, any>;

/** A parsed GraphQL response body, with the HTTP status it came with. */
export interface GqlResponse<T = Data> {
  data?: T | null;
  errors?: GqlError[];
  status: number;
}

export interface GqlOptions {
  /** Sent as `x-workspace`; omitted when undefined (the server then uses `default`). */
  workspace?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  /** http://127.0.0.1:<port>/graphql */
  url: string;
  /** ws://127.0.0.1:<port>/graphql */
  wsUrl: string;
  /** http://127.0.0.1:<port> */
  origin: string;
  dataDir: string;
  server: MiniSphereServer;
  /** Every SQL statement drizzle ran since the last `resetQueries()`, in order. */
  queries: string[];
  resetQueries(): void;
  /** POSTs a GraphQL operation and returns the parsed body (and status). */
  gql<T = Data>(query: string, variables?: Record<string, unknown>, opts?: GqlOptions): Promise<GqlResponse<T>>;
  /** Like `gql`, but fails the test on any error and returns `data`. */
  gqlOk<T = Data>(query: string, variables?: Record<string, unknown>, opts?: GqlOptions): Promise<T>;
  /** The database file of a workspace. */
  dbPath(workspace: string): string;
  /** Stops the server and removes the temp data dir. */
  stop(): Promise<void>;
}

export interface TestServerOptions {
  config?: Partial<Config>;
  /** Passed to `buildServer` beside the query listener the helper installs. */
  deps?: Omit<ServerDeps, 'onQuery'>;
}

/** A real server on a free port over a fresh temp data dir (no mocks of the database). */
export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-test-'));
  const queries: string[] = [];
  const config = loadConfig({}, { port: 0, host: '127.0.0.1', dataDir, logLevel: 'silent', ...opts.config });
  const server = buildServer(config, { ...opts.deps, onQuery: (query) => queries.push(query) });
  const { url, port } = await server.start();
  const origin = `http://127.0.0.1:${port}`;

  const gql = async <T = Data>(
    query: string,
    variables?: Record<string, unknown>,
    o: GqlOptions = {},
  ): Promise<GqlResponse<T>> => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      ...o.headers,
    };
    if (o.workspace !== undefined) headers['x-workspace'] = o.workspace;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    const text = await res.text();
    let body: Omit<GqlResponse<T>, 'status'>;
    try {
      body = JSON.parse(text) as Omit<GqlResponse<T>, 'status'>;
    } catch {
      throw new Error(`non-JSON response (${res.status}): ${text.slice(0, 500)}`);
    }
    return { ...body, status: res.status };
  };

  const gqlOk = async <T = Data>(
    query: string,
    variables?: Record<string, unknown>,
    o: GqlOptions = {},
  ): Promise<T> => {
    const res = await gql<T>(query, variables, o);
    if (res.errors?.length || !res.data) {
      throw new Error(`GraphQL errors (${res.status}): ${JSON.stringify(res.errors)}`);
    }
    return res.data;
  };

  let stopped = false;
  return {
    url,
    wsUrl: url.replace(/^http/, 'ws'),
    origin,
    dataDir,
    server,
    queries,
    resetQueries: () => {
      queries.length = 0;
    },
    gql,
    gqlOk,
    dbPath: (workspace) => join(dataDir, `${workspace}.db`),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      try {
        await server.stop();
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}

let workspaceCounter = 0;

/** A workspace id no other test in this process uses. */
export function freshWorkspace(prefix = 'ws'): string {
  workspaceCounter += 1;
  return `${prefix}-${process.pid}-${workspaceCounter}`;
}
